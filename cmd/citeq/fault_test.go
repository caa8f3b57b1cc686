package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
	"github.com/citeq/citeq/state"
)

// henryHub is the natural gas workbook whose document alone makes one snapshot (as_of
// 2024-07-10): one promotion, one event.
const henryHub = "RNGWHHDd.xls"

// ngRaw is a raw directory holding the natural gas workbooks (a quick ingest): all of them,
// or only the named ones.
func ngRaw(t *testing.T, names ...string) string {
	t.Helper()
	src := filepath.Join(testenv.Raw(t), "eia", "ng_prices")
	dst := filepath.Join(t.TempDir(), "raw")
	if len(names) == 0 {
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	if err := os.MkdirAll(filepath.Join(dst, "eia", "ng_prices"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, "eia", "ng_prices", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// killedAt runs citeq ingest until it kills itself with SIGKILL at the named step.
func killedAt(t *testing.T, step, raw, data string) {
	t.Helper()
	cmd := exec.Command(binary(t), "ingest", "--raw", raw, "--data", data)
	cmd.Env = append(os.Environ(), snapshots.FailpointEnv+"="+step)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("ingest was not killed at %s (err %v):\n%s", step, err, out)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("ingest ended with %v, not SIGKILL at %s:\n%s", err, step, out)
	}
}

// TestPromotionSurvivesKill9: ingest is killed with SIGKILL at each step of promotion; the
// next ingest, or the next server start, leaves the promoted snapshot with exactly one
// snapshot.promoted event and one delivery per subscription: never a promoted snapshot
// without its event, never an event twice.
func TestPromotionSurvivesKill9(t *testing.T) {
	raw := ngRaw(t, henryHub)
	ctx := context.Background()
	cases := []struct {
		step string
		// promoted and queued say what the kill leaves: the catalog promotes the snapshot,
		// its event is in the outbox.
		promoted, queued bool
		recover          string // "ingest" or "serve"
	}{
		{"promote:start", false, false, "ingest"},
		{"promote:recorded", false, false, "ingest"},
		{"promote:catalog-written", true, false, "ingest"},
		{"promote:catalog-written", true, false, "serve"},
		{"emit:queued", true, true, "ingest"},
		{"emit:queued", true, true, "serve"},
	}
	for _, tc := range cases {
		t.Run(tc.step+" then "+tc.recover, func(t *testing.T) {
			data := t.TempDir()
			st, err := state.Open(ctx, "", data)
			if err != nil {
				t.Fatal(err)
			}
			_, key, _ := st.CreateKey(ctx, state.PlanMonthly, "ops")
			// Deliveries are only counted here: the callback is never reached (loopback is
			// refused without --allow-insecure-callbacks).
			if _, err := st.CreateSubscription(ctx, key.ID, "natural_gas.prices", "https://127.0.0.1:9/hook"); err != nil {
				t.Fatal(err)
			}
			deliveries := func() []state.Delivery {
				ds, err := st.ListDeliveries(ctx, key.ID, 100)
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}
			store := &snapshots.Store{Dir: data}

			killedAt(t, tc.step, raw, data)
			cat, err := store.ReadCatalog()
			if err != nil {
				t.Fatal(err)
			}
			if promoted := cat.Promoted["natural_gas.prices"]["2024-07-10"] != ""; promoted != tc.promoted {
				t.Fatalf("after the kill, promoted %v, want %v", promoted, tc.promoted)
			}
			if queued := len(deliveries()) > 0; queued != tc.queued {
				t.Fatalf("after the kill, event queued %v, want %v", queued, tc.queued)
			}

			switch tc.recover {
			case "ingest":
				run(t, "ingest", "--raw", raw, "--data", data)
			case "serve":
				startServer(t, "--data", data)
				for deadline := time.Now().Add(10 * time.Second); len(deliveries()) == 0; time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the server did not queue the missing event")
					}
				}
			}
			cat, _ = store.ReadCatalog()
			if cat.Promoted["natural_gas.prices"]["2024-07-10"] == "" {
				t.Fatal("the snapshot is not promoted after recovery")
			}
			ds := deliveries()
			if len(ds) != 1 {
				t.Fatalf("%d deliveries after recovery, want exactly 1: %+v", len(ds), ds)
			}
			pending, err := store.PendingPromotions()
			if err != nil || len(pending) != 0 {
				t.Errorf("promotions still pending after recovery: %+v %v", pending, err)
			}
			// Nothing is queued twice by a further ingest.
			run(t, "ingest", "--raw", raw, "--data", data)
			if n := len(deliveries()); n != 1 {
				t.Errorf("%d deliveries after one more ingest", n)
			}
		})
	}
}

// TestPromotionSurvivesAnUnreachableOutbox: an ingest whose outbox cannot be written (the
// state store is down, or its disk full) promotes the snapshot and fails; the next ingest
// queues the event it could not.
func TestPromotionSurvivesAnUnreachableOutbox(t *testing.T) {
	raw, data, ctx := ngRaw(t, henryHub), t.TempDir(), context.Background()
	out, err := exec.Command(binary(t), "ingest", "--raw", raw, "--data", data, "--state", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1").CombinedOutput()
	if err == nil {
		t.Fatalf("ingest with an unreachable outbox succeeded:\n%s", out)
	}
	store := &snapshots.Store{Dir: data}
	if cat, _ := store.ReadCatalog(); cat.Promoted["natural_gas.prices"]["2024-07-10"] == "" {
		t.Fatalf("not promoted:\n%s", out)
	}
	st, err := state.Open(ctx, "", data)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := st.CreateKey(ctx, state.PlanMonthly, "ops")
	if _, err := st.CreateSubscription(ctx, key.ID, "natural_gas.prices", "https://127.0.0.1:9/hook"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, "ingest", "--raw", raw, "--data", data); !strings.Contains(got, "1 snapshot.promoted events queued: 1 webhook deliveries") {
		t.Errorf("the next ingest did not queue the event:\n%s", got)
	}
	if ds, _ := st.ListDeliveries(ctx, key.ID, 100); len(ds) != 1 {
		t.Errorf("%d deliveries, want 1", len(ds))
	}
}

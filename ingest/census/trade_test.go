package census_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
)

// TestTradeFetchFromMirror serves the fixtures at the API's address on a loopback mirror:
// ingest --fetch downloads every Known source of the three trade adapters into their folder,
// and each adapter builds from what it downloaded, with every gate passed.
func TestTradeFetchFromMirror(t *testing.T) {
	fixtures := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", filepath.FromSlash(census.TradeFolder))
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.String())
		q := r.URL.Query()
		if r.URL.Path != "/data/timeseries/intltrade/imports/hs" || q.Get("get") == "" || !strings.HasPrefix(q.Get("time"), "from ") {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(fixtures, "imports_hs"+q.Get("I_COMMODITY")+".json"))
	}))
	defer srv.Close()
	raw := t.TempDir()
	for _, tc := range []struct {
		adapter census.Trade
		files   int
	}{
		{census.ChipTrade(), 2},
		{census.EquipmentTrade(), 1},
		{census.RobotTrade(), 1},
	} {
		t.Run(tc.adapter.Capability().ID, func(t *testing.T) {
			known := tc.adapter.Known()
			if len(known) != tc.files {
				t.Fatalf("%d known sources, want %d", len(known), tc.files)
			}
			for _, src := range known {
				u, err := url.Parse(src.URL)
				if err != nil || u.Host != "api.census.gov" {
					t.Fatalf("official address %q", src.URL)
				}
				if _, err := fetch.Fetch(context.Background(), raw, src, fetch.Options{Mirror: srv.URL, Client: srv.Client()}); err != nil {
					t.Fatal(err)
				}
			}
			plans, err := tc.adapter.Plan(ingest.NewFinder(raw, tc.adapter.Folders()))
			if err != nil || len(plans) != 1 || len(plans[0].Files) != tc.files {
				t.Fatalf("plans %+v, err %v", plans, err)
			}
			b, err := tc.adapter.Build(plans[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range b.Checks {
				if !g.Passed {
					t.Errorf("gate %s failed: %s", g.Name, g.Detail)
				}
			}
			if b.AsOf != "2026-05-01" || len(b.Rows) == 0 {
				t.Errorf("as_of %s, %d rows", b.AsOf, len(b.Rows))
			}
		})
	}
	if len(requests) != 4 {
		t.Errorf("%d requests, want 4: %v", len(requests), requests)
	}
	if _, err := os.Stat(filepath.Join(raw, filepath.FromSlash(census.TradeFolder), "imports_hs847950.json")); err != nil {
		t.Error(err)
	}
}

// TestTradeTotalsReconcile checks a country line that does not add up to the total fails
// totals_reconcile.
func TestTradeTotalsReconcile(t *testing.T) {
	src := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", filepath.FromSlash(census.TradeFolder), "imports_hs8486.json")
	body, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), filepath.FromSlash(census.TradeFolder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(body), "\n")
	lines = append(lines[:4], lines[5:]...) // drop one country of the first month
	if err := os.WriteFile(filepath.Join(dir, "imports_hs8486.json"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	a := census.EquipmentTrade()
	plans, err := a.Plan(ingest.NewFinder(filepath.Dir(filepath.Dir(dir)), a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatal(plans, err)
	}
	b, err := a.Build(plans[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if g.Name == "totals_reconcile" && g.Passed {
			t.Errorf("totals_reconcile passed: %s", g.Detail)
		}
	}
}

package state

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sqliteOpener opens stores on a fresh SQLite database per test, through the default
// DSN: <temp dir>/state.db.
func sqliteOpener() opener {
	return openWith(func(t *testing.T) (string, string, error) { return "", t.TempDir(), nil })
}

func TestSQLite(t *testing.T) {
	runSuite(t, sqliteOpener())
}

func TestSQLiteSettings(t *testing.T) {
	s := mustOpen(t, sqliteOpener())
	ctx := ctxT(t)
	b := s.(*sqlStore).b
	for _, tc := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", strconv.FormatInt(sqliteBusyTimeout.Milliseconds(), 10)},
		{"synchronous", "2"},
	} {
		var got string
		if err := b.queryRow(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %q, want %q", tc.pragma, got, tc.want)
		}
	}
}

func TestOpenDSN(t *testing.T) {
	dir := t.TempDir()
	ctx := ctxT(t)
	for _, tc := range []struct {
		name, dsn, dataDir string
		file               string // the database file expected, or "" when Open must fail
		errHas             []string
		errHasNot          []string
	}{
		{name: "default", dsn: "", dataDir: filepath.Join(dir, "a"), file: filepath.Join(dir, "a", "state.db")},
		{name: "sqlite: alone", dsn: "sqlite:", dataDir: filepath.Join(dir, "b"), file: filepath.Join(dir, "b", "state.db")},
		{name: "sqlite path", dsn: "sqlite:" + filepath.Join(dir, "c", "x.db"), dataDir: "ignored", file: filepath.Join(dir, "c", "x.db")},
		{name: "sqlite URL", dsn: "sqlite://" + filepath.Join(dir, "d.db"), file: filepath.Join(dir, "d.db")},
		{name: "other scheme", dsn: "mysql://root:hunter2@db/citeq",
			errHas: []string{`"mysql"`, "sqlite:", "postgres://", "postgresql://"}, errHasNot: []string{"hunter2"}},
		{name: "key=value", dsn: "host=db password=hunter2", errHas: []string{"postgres://"}, errHasNot: []string{"hunter2"}},
		{name: "path with query", dsn: "sqlite:" + filepath.Join(dir, "e.db") + "?mode=ro", errHas: []string{"?"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(ctx, tc.dsn, tc.dataDir)
			if tc.file == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Open(%q) succeeded", tc.dsn)
				}
				for _, w := range tc.errHas {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				for _, w := range tc.errHasNot {
					if strings.Contains(err.Error(), w) {
						t.Errorf("error %q reveals %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q, %q): %v", tc.dsn, tc.dataDir, err)
			}
			defer s.Close()
			if _, err := os.Stat(tc.file); err != nil {
				t.Errorf("database file: %v", err)
			}
		})
	}
}

// The two-process test runs this test binary again as helper processes that write to the
// same database file while the parent does.
const helperEnv = "CITEQ_STATE_TEST_HELPER_DB"

const (
	procQueries = 60
	procLimit   = 100
	procEvents  = 15
)

// procWork is what the parent and each helper process do at once: ConsumeQuery calls from
// several goroutines against a shared quota, new keys, enqueued events and claims. It
// returns how many queries were allowed.
func procWork(ctx context.Context, s Store, name string) (int, error) {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		errs    []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for g := range 4 {
		wg.Go(func() {
			for range procQueries / 4 {
				_, ok, err := s.ConsumeQuery(ctx, "ip:shared", procLimit)
				if err != nil {
					fail(err)
					return
				}
				if _, _, err := s.ConsumeQuery(ctx, "ip:total", 1_000_000); err != nil {
					fail(err)
					return
				}
				if ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
		wg.Go(func() {
			for i := range procEvents {
				if g == 0 {
					if _, err := s.Enqueue(ctx, Event{ID: fmt.Sprintf("%s-%d", name, i), DataPoint: "dp/p", Payload: []byte("{}")}); err != nil {
						fail(err)
						return
					}
				}
				if _, _, err := s.CreateKey(ctx, PlanFree, name); err != nil {
					fail(err)
					return
				}
				if _, err := s.ClaimDeliveries(ctx, time.Now(), 2, time.Hour); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return allowed, fmt.Errorf("%d errors, first: %w", len(errs), errs[0])
	}
	return allowed, nil
}

// TestSQLiteHelperProcess is the helper process's body; it does nothing in a normal run.
func TestSQLiteHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestSQLiteTwoProcesses")
	}
	ctx := ctxT(t)
	s, err := Open(ctx, "sqlite:"+path, "")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	allowed, err := procWork(ctx, s, "proc"+strconv.Itoa(os.Getpid()))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if err := s.Close(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("allowed=%d\n", allowed)
	os.Exit(0)
}

// TestSQLiteTwoProcesses writes to one database file from this process and two others at
// once: no SQLITE_BUSY, and the quota stays exact.
func TestSQLiteTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := ctxT(t)
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(ctx, "sqlite:"+path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, k := mustKey(t, s, PlanMonthly, "proc")
	mustSub(t, s, k.ID, "dp/p", "https://example.org/p")

	const procs = 2
	type result struct {
		out []byte
		err error
	}
	results := make(chan result, procs)
	for range procs {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSQLiteHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path)
		go func() {
			out, err := cmd.Output()
			results <- result{out, err}
		}()
	}
	allowed, err := procWork(ctx, s, "parent")
	if err != nil {
		t.Errorf("parent: %v", err)
	}
	for range procs {
		r := <-results
		out := string(r.out)
		if r.err != nil {
			t.Errorf("helper process: %v: %s", r.err, out)
			continue
		}
		i := strings.Index(out, "allowed=")
		if i < 0 {
			t.Errorf("helper process said %q", out)
			continue
		}
		n, err := strconv.Atoi(strings.Fields(out[i+len("allowed="):])[0])
		if err != nil {
			t.Errorf("helper process said %q", out)
		}
		allowed += n
	}
	if t.Failed() {
		return
	}
	if allowed != procLimit {
		t.Errorf("%d queries allowed across %d processes, want %d", allowed, procs+1, procLimit)
	}
	if used, err := s.QueriesUsed(ctx, "ip:total"); err != nil || used != (procs+1)*procQueries {
		t.Errorf("QueriesUsed(ip:total) = %d, %v; want %d", used, err, (procs+1)*procQueries)
	}
	keys, err := s.ListKeys(ctx)
	if err != nil || len(keys) != 1+(procs+1)*4*procEvents {
		t.Errorf("ListKeys = %d keys, %v; want %d", len(keys), err, 1+(procs+1)*4*procEvents)
	}
	ds, err := s.ListDeliveries(ctx, k.ID, 1000)
	if err != nil || len(ds) != (procs+1)*procEvents {
		t.Errorf("ListDeliveries = %d, %v; want %d", len(ds), err, (procs+1)*procEvents)
	}
}

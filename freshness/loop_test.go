package freshness

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fetch/archive"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// TestLoopWaitsForTheLock: a check that downloads a new file while another process writes the
// data directory fails as locked (the other process is named) and keeps the download pending;
// the next check, answered 304, ingests it once the lock is free, and the state survives a
// new loop reading it.
func TestLoopWaitsForTheLock(t *testing.T) {
	raw := testenv.Raw(t)
	body, err := os.ReadFile(filepath.Join(raw, "iso/caiso/publicqueuereport-01232025.xlsx"))
	if err != nil {
		t.Skip(err)
	}
	var requests, notModified atomic.Int32
	modified := time.Date(2025, 1, 23, 18, 0, 0, 0, time.UTC)
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/PublishedDocuments/PublicQueueReport.xlsx" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", `"jan"`)
		if r.Header.Get("If-None-Match") == `"jan"` {
			notModified.Add(1)
		}
		http.ServeContent(w, r, "PublicQueueReport.xlsx", modified, bytes.NewReader(body))
	}))
	defer mirror.Close()

	bounds, err := Bind([]Source{{ID: "caiso_queue", Publisher: "California ISO", Check: Daily(13, 0), Current: []string{"iso/caiso/PublicQueueReport.xlsx"}}}, adapters.All())
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	store := &snapshots.Store{Dir: data}
	loop := &Loop{Raw: t.TempDir(), Store: store, Lock: store, Sources: bounds}
	loop.Fetch.Mirror = mirror.URL
	if err := loop.Load(); err != nil {
		t.Fatal(err)
	}
	other := &snapshots.Store{Dir: data} // another writer of the data directory
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	loop.Check(ctx, bounds[0])
	st := loop.Snapshot()["caiso_queue"]
	if st.Failures != 1 || st.FailuresByReason["locked"] != 1 || !st.Pending || !strings.Contains(st.LastError, "pid ") {
		t.Fatalf("a check while the data directory is locked: %+v", st)
	}
	if time.Until(st.NextCheck) > time.Minute {
		t.Fatalf("retried at %v, later than the backoff allows", st.NextCheck)
	}
	if err := other.Unlock(); err != nil {
		t.Fatal(err)
	}

	// A new loop over the same state resumes: the file is asked with its validators, and the
	// download left pending is ingested.
	loop2 := &Loop{Raw: loop.Raw, Store: store, Lock: store, Sources: bounds}
	loop2.Fetch.Mirror = mirror.URL
	if err := loop2.Load(); err != nil {
		t.Fatal(err)
	}
	loop2.Check(ctx, bounds[0])
	st = loop2.Snapshot()["caiso_queue"]
	if st.Failures != 0 || st.Pending || st.LastSucceeded.IsZero() || notModified.Load() != 1 {
		t.Fatalf("the check after the lock was freed: %+v (304s: %d)", st, notModified.Load())
	}
	cat, err := store.ReadCatalog()
	if err != nil || cat.Promoted["power.interconnection_queue_caiso"]["2025-01-23"] == "" {
		t.Fatalf("not promoted: %+v %v", cat, err)
	}
	if fr, _ := loop2.Freshness(bounds[0].Adapters[0].Capability()); len(fr.Sources) != 1 || !fr.Sources[0].LastChanged.Equal(modified) || fr.Sources[0].Stale != "" {
		t.Fatalf("freshness: %+v", fr)
	}
}

// TestClaim: one sync loop per data directory.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	release, err := Claim(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(dir); err == nil || !strings.Contains(err.Error(), "a sync loop already checks the sources of") || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("a second loop: %v", err)
	}
	release()
	release, err = Claim(dir)
	if err != nil {
		t.Fatalf("after the first released: %v", err)
	}
	release()
}

// TestReader: a server without a loop shows the state a loop recorded in the data directory,
// and a source that loop stopped checking turns stale.
func TestReader(t *testing.T) {
	bounds, err := Bind(Sources, adapters.All())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checked := time.Date(2026, 11, 20, 13, 0, 0, 0, time.UTC)
	st := &State{Sources: map[string]*SourceState{"caiso_queue": {LastChecked: checked, LastSucceeded: checked, NextCheck: checked.Add(24 * time.Hour),
		Files: map[string]*FileState{"iso/caiso/PublicQueueReport.xlsx": {SHA256: "a", Changed: checked.Add(-48 * time.Hour)}}}}}
	if err := st.write(dir); err != nil {
		t.Fatal(err)
	}
	now := checked.Add(time.Hour)
	r := &Reader{Dir: dir, Sources: bounds, Now: func() time.Time { return now }}
	caiso := capability.ByID("power.interconnection_queue_caiso")
	fr, _ := r.Freshness(caiso)
	if fr.Running || len(fr.Sources) != 1 || fr.Sources[0].Stale != "" || !fr.Sources[0].LastChecked.Equal(checked) {
		t.Fatalf("as recorded: %+v", fr)
	}
	now = checked.Add(72 * time.Hour)
	if fr, _ := r.Freshness(caiso); !strings.HasPrefix(fr.Sources[0].Stale, "not checked since 2026-11-20T13:00:00Z although due at 2026-11-21T13:00:00Z") {
		t.Fatalf("two days past its check: %+v", fr.Sources[0])
	}
	// power.demand: its six-month files are checked, its region CSV has no address to check.
	if fr, _ := r.Freshness(capability.ByID("power.demand")); len(fr.Sources) != 1 || fr.Sources[0].SourceID != "eia930_balance" || fr.Unchecked("eia930") == "" {
		t.Fatalf("power.demand: %+v", fr)
	}
}

// TestSameBytesUnderTheStableName: the publisher's current file, downloaded under its stable
// name, holding the same bytes as a dated copy already served, is refused by as_of_immutable
// (another file name) but withholds nothing: the source is not stale.
func TestSameBytesUnderTheStableName(t *testing.T) {
	raw := testenv.Raw(t)
	body, err := os.ReadFile(filepath.Join(raw, "iso/caiso/publicqueuereport-01232025.xlsx"))
	if err != nil {
		t.Skip(err)
	}
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "PublicQueueReport.xlsx", time.Now(), bytes.NewReader(body))
	}))
	defer mirror.Close()
	bounds, err := Bind([]Source{{ID: "caiso_queue", Cadence: capability.Irregular, Check: Daily(13, 0), Current: []string{"iso/caiso/PublicQueueReport.xlsx"}}}, adapters.All())
	if err != nil {
		t.Fatal(err)
	}
	rawDir := t.TempDir()
	os.MkdirAll(filepath.Join(rawDir, "iso/caiso"), 0o755)
	if err := os.WriteFile(filepath.Join(rawDir, "iso/caiso/publicqueuereport-01232025.xlsx"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	store := &snapshots.Store{Dir: t.TempDir()}
	loop := &Loop{Raw: rawDir, Store: store, Lock: store, Sources: bounds}
	loop.Fetch.Mirror = mirror.URL
	if err := loop.Load(); err != nil {
		t.Fatal(err)
	}
	loop.Check(context.Background(), bounds[0])
	st := loop.Snapshot()["caiso_queue"]
	cat, _ := store.ReadCatalog()
	if cat.Promoted["power.interconnection_queue_caiso"]["2025-01-23"] == "" || st.Failures != 0 {
		t.Fatalf("the dated copy is not served: %+v %+v", cat, st)
	}
	if st.Refused != "" {
		t.Fatalf("stale for a file whose bytes are served: %s", st.Refused)
	}
}

// TestLoopDatedMonths: a dated source is looked for from the month after the newest held; a
// month not yet released is no failure; the publisher that releases nothing for longer than
// its cadence and grace is overdue.
func TestLoopDatedMonths(t *testing.T) {
	released := time.Date(2026, 10, 24, 14, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var asked []string
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		if r.URL.Path == "/electricity/data/eia860m/xls/october_generator2026.xlsx" {
			http.ServeContent(w, r, "x.xlsx", released, bytes.NewReader(testenv.Zip(t, "[Content_Types].xml", "<Types/>")))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><html>EIA-860M</html>"))
	}))
	defer mirror.Close()
	b := Bound{Source: Source{ID: "eia860m", Cadence: capability.Monthly, Check: Daily(16, 0), Dated: &archive.EIA860M}}
	now := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
	store := &snapshots.Store{Dir: t.TempDir()}
	loop := &Loop{Raw: t.TempDir(), Store: store, Sources: []Bound{b}, Now: func() time.Time { return now }}
	loop.Fetch.Mirror = mirror.URL
	if err := loop.Load(); err != nil {
		t.Fatal(err)
	}
	loop.Check(context.Background(), b)
	st := loop.Snapshot()["eia860m"]
	if st.Failures != 0 || st.Files["eia/eia860m/october_generator2026.xlsx"] == nil || !st.LastChanged().Equal(released) || st.Pending {
		t.Fatalf("first check: %+v (asked %v)", st, asked)
	}
	if _, err := os.Stat(filepath.Join(loop.Raw, "eia/eia860m/october_generator2026.xlsx")); err != nil {
		t.Fatal(err)
	}
	if judge(b, &st, now, DefaultStaleAfter) != "" {
		t.Fatalf("stale after a release a month old")
	}
	mu.Lock()
	asked = nil
	mu.Unlock()
	now = time.Date(2026, 12, 20, 16, 0, 0, 0, time.UTC)
	loop.Check(context.Background(), b)
	st = loop.Snapshot()["eia860m"]
	if st.Failures != 0 || len(st.Files) != 1 {
		t.Fatalf("second check: %+v", st)
	}
	if strings.Join(asked, " ") != "/electricity/data/eia860m/xls/november_generator2026.xlsx /electricity/data/eia860m/archive/xls/november_generator2026.xlsx "+
		"/electricity/data/eia860m/xls/december_generator2026.xlsx /electricity/data/eia860m/archive/xls/december_generator2026.xlsx" {
		t.Fatalf("asked %v", asked)
	}
	if got := judge(b, &st, now, DefaultStaleAfter); !strings.HasPrefix(got, "the publisher is overdue: it releases a new version monthly, and the newest held was released 2026-10-24T14:00:00Z") {
		t.Fatalf("judged %q", got)
	}
}

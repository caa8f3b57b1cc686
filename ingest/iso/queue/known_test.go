package queue_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/iso/queue"
	"github.com/citeq/citeq/internal/testenv"
)

// knownQueue is what ingest --fetch downloads for one operator, and what the loopback
// mirror serves at the official address: the latest stored copy of the operator's file (or,
// for SPP, whose own CSV is not among the raw files, a file written in its layout).
type knownQueue struct {
	op         *queue.Operator
	host, dest string
	served     string // under CITEQ_RAW, or under testdata/fixtures with fixture
	fixture    bool
	asOf       string
	rows       int
}

var knownQueues = []knownQueue{
	{op: queue.CAISO, host: "www.caiso.com", dest: "iso/caiso/PublicQueueReport.xlsx",
		served: "iso/caiso/publicqueuereport-08032026.xlsx", asOf: "2026-08-03"},
	{op: queue.NYISO, host: "www.nyiso.com", dest: "iso/nyiso/NYISO-Interconnection-Queue.xlsx",
		served: "iso/nyiso/NYISO-Interconnection-Queue_2025-01.xlsx", asOf: "2025-01-31"},
	{op: queue.SPP, host: "opsportal.spp.org", dest: "iso/spp/GI_ActiveRequest.csv",
		served: "iso/spp/GI_ActiveRequest.csv", fixture: true, asOf: "2026-03-04", rows: 6},
}

// TestKnown: the operators whose current file a plain request gets list it, at their own
// address and under a name without date; the others (MISO's CSV is made in the browser,
// PJM's export needs an API key, ISO-NE's a session, ERCOT's monthly report a document id
// looked up first) list nothing.
func TestKnown(t *testing.T) {
	byOp := map[*queue.Operator]knownQueue{}
	for _, k := range knownQueues {
		byOp[k.op] = k
	}
	dated := regexp.MustCompile(`\d{4}`)
	for _, op := range queue.Operators {
		if op.AsOf == nil {
			continue // a companion: its operator's adapter lists it
		}
		known := queue.New(op).Known()
		want, ok := byOp[op]
		if !ok {
			if len(known) != 0 {
				t.Errorf("%s: Known %+v, want none", op.Cap.ID, known)
			}
			continue
		}
		if len(known) != 1 {
			t.Fatalf("%s: Known %+v, want one file", op.Cap.ID, known)
		}
		src := known[0]
		u, err := url.Parse(src.URL)
		if err != nil || u.Scheme != "https" || u.Host != want.host {
			t.Errorf("%s: address %q, want https on %s", op.Cap.ID, src.URL, want.host)
		}
		if src.Dest != want.dest || dated.MatchString(path.Base(src.Dest)) {
			t.Errorf("%s: Dest %q, want %q (no date in the name)", op.Cap.ID, src.Dest, want.dest)
		}
	}
}

// TestKnownFromMirror downloads every known queue file from a loopback mirror of the
// operators' addresses, as ingest --fetch does, and builds each operator's snapshot from what
// arrived: every gate passes and the as_of is the one the file states.
func TestKnownFromMirror(t *testing.T) {
	raw := testenv.Raw(t)
	fixtures := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures")
	routes := map[string]string{}
	for _, k := range knownQueues {
		src := queue.New(k.op).Known()[0]
		u, _ := url.Parse(src.URL)
		root := raw
		if k.fixture {
			root = fixtures
		}
		routes[u.Path] = filepath.Join(root, filepath.FromSlash(k.served))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, p)
	}))
	defer srv.Close()
	dir := t.TempDir()
	for _, k := range knownQueues {
		t.Run(k.op.Cap.ID, func(t *testing.T) {
			a := queue.New(k.op)
			for _, src := range a.Known() {
				if _, err := fetch.Fetch(context.Background(), dir, src, fetch.Options{Mirror: srv.URL, Client: srv.Client()}); err != nil {
					t.Fatal(err)
				}
			}
			plans, err := a.Plan(ingest.NewFinder(dir, a.Folders()))
			if err != nil || len(plans) != 1 {
				t.Fatalf("plans %+v, err %v", plans, err)
			}
			if got := filepath.ToSlash(plans[0].Files[0].Path); !strings.HasSuffix(got, k.dest) {
				t.Errorf("plan reads %s, want %s", got, k.dest)
			}
			testenv.HashPlan(t, &plans[0])
			b, err := a.Build(plans[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range b.Checks {
				if !g.Passed {
					t.Errorf("gate %s failed: %s", g.Name, g.Detail)
				}
			}
			if b.AsOf != k.asOf {
				t.Errorf("as_of %s, want %s", b.AsOf, k.asOf)
			}
			if k.rows > 0 && len(b.Rows) != k.rows {
				t.Errorf("%d rows, want %d", len(b.Rows), k.rows)
			}
			for _, s := range b.Sources {
				if s.Derived || s.URL != a.Known()[0].URL {
					t.Errorf("source %s: derived %v, url %s; the operator's own file is cited at its own address", s.File, s.Derived, s.URL)
				}
			}
		})
	}
}

// TestPlanCurrentFileIsNewest: a file named without date (the operator's current file, as
// ingest --fetch names it) is planned after the dated ones, so CAISO's Cluster 15 list joins
// its snapshot.
func TestPlanCurrentFileIsNewest(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "iso", "caiso")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"publicqueuereport-01232025.xlsx", "PublicQueueReport.xlsx", "publicqueuereport-08032026.xlsx", "cluster-15-interconnection-requests.xlsx"} {
		if err := os.WriteFile(filepath.Join(folder, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := queue.New(queue.CAISO)
	plans, err := a.Plan(ingest.NewFinder(dir, a.Folders()))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plans {
		var names []string
		for _, f := range p.Files {
			names = append(names, filepath.Base(f.Path))
		}
		got = append(got, strings.Join(names, "+"))
	}
	want := "publicqueuereport-01232025.xlsx|publicqueuereport-08032026.xlsx|PublicQueueReport.xlsx+cluster-15-interconnection-requests.xlsx"
	if strings.Join(got, "|") != want {
		t.Errorf("plans %s, want %s", strings.Join(got, "|"), want)
	}
}

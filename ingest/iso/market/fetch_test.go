package market_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/iso/market"
)

// TestPDFPostingsFetchFromMirror serves the PDF fixtures at the publishers' addresses on a
// loopback mirror: ingest --fetch downloads every Known posting of the MISO auction, MISO
// accreditation and PJM ELCC adapters as a PDF into the adapter's folder, under a name its Plan
// reads, and each plan built from the downloads passes every gate. A mirror that answers an
// HTML page instead of the PDF is refused and leaves the folder as it was.
func TestPDFPostingsFetchFromMirror(t *testing.T) {
	fixtures := misoFixtures(t)
	var mu sync.Mutex
	serve := map[string]string{} // request path → fixture file
	html := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		file, ok := serve[r.URL.Path]
		asHTML := html
		mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case asHTML:
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><body>Access denied</body></html>"))
		default:
			w.Header().Set("Content-Type", "application/pdf")
			http.ServeFile(w, r, file)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		adapter ingest.Adapter
		host    string
		known   int
	}{
		{market.MISOAuction{}, "cdn.misoenergy.org", 3},
		{market.MISOAccreditation{}, "cdn.misoenergy.org", 1},
		{market.PJMAccreditation{}, "www.pjm.com", 3},
	} {
		t.Run(tc.adapter.Capability().ID, func(t *testing.T) {
			a := tc.adapter
			known := a.Known()
			if len(known) != tc.known {
				t.Fatalf("%d known postings, want %d", len(known), tc.known)
			}
			// Each address serves the fixture saved under the same name, else the adapter's
			// first fixture (a posting whose figures the fixtures do not hold).
			plans, err := a.Plan(ingest.NewFinder(fixtures, a.Folders()))
			if err != nil || len(plans) == 0 {
				t.Fatalf("fixtures: %d plans, %v", len(plans), err)
			}
			raw := t.TempDir()
			for _, src := range known {
				u, err := url.Parse(src.URL)
				if err != nil || u.Scheme != "https" || u.Host != tc.host {
					t.Fatalf("official address %q", src.URL)
				}
				if src.Kind != fetch.PDF {
					t.Errorf("%s: kind %s, want pdf", src.URL, src.Kind)
				}
				file := filepath.Join(fixtures, filepath.FromSlash(src.Dest))
				if _, err := os.Stat(file); err != nil {
					file = plans[0].Files[0].Path
				}
				mu.Lock()
				serve[u.Path] = file
				mu.Unlock()
				res, err := fetch.Fetch(context.Background(), raw, src, fetch.Options{Mirror: srv.URL, Client: srv.Client()})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != fetch.StatusDownloaded || !slices.ContainsFunc(a.Folders(), func(f string) bool { return strings.HasPrefix(src.Dest, f+"/") }) {
					t.Errorf("%s: %s into %s", src.URL, res.Status, src.Dest)
				}
			}
			got, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
			if err != nil || len(got) == 0 {
				t.Fatalf("downloads: %d plans, %v", len(got), err)
			}
			files := 0
			for _, p := range got {
				files += len(p.Files)
				for _, f := range p.Files {
					if !slices.ContainsFunc(known, func(k fetch.Source) bool { return k.URL == f.URL }) {
						t.Errorf("%s is cited at %s, not at the address it was downloaded from", filepath.Base(f.Path), f.URL)
					}
				}
				b, err := a.Build(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range b.Checks {
					if !g.Passed {
						t.Errorf("%s: gate %s failed: %s", filepath.Base(p.Files[0].Path), g.Name, g.Detail)
					}
				}
				if len(b.Rows) == 0 {
					t.Errorf("%s: no rows", filepath.Base(p.Files[0].Path))
				}
			}
			if files != len(known) {
				t.Errorf("the plans read %d of the %d downloads", files, len(known))
			}
			// An HTML page in place of the PDF is refused; the downloaded file stays.
			mu.Lock()
			html = true
			mu.Unlock()
			defer func() { mu.Lock(); html = false; mu.Unlock() }()
			before, _ := os.ReadFile(filepath.Join(raw, filepath.FromSlash(known[0].Dest)))
			_, err = fetch.Fetch(context.Background(), raw, known[0], fetch.Options{Mirror: srv.URL, Client: srv.Client()})
			if !errors.Is(err, fetch.ErrRefused) {
				t.Errorf("an HTML page: %v, want a refusal", err)
			}
			after, _ := os.ReadFile(filepath.Join(raw, filepath.FromSlash(known[0].Dest)))
			if len(before) == 0 || string(before) != string(after) {
				t.Error("the refused download changed the file")
			}
		})
	}
}

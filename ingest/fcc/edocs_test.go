package fcc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/citeq/citeq/ingest/fcc"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
)

// edocsMirror serves, at the official paths, the synthetic EDOCS listing of testdata/fcc_edocs
// (pages by their offset) and the notices' texts it names: the three synthetic weekly
// notices of the fixtures and a synthetic earth-station notice. pages maps an offset to the
// page file; a page missing from it is answered with status.
type edocsMirror struct {
	root   string // the repository
	pages  map[string]string
	status int
	mu     sync.Mutex
	asked  []string
}

func (m *edocsMirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.asked = append(m.asked, r.URL.Path+"?"+r.URL.RawQuery)
	m.mu.Unlock()
	root := m.root
	texts := map[string]string{
		"/public/attachments/DOC-SYNTH01A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-20_SAT-01901.txt",
		"/public/attachments/DOC-SYNTH02A1.txt": "testdata/fcc_edocs/DOC-SYNTH02A1.txt",
		"/public/attachments/DOC-SYNTH03A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-25_SAT-01903.txt",
		"/public/attachments/DOC-SYNTH05A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-27_SAT-01905.txt",
	}
	var file string
	switch {
	case r.URL.Path == "/api/exp/v1.0.0/edocspublic/documents":
		q := r.URL.Query()
		if q.Get("bureau") != "SB" || q.Get("releaseDateFrom") != "2025-06-18" || q.Get("limit") == "" {
			http.Error(w, "the request lost its parameters", http.StatusBadRequest)
			return
		}
		page, ok := m.pages[q.Get("offset")]
		if !ok {
			http.Error(w, "unavailable", m.status)
			return
		}
		file = "testdata/fcc_edocs/" + page
		w.Header().Set("Content-Type", "application/json")
	default:
		file = texts[r.URL.Path]
		w.Header().Set("Content-Type", "text/plain")
	}
	if file == "" {
		http.NotFound(w, r)
		return
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(b)
}

func fullListing(t *testing.T) *edocsMirror {
	return &edocsMirror{root: testenv.RepoRoot(t), pages: map[string]string{"0": "listing_0.json", "2": "listing_2.json", "4": "listing_4.json"}, status: http.StatusServiceUnavailable}
}

// fetchNotices runs the notices' Known sources against the mirror into raw.
func fetchNotices(t *testing.T, raw string, srv *httptest.Server) ([]fetch.Result, error) {
	t.Helper()
	var out []fetch.Result
	for _, src := range (fcc.Notices{}).Known() {
		res, err := fetch.Fetch(context.Background(), raw, src, fetch.Options{Mirror: srv.URL, Client: srv.Client()})
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

func folderFiles(t *testing.T, raw string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	entries, err := os.ReadDir(filepath.Join(raw, filepath.FromSlash(fcc.NoticesFolder)))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.ModTime().UnixNano()
	}
	return out
}

func names(m map[string]int64) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// TestNoticesDiscovery: ingest --fetch walks the EDOCS listing page by page, downloads the
// text of each weekly space-station notice under a name carrying its report number and
// document, never the earth-station notice nor the document without report number, and the
// adapter builds from them citing each notice's official text address. A second run
// changes nothing.
func TestNoticesDiscovery(t *testing.T) {
	known := (fcc.Notices{}).Known()
	if len(known) != 1 || known[0].Kind != fetch.LISTING || !strings.HasPrefix(known[0].URL, fcc.EDOCSAPI+"documents?") {
		t.Fatalf("known %+v", known)
	}
	m := fullListing(t)
	srv := httptest.NewServer(m)
	defer srv.Close()
	raw := t.TempDir()
	res, err := fetchNotices(t, raw, srv)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SAT-01901_DOC-SYNTH01A1.txt", "SAT-01903_DOC-SYNTH03A1.txt", "SAT-01905_DOC-SYNTH05A1.txt",
		fcc.ListingFile, "edocs_sb_public_notices_p2.json", "edocs_sb_public_notices_p3.json",
	}
	sort.Strings(want)
	first := folderFiles(t, raw)
	if got := names(first); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	if res[0].Status != fetch.StatusDownloaded || len(res[0].Files) != 3 {
		t.Errorf("result %+v", res[0])
	}
	for _, a := range m.asked {
		if strings.Contains(a, "SYNTH02") || strings.Contains(a, "SYNTH04") || strings.HasSuffix(a, ".pdf?") {
			t.Errorf("asked for %s", a)
		}
	}
	// Three listing pages (offsets 0, 2, 4) and three notices.
	if len(m.asked) != 6 {
		t.Errorf("requests %v", m.asked)
	}

	b, failed := build(t, fcc.Notices{}, raw)
	if len(failed) > 0 || len(b.Rows) == 0 {
		t.Fatalf("%d rows, failed gates %v", len(b.Rows), failed)
	}
	cited := map[string]string{}
	for _, s := range b.Sources {
		cited[s.File] = s.URL
	}
	for _, doc := range []string{"01", "03", "05"} {
		name := "SAT-019" + doc + "_DOC-SYNTH" + doc + "A1.txt"
		if u := cited[name]; u != "https://docs.fcc.gov/public/attachments/DOC-SYNTH"+doc+"A1.txt" {
			t.Errorf("%s cites %q", name, u)
		}
	}

	// The second run finds the same listing: nothing is written.
	m.asked = nil
	res, err = fetchNotices(t, raw, srv)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Status != fetch.StatusUnchanged {
		t.Errorf("second run: %s", res[0].Status)
	}
	if second := folderFiles(t, raw); len(second) != len(first) {
		t.Errorf("second run: files %v, first %v", names(second), names(first))
	} else {
		for n, mt := range first {
			if second[n] != mt {
				t.Errorf("second run rewrote %s", n)
			}
		}
	}
}

// TestNoticesListingErrors: a listing page the API does not answer, and a notice listed
// with its PDF alone, fail the fetch; nothing is stored from the failed walk.
func TestNoticesListingErrors(t *testing.T) {
	t.Run("a page fails", func(t *testing.T) {
		m := fullListing(t)
		delete(m.pages, "2")
		srv := httptest.NewServer(m)
		defer srv.Close()
		raw := t.TempDir()
		_, err := fetchNotices(t, raw, srv)
		if err == nil || !errors.Is(err, fetch.ErrRefused) || !strings.Contains(err.Error(), "503") {
			t.Fatalf("err %v", err)
		}
		if got := folderFiles(t, raw); len(got) != 0 {
			t.Errorf("files written: %v", names(got))
		}
	})
	t.Run("a notice without its text", func(t *testing.T) {
		dir := t.TempDir()
		b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "fcc_edocs", "listing_4.json"))
		if err != nil {
			t.Fatal(err)
		}
		pdfOnly := strings.ReplaceAll(string(b), "DOC-SYNTH05A1.txt\", \"fileType\": \"txt\"", "DOC-SYNTH05A1.pdf\", \"fileType\": \"pdf\"")
		if pdfOnly == string(b) {
			t.Fatal("the listing page did not change")
		}
		if err := os.WriteFile(filepath.Join(dir, "listing_4.json"), []byte(pdfOnly), 0o644); err != nil {
			t.Fatal(err)
		}
		m := fullListing(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("offset") == "4" {
				w.Write([]byte(pdfOnly))
				return
			}
			m.ServeHTTP(w, r)
		}))
		defer srv.Close()
		raw := t.TempDir()
		_, err = fetchNotices(t, raw, srv)
		if err == nil || !strings.Contains(err.Error(), "SAT-01905") || !strings.Contains(err.Error(), "only its PDF") {
			t.Fatalf("err %v", err)
		}
		if got := folderFiles(t, raw); len(got) != 0 {
			t.Errorf("files written: %v", names(got))
		}
	})
}

// TestListingURL: the listing asks the Space Bureau's public notices from the contract's
// first date on, page by page.
func TestListingURL(t *testing.T) {
	u, err := url.Parse(fcc.EDOCSListingURL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Host != "api2.fcc.gov" || q.Get("bureau") != "SB" || q.Get("releaseDateFrom") != "2025-06-18" || q.Get("offset") != "0" || q.Get("limit") == "" {
		t.Errorf("listing %s", u)
	}
}

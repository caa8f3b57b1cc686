package fcc_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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

// edocsMirror serves, at the official paths, the synthetic Space Bureau feed of
// testdata/fcc_edocs and the notices' texts it links: the three synthetic weekly notices of
// the fixtures and a synthetic earth-station notice. A feed or text not in feed or texts is
// answered with status; soft names texts answered as docs.fcc.gov answers an unknown id (an
// HTML page with status 200).
type edocsMirror struct {
	root   string // the repository
	feed   string
	texts  map[string]string
	soft   map[string]bool
	status int
	mu     sync.Mutex
	asked  []string
}

func (m *edocsMirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.asked = append(m.asked, r.URL.Path)
	m.mu.Unlock()
	var file string
	switch {
	case r.URL.Path == "/api/exp/v1.0.0/edocspublic/rss/bureaus/SB":
		file = m.feed
		w.Header().Set("Content-Type", "application/rss+xml")
	case m.soft[r.URL.Path]:
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><html><body>The document you are trying to retrieve is invalid.</body></html>"))
		return
	default:
		file = m.texts[r.URL.Path]
		w.Header().Set("Content-Type", "text/plain")
	}
	if file == "" {
		http.Error(w, "unavailable", m.status)
		return
	}
	b, err := os.ReadFile(filepath.Join(m.root, filepath.FromSlash(file)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(b)
}

func fullFeed(t *testing.T) *edocsMirror {
	return &edocsMirror{root: testenv.RepoRoot(t), feed: "testdata/fcc_edocs/rss_bureaus_SB.xml", status: http.StatusServiceUnavailable,
		soft: map[string]bool{},
		texts: map[string]string{
			"/public/attachments/DOC-9000001A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-20_SAT-01901.txt",
			"/public/attachments/DOC-9000002A1.txt": "testdata/fcc_edocs/DOC-9000002A1.txt",
			"/public/attachments/DOC-9000003A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-25_SAT-01903.txt",
			"/public/attachments/DOC-9000005A1.txt": "testdata/fixtures/space/fcc_sat_notices/2025-06-27_SAT-01905.txt",
		}}
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

// TestNoticesDiscovery: ingest --fetch reads the Space Bureau's feed, downloads the text
// of each weekly space-station notice it links (DOC-<id>A1.txt) under a name carrying its
// report number when the item gives one, never the earth-station notice nor the release of
// another kind, and the adapter builds from them citing each notice's official text address.
// A second run changes nothing.
func TestNoticesDiscovery(t *testing.T) {
	known := (fcc.Notices{}).Known()
	if len(known) != 1 || known[0].Kind != fetch.LISTING || known[0].URL != fcc.EDOCSFeedURL || known[0].Listing.PageKind != fetch.TEXT {
		t.Fatalf("known %+v", known)
	}
	m := fullFeed(t)
	srv := httptest.NewServer(m)
	defer srv.Close()
	raw := t.TempDir()
	res, err := fetchNotices(t, raw, srv)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SAT-01901_DOC-9000001A1.txt", "DOC-9000003A1.txt", "SAT-01905_DOC-9000005A1.txt", fcc.ListingFile}
	sort.Strings(want)
	first := folderFiles(t, raw)
	if got := names(first); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	if res[0].Status != fetch.StatusDownloaded || len(res[0].Files) != 3 {
		t.Errorf("result %+v", res[0])
	}
	for _, a := range m.asked {
		if strings.Contains(a, "9000002") || strings.Contains(a, "9000004") {
			t.Errorf("asked for %s", a)
		}
	}
	// The feed and three notices.
	if len(m.asked) != 4 {
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
	for name, id := range map[string]string{"SAT-01901_DOC-9000001A1.txt": "9000001", "DOC-9000003A1.txt": "9000003", "SAT-01905_DOC-9000005A1.txt": "9000005"} {
		if u := cited[name]; u != "https://docs.fcc.gov/public/attachments/DOC-"+id+"A1.txt" {
			t.Errorf("%s cites %q", name, u)
		}
	}

	// The second run finds the same feed: nothing is written.
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

// TestNoticesFeedErrors: a feed the API does not answer, a notice whose text docs.fcc.gov
// answers with its HTML page for an unknown id, and a notice item that links no document fail
// the fetch; the feed is not stored from the failed walk.
func TestNoticesFeedErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *edocsMirror)
		want []string
	}{
		{"the feed fails", func(m *edocsMirror) { m.feed = "" }, []string{"503"}},
		{"a notice's text is the soft not-found page", func(m *edocsMirror) { m.soft["/public/attachments/DOC-9000005A1.txt"] = true },
			[]string{"DOC-9000005A1.txt", "HTML"}},
		{"a notice item links no document", func(m *edocsMirror) {
			b, err := os.ReadFile(filepath.Join(m.root, "testdata", "fcc_edocs", "rss_bureaus_SB.xml"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			edited := strings.Replace(string(b), "https://www.fcc.gov/edoc/9000003", "https://www.fcc.gov/document/space-station-actions-taken", 1)
			if err := os.WriteFile(filepath.Join(dir, "feed.xml"), []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			m.root, m.feed = "/", filepath.ToSlash(filepath.Join(dir, "feed.xml"))
			for k, v := range m.texts {
				m.texts[k] = filepath.ToSlash(filepath.Join(testenv.RepoRoot(t), v))
			}
		}, []string{"Actions Taken", "not a document of https://www.fcc.gov/edoc/<id>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fullFeed(t)
			tc.edit(m)
			srv := httptest.NewServer(m)
			defer srv.Close()
			raw := t.TempDir()
			_, err := fetchNotices(t, raw, srv)
			if err == nil {
				t.Fatal("the fetch succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %v does not say %q", err, w)
				}
			}
			if _, ok := folderFiles(t, raw)[fcc.ListingFile]; ok {
				t.Error("the feed of a failed walk was stored")
			}
		})
	}
}

// TestEDOCSAddresses: the addresses public code calls EDOCS at.
func TestEDOCSAddresses(t *testing.T) {
	for got, want := range map[string]string{
		fcc.EDOCSFeedURL:                "https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/rss/bureaus/SB",
		fcc.EDOCSDocumentURL("416467"):  "https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/documents/416467",
		fcc.EDOCSReportURL("SES-02821"): "https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/documents?reportNumber=SES-02821",
		fcc.EDOCSTextURL("416467"):      "https://docs.fcc.gov/public/attachments/DOC-416467A1.txt",
	} {
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
}

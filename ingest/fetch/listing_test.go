package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testListing is a loopback listing: pages of two entries ({"next": "?page=n"} until the
// last), each entry naming one text file served beside it.
type testListing struct {
	files    map[string]string // path → body
	pages    [][]string        // page → the paths it lists
	failPage int               // 1-based page answered with an error (0: none)
	failText bool              // the failing page is answered 200 with a text that is not JSON
	mu       sync.Mutex
	asked    []string
}

func (l *testListing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.asked = append(l.asked, r.URL.RequestURI())
	l.mu.Unlock()
	if r.URL.Path == "/list" {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n < 1 || n > len(l.pages) {
			http.NotFound(w, r)
			return
		}
		if n == l.failPage && l.failText {
			fmt.Fprint(w, "maintenance until 6 pm")
			return
		}
		if n == l.failPage {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		page := map[string]any{"files": l.pages[n-1]}
		if n < len(l.pages) {
			page["next"] = "https://lists.example.gov/list?page=" + strconv.Itoa(n+1)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(page)
		return
	}
	body, ok := l.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, body)
}

func (l *testListing) source() Source {
	return Source{URL: "https://lists.example.gov/list?page=1", Kind: LISTING, Dest: "pub/listing.json", Listing: &Listing{
		Read: func(page []byte, pageURL string) ([]Source, string, error) {
			var p struct {
				Files []string `json:"files"`
				Next  string   `json:"next"`
			}
			if err := json.Unmarshal(page, &p); err != nil {
				return nil, "", err
			}
			if !strings.HasPrefix(pageURL, "https://lists.example.gov/") {
				return nil, "", fmt.Errorf("page read from %s, not from its official address", pageURL)
			}
			var out []Source
			for _, f := range p.Files {
				out = append(out, Source{URL: "https://lists.example.gov" + f, Kind: TEXT, Dest: "pub/files" + f})
			}
			return out, p.Next, nil
		},
	}}
}

func listed(t *testing.T, raw string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(raw, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(raw, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// threeFiles serves a listing of three files on two pages, to be fetched into a new raw
// directory with the options returned.
func threeFiles(t *testing.T) (*testListing, string, Options) {
	t.Helper()
	l := &testListing{
		files: map[string]string{"/a.txt": "first\n", "/b.txt": "second\n", "/c.txt": "third\n"},
		pages: [][]string{{"/a.txt", "/b.txt"}, {"/c.txt"}},
	}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, t.TempDir(), Options{Mirror: srv.URL, Client: srv.Client()}
}

func TestFetchListing(t *testing.T) {
	l, raw, opt := threeFiles(t)

	res, err := Fetch(context.Background(), raw, l.source(), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pub/files/a.txt", "pub/files/b.txt", "pub/files/c.txt", "pub/listing.json", "pub/listing_p2.json"}
	if got := listed(t, raw); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	if res.Status != StatusDownloaded || len(res.Files) != 3 || res.Path != filepath.Join(raw, "pub", "listing.json") {
		t.Errorf("result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(raw, "pub", "files", "c.txt")); string(b) != "third\n" {
		t.Errorf("c.txt holds %q", b)
	}

	// A second walk of the same listing changes nothing.
	stat := func() map[string]int64 {
		m := map[string]int64{}
		for _, f := range listed(t, raw) {
			fi, _ := os.Stat(filepath.Join(raw, f))
			m[f] = fi.ModTime().UnixNano()
		}
		return m
	}
	before := stat()
	res, err = Fetch(context.Background(), raw, l.source(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusUnchanged {
		t.Errorf("second walk: %s", res.Status)
	}
	for _, f := range res.Files {
		if f.Status != StatusUnchanged {
			t.Errorf("second walk: %s %s", f.Source.Dest, f.Status)
		}
	}
	if after := stat(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("second walk touched files: %v, before %v", after, before)
	}

	// The listing shrinks to one page: the second page's file goes, the files stay.
	l.pages = [][]string{{"/a.txt", "/b.txt"}}
	if _, err := Fetch(context.Background(), raw, l.source(), opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(raw, "pub", "listing_p2.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale second page is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(raw, "pub", "files", "c.txt")); err != nil {
		t.Errorf("a file downloaded before was removed: %v", err)
	}
}

// TestFetchListingErrors: a listing page that fails leaves every file as it was; a listed
// file that fails leaves that file as it was and the stored pages too (the next run walks the
// listing again), while the other files are downloaded.
func TestFetchListingErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(l *testListing)
		want    string
		written []string // files this walk adds
	}{
		{"page 2 fails", func(l *testListing) { l.failPage = 2 }, "page 2 of the listing", nil},
		{"page 2 is not JSON", func(l *testListing) { l.failPage, l.failText = 2, true }, "page 2 of the listing", nil},
		{"a listed file is missing", func(l *testListing) { delete(l.files, "/c.txt") }, "1 of the 4 files", []string{"pub/files/d.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, raw, opt := threeFiles(t)
			if _, err := Fetch(context.Background(), raw, l.source(), opt); err != nil {
				t.Fatal(err)
			}
			want := append(listed(t, raw), tc.written...)
			sort.Strings(want)
			page1, _ := os.ReadFile(filepath.Join(raw, "pub", "listing.json"))
			// The listing now names one file more, on its first page.
			l.files["/d.txt"] = "fourth\n"
			l.files["/c.txt"] = "third, corrected\n"
			l.pages[0] = append(l.pages[0], "/d.txt")
			tc.edit(l)
			_, err := Fetch(context.Background(), raw, l.source(), opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrRefused) {
				t.Fatalf("err %v, want %q and a refusal", err, tc.want)
			}
			if got := listed(t, raw); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("files %v, want %v", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(raw, "pub", "listing.json")); string(b) != string(page1) {
				t.Errorf("the stored first page changed: %s", b)
			}
			if b, _ := os.ReadFile(filepath.Join(raw, "pub", "files", "c.txt")); string(b) != "third\n" {
				t.Errorf("c.txt holds %q", b)
			}
		})
	}
}

func TestFetchListingReaderErrors(t *testing.T) {
	l := &testListing{files: map[string]string{"/a.txt": "first\n"}, pages: [][]string{{"/a.txt"}}}
	srv := httptest.NewServer(l)
	defer srv.Close()
	opt := Options{Mirror: srv.URL, Client: srv.Client()}
	for _, tc := range []struct {
		name string
		read func(page []byte, pageURL string) ([]Source, string, error)
		want string
	}{
		{"the reader fails", func([]byte, string) ([]Source, string, error) { return nil, "", errors.New("no documents field") }, "does not read as the listing: no documents field"},
		{"the listing does not advance", func(_ []byte, u string) ([]Source, string, error) { return nil, u, nil }, "does not advance"},
		{"two files, one destination", func([]byte, string) ([]Source, string, error) {
			return []Source{{URL: "https://lists.example.gov/a.txt", Kind: TEXT, Dest: "pub/x.txt"}, {URL: "https://lists.example.gov/b.txt", Kind: TEXT, Dest: "pub/x.txt"}}, "", nil
		}, "would both be stored"},
		{"a listing names a listing", func([]byte, string) ([]Source, string, error) {
			return []Source{{URL: "https://lists.example.gov/list?page=1", Kind: LISTING, Dest: "pub/y.json"}}, "", nil
		}, "names another listing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := t.TempDir()
			src := l.source()
			src.Listing = &Listing{Read: tc.read}
			if _, err := Fetch(context.Background(), raw, src, opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if got := listed(t, raw); len(got) != 0 {
				t.Errorf("files written: %v", got)
			}
		})
	}
	if _, err := Fetch(context.Background(), t.TempDir(), Source{URL: "https://lists.example.gov/list", Kind: LISTING, Dest: "pub/l.json"}, opt); err == nil || !strings.Contains(err.Error(), "page reader") {
		t.Errorf("a listing without reader: %v", err)
	}
}

package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a loopback server that answers every request with a small CSV and records
// what it was asked: the other host a hostile mirror redirects to.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.URL.RequestURI())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "DATE,VALUE\n2024-01-01,1\n")
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// TestRedirectsStayWithThePublisher: a mirror that redirects to another host (another
// loopback port) is refused before the other host is asked, for a plain download and for a
// paged walk whose key the redirect carries; a redirect on the same host is followed; a
// redirect from https to http is refused; nothing is stored from a refused redirect.
func TestRedirectsStayWithThePublisher(t *testing.T) {
	t.Run("a download redirected to another host", func(t *testing.T) {
		other := newRecorder(t)
		mirror := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		})
		raw := t.TempDir()
		src := Source{URL: "https://fred.stlouisfed.org/graph/fredgraph.csv?id=IPG3344S", Kind: CSV, Dest: "fred/IPG3344S.csv"}
		_, err := Fetch(context.Background(), raw, src, Options{Mirror: mirror.URL, Client: mirror.Client()})
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "another host") {
			t.Fatalf("error %v, want a refusal naming another host", err)
		}
		if seen := other.requests(); len(seen) > 0 {
			t.Errorf("the other host was asked %v", seen)
		}
		if names := dirEntries(t, filepath.Join(raw, "fred")); len(names) > 0 {
			t.Errorf("stored from the other host: %v", names)
		}
	})

	t.Run("a paged walk redirected to another host with its key", func(t *testing.T) {
		other := newRecorder(t)
		mirror := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		})
		raw := t.TempDir()
		_, err := FetchPages(context.Background(), raw, testPages(), testKey, Options{Mirror: mirror.URL})
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "another host") {
			t.Fatalf("error %v, want a refusal naming another host", err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the error shows the key: %v", err)
		}
		if seen := other.requests(); len(seen) > 0 {
			t.Errorf("the other host was asked %v (the key went with it)", seen)
		}
		if names := dirEntries(t, filepath.Join(raw, "eia", "api")); len(names) > 0 {
			t.Errorf("left in raw: %v", names)
		}
	})

	t.Run("a redirect on the same host", func(t *testing.T) {
		var srv *httptest.Server
		srv = serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/moved.csv" {
				http.Redirect(w, r, srv.URL+"/moved.csv", http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Content-Type", "text/csv")
			fmt.Fprint(w, "DATE,VALUE\n2024-01-01,1\n")
		})
		src := Source{URL: "https://fred.stlouisfed.org/graph/fredgraph.csv?id=IPG3344S", Kind: CSV, Dest: "x.csv"}
		res, err := Fetch(context.Background(), t.TempDir(), src, Options{Mirror: srv.URL, Client: srv.Client()})
		if err != nil || res.Status != StatusDownloaded {
			t.Fatalf("%+v %v", res, err)
		}
	})

	t.Run("a redirect from https to http", func(t *testing.T) {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://"+r.Host+"/plain.csv", http.StatusFound)
		}))
		t.Cleanup(srv.Close)
		src := Source{URL: "https://fred.stlouisfed.org/graph/fredgraph.csv?id=IPG3344S", Kind: CSV, Dest: "x.csv"}
		_, err := Fetch(context.Background(), t.TempDir(), src, Options{Mirror: srv.URL, Client: srv.Client()})
		if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "from https to http") {
			t.Fatalf("error %v, want a refusal of the downgrade", err)
		}
	})
}

// TestRedirectPolicy: which redirects a download of an official address follows.
func TestRedirectPolicy(t *testing.T) {
	cases := []struct {
		origin, prev, next string
		hops               int
		want               string // "" followed, else what the refusal says
	}{
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://www.eia.gov/b.xls", 1, ""},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://api.eia.gov/b.xls", 1, ""},
		{"http://www.eia.gov/a.xls", "http://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", 1, ""},
		{"https://cdn.misoenergy.org/a.pdf", "https://cdn.misoenergy.org/a.pdf", "https://www.misoenergy.org/a.pdf", 1, ""},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://www.pjm.com/a.xls", 1, "another host"},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://eia.gov.example.com/a.xls", 1, "another host"},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://noteia.gov/a.xls", 1, "another host"},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "http://www.eia.gov/a.xls", 1, "from https to http"},
		{"http://127.0.0.1:8099/a.xls", "http://127.0.0.1:8099/a.xls", "http://127.0.0.1:8099/b.xls", 1, ""},
		{"http://127.0.0.1:8099/a.xls", "http://127.0.0.1:8099/a.xls", "http://127.0.0.1:8100/b.xls", 1, "another host"},
		{"http://127.0.0.1:8099/a.xls", "http://127.0.0.1:8099/a.xls", "https://www.eia.gov/b.xls", 1, "another host"},
		{"https://www.eia.gov/a.xls", "https://www.eia.gov/a.xls", "https://www.eia.gov/b.xls", 11, "more than 10"},
	}
	for _, tc := range cases {
		parse := func(s string) *url.URL {
			u, err := url.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		err := checkRedirect(parse(tc.origin), parse(tc.prev), parse(tc.next), tc.hops)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s → %s: refused: %v", tc.origin, tc.next, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s → %s: %v, want a refusal saying %q", tc.origin, tc.next, err, tc.want)
		}
	}
}

// trickle sends size bytes of a CSV (Content-Length announced) in pieces of chunk bytes every
// every, until the client goes away.
func trickle(size, chunk int, every time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(http.StatusOK)
		line := []byte(strings.Repeat("1,2\n", chunk/4+1))[:chunk]
		for sent := 0; sent < size; sent += chunk {
			if _, err := w.Write(line[:min(chunk, size-sent)]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(every):
			}
		}
	}
}

// TestSlowDownloadsEnd: a server trickling its body too slowly is cut off after one window
// below the minimum throughput, and one fast enough but never done by the file's deadline is
// cut off at the deadline; each error names the URL and what was received, the destination
// is untouched and no temporary file is left. Before, only two minutes without a single
// byte ended a download.
func TestSlowDownloadsEnd(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		opt     Options
		within  time.Duration
		want    []string
	}{
		{"one byte at a time, below the minimum throughput", trickle(100000, 1, 20*time.Millisecond),
			Options{MinRate: 1000, RateWindow: 300 * time.Millisecond}, 3 * time.Second,
			[]string{"below the minimum of 1000 bytes per 300ms", "of the 100000 bytes announced received"}},
		{"fast enough, but past the deadline", trickle(10000000, 2000, 10*time.Millisecond),
			Options{Deadline: 500 * time.Millisecond, MinRate: 1, RateWindow: time.Hour}, 4 * time.Second,
			[]string{"not complete after 500ms", "of the 10000000 bytes announced received"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.handler)
			raw := t.TempDir()
			dest := filepath.Join(raw, "x.csv")
			if err := os.WriteFile(dest, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.opt.Mirror, tc.opt.Client = srv.URL, srv.Client()
			start := time.Now()
			_, err := Fetch(context.Background(), raw, Source{URL: urlCSV, Kind: CSV, Dest: "x.csv"}, tc.opt)
			took := time.Since(start)
			if err == nil || !errors.Is(err, ErrRefused) {
				t.Fatalf("after %v: error %v, want a refusal", took, err)
			}
			if took > tc.within {
				t.Errorf("ended after %v, want within %v", took, tc.within)
			}
			for _, w := range append(tc.want, srv.URL+"/opendata/sample.csv") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if b, _ := os.ReadFile(dest); string(b) != "old\n" {
				t.Errorf("destination changed to %q", b)
			}
			if names := dirEntries(t, raw); len(names) != 1 {
				t.Errorf("left in raw: %v", names)
			}
		})
	}
}

// TestPagedWalkBounds: a total that is negative, or more rows than the walk may read, stops
// the walk at the first page; a server giving fewer rows than it reports stops at the page
// cap; a walk that fails on a later page leaves the pages of the last walk as they were.
// Nothing of a failed walk is stored, and no temporary file is left.
func TestPagedWalkBounds(t *testing.T) {
	// total is the response.total each page reports; rowsPerPage the rows each holds.
	api := func(total string, rowsPerPage int, changeAt int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			tot := total
			if changeAt > 0 && offset >= changeAt {
				tot = "999"
			}
			rows := make([]string, rowsPerPage)
			for i := range rows {
				rows[i] = fmt.Sprintf(`{"period":"2022-01","row":"%d"}`, offset+i)
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"response":{"total":%q,"data":[%s]}}`, tot, strings.Join(rows, ","))
		}
	}
	cases := []struct {
		name     string
		handler  http.HandlerFunc
		maxPages int
		want     string
		asked    int // pages asked at most
	}{
		{"a negative total", api("-5", 10, 0), 0, "-5 rows in all, not a count of rows", 1},
		{"an absurd total", api("1000000000", 10, 0), 0, "more than 1000 pages of 10 rows", 1},
		{"fewer rows than reported, to the page cap", api("150", 1, 0), 20, "the walk stops at 20 pages", 20},
		{"the data changed on page 2", api("25", 10, 10), 0, "the data changed during the walk", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			asked := 0
			srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				asked++
				mu.Unlock()
				tc.handler(w, r)
			})
			raw := t.TempDir()
			p := testPages()
			p.MaxPages = tc.maxPages
			dir := filepath.Join(raw, "eia", "api")
			os.MkdirAll(dir, 0o755)
			before := map[string]string{"route_2022.json": `{"last":"walk"}`, "route_2022_10.json": `{"last":"walk","page":2}`}
			for name, body := range before {
				os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
			}
			res, err := FetchPages(context.Background(), raw, p, testKey, Options{Mirror: srv.URL})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was replaced") {
				t.Fatalf("error %v, want one saying %q and that nothing was replaced", err, tc.want)
			}
			if len(res) > 0 {
				t.Errorf("results of a failed walk: %+v", res)
			}
			if asked > tc.asked {
				t.Errorf("%d pages asked, want at most %d", asked, tc.asked)
			}
			names := dirEntries(t, dir)
			if len(names) != len(before) {
				t.Errorf("raw holds %v, want only the last walk's pages", names)
			}
			for name, body := range before {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != body {
					t.Errorf("%s changed to %q", name, b)
				}
			}
		})
	}
}

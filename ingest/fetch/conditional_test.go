package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// versioned is a loopback publisher of one file whose content and version change when the
// test publishes a new one. It answers conditional requests as http.ServeContent does (ETag,
// Last-Modified) when etag is set, by date only otherwise, and counts the bodies it sends.
type versioned struct {
	mu       sync.Mutex
	body     []byte
	etag     string
	modified time.Time
	requests int
	bodies   int
	lastReq  http.Header
}

func (v *versioned) publish(body []byte, etag string, modified time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.body, v.etag, v.modified = body, etag, modified
}

func (v *versioned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	v.requests++
	v.lastReq = r.Header.Clone()
	body, etag, modified := v.body, v.etag, v.modified
	v.mu.Unlock()
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	cw := &countingWriter{ResponseWriter: w}
	http.ServeContent(cw, r, "file.csv", modified, bytes.NewReader(body))
	if cw.wrote {
		v.mu.Lock()
		v.bodies++
		v.mu.Unlock()
	}
}

type countingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.wrote = true
	}
	return c.ResponseWriter.Write(p)
}

func (v *versioned) counts() (requests, bodies int, last http.Header) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.requests, v.bodies, v.lastReq
}

// TestConditionalFetch: a file fetched once is asked again with its validators; the server
// answers 304 and nothing is downloaded or replaced; a new version is downloaded and its new
// validators returned; validators are not sent for a destination that is not there.
func TestConditionalFetch(t *testing.T) {
	for _, tc := range []struct {
		name string
		etag bool
	}{{"etag", true}, {"last-modified only", false}} {
		t.Run(tc.name, func(t *testing.T) {
			pub := &versioned{}
			t0 := time.Date(2025, 1, 23, 12, 0, 0, 0, time.UTC)
			etag := func(s string) string {
				if tc.etag {
					return s
				}
				return ""
			}
			pub.publish([]byte("a,b\n1,2\n"), etag(`"v1"`), t0)
			srv := httptest.NewServer(pub)
			defer srv.Close()
			raw := t.TempDir()
			src := Source{URL: urlCSV, Kind: CSV, Dest: "x/sample.csv"}
			ctx := context.Background()

			first, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL, Validators: Validators{ETag: `"stale"`, LastModified: t0.Add(time.Hour).Format(http.TimeFormat)}})
			if err != nil || first.Status != StatusDownloaded {
				t.Fatalf("first fetch: %+v %v", first, err)
			}
			if _, _, h := pub.counts(); h.Get("If-None-Match") != "" || h.Get("If-Modified-Since") != "" {
				t.Fatalf("validators sent for a destination that is not there: %v", h)
			}
			if first.Validators.ETag != etag(`"v1"`) || !first.Validators.Modified().Equal(t0) {
				t.Fatalf("validators of the first download: %+v", first.Validators)
			}

			second, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL, Validators: first.Validators})
			if err != nil || second.Status != StatusNotModified || second.SHA256 != first.SHA256 || second.Validators != first.Validators {
				t.Fatalf("second fetch: %+v %v", second, err)
			}
			req, bodies, h := pub.counts()
			if req != 2 || bodies != 1 {
				t.Fatalf("requests %d, bodies sent %d: want 2 and 1 (the second answered 304)", req, bodies)
			}
			if tc.etag && h.Get("If-None-Match") != `"v1"` {
				t.Fatalf("If-None-Match not sent: %v", h)
			}
			if h.Get("If-Modified-Since") != t0.Format(http.TimeFormat) {
				t.Fatalf("If-Modified-Since not sent: %v", h)
			}

			pub.publish([]byte("a,b\n1,2\n3,4\n"), etag(`"v2"`), t0.Add(24*time.Hour))
			third, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL, Validators: second.Validators})
			if err != nil || third.Status != StatusDownloaded || third.SHA256 == first.SHA256 {
				t.Fatalf("third fetch: %+v %v", third, err)
			}
			if third.Validators.ETag != etag(`"v2"`) || !third.Validators.Modified().Equal(t0.Add(24*time.Hour)) {
				t.Fatalf("validators of the new version: %+v", third.Validators)
			}
			b, _ := os.ReadFile(filepath.Join(raw, "x", "sample.csv"))
			if string(b) != "a,b\n1,2\n3,4\n" {
				t.Fatalf("destination holds %q", b)
			}
		})
	}
}

// TestPublishedDateSkipsRequest: a file named with the date a listing gives its version is
// downloaded once, takes that date, and is not asked for again until the date changes.
func TestPublishedDateSkipsRequest(t *testing.T) {
	pub := &versioned{}
	pub.publish([]byte("a,b\n1,2\n"), "", time.Time{})
	srv := httptest.NewServer(pub)
	defer srv.Close()
	raw := t.TempDir()
	day := time.Date(2025, 5, 18, 5, 0, 0, 0, time.UTC)
	src := Source{URL: urlCSV, Kind: CSV, Dest: "x/sample.csv", Published: day}
	ctx := context.Background()
	if r, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL}); err != nil || r.Status != StatusDownloaded {
		t.Fatalf("first: %+v %v", r, err)
	}
	fi, _ := os.Stat(filepath.Join(raw, "x", "sample.csv"))
	if !fi.ModTime().Equal(day) {
		t.Fatalf("modification time %v, want the listing's date %v", fi.ModTime(), day)
	}
	if r, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL}); err != nil || r.Status != StatusNotModified || r.SHA256 == "" {
		t.Fatalf("second: %+v %v", r, err)
	}
	if n, _, _ := pub.counts(); n != 1 {
		t.Fatalf("%d requests: the second fetch asked the server again", n)
	}
	pub.publish([]byte("a,b\n1,2\n3,4\n"), "", time.Time{})
	src.Published = day.Add(24 * time.Hour)
	if r, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL}); err != nil || r.Status != StatusDownloaded {
		t.Fatalf("republished: %+v %v", r, err)
	}
	// A refused download leaves the destination's date as it was, so it is asked again.
	src.Published = day.Add(48 * time.Hour)
	pub.publish([]byte("<html><body>maintenance</body></html>"), "", time.Time{})
	if _, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL}); err == nil {
		t.Fatal("an HTML page was accepted")
	}
	if fi, _ := os.Stat(filepath.Join(raw, "x", "sample.csv")); fi.ModTime().Equal(src.Published) {
		t.Fatal("a refused download marked the destination as the new version")
	}
}

// TestNotPublished: a dated address answered 404, 410 or with an HTML page holds no file;
// a server error or a wrong kind of file is a failure.
func TestNotPublished(t *testing.T) {
	cases := []struct {
		name   string
		handle http.HandlerFunc
		want   bool
	}{
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, true},
		{"410", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) }, true},
		{"html landing page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<!DOCTYPE html><html>EIA-860M</html>"))
		}, true},
		{"503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }, false},
		{"not a workbook", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("plain text")) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handle)
			defer srv.Close()
			_, err := Fetch(context.Background(), t.TempDir(), Source{URL: urlGenerator, Kind: XLSX, Dest: "g.xlsx"}, Options{Mirror: srv.URL})
			if err == nil {
				t.Fatal("no error")
			}
			if got := NotPublished(err); got != tc.want {
				t.Fatalf("NotPublished(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
}

package fetch

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

// Official addresses used as Source.URL; tests rewrite them to the local
// test server with Options.Mirror.
const (
	urlGenerator = "https://www.eia.gov/electricity/data/eia860m/archive/xls/may_generator2016.xlsx"
	urlHenryHub  = "https://www.eia.gov/dnav/ng/hist_xls/RNGWHHDd.xls"
	urlEIA860Zip = "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip"
	urlCSV       = "https://www.eia.gov/opendata/sample.csv"
)

// rawFile reads a real source file from $CITEQ_RAW (default
// /work/shared/data/raw) and skips the test when it is not there.
func rawFile(t *testing.T, rel string) []byte {
	t.Helper()
	root := os.Getenv("CITEQ_RAW")
	if root == "" {
		root = "/work/shared/data/raw"
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		if os.Getenv("CITEQ_REQUIRE_RAW") == "1" { // testenv.RequireRawEnv (testenv imports this package)
			t.Fatalf("raw file %s not found under %s (CITEQ_REQUIRE_RAW=1)", rel, root)
		}
		t.Skipf("raw file %s not found under %s (set CITEQ_RAW)", rel, root)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// zipOf builds a zip archive holding the given name, content pairs.
func zipOf(t testing.TB, pairs ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(pairs); i += 2 {
		w, err := zw.Create(pairs[i].(string))
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		switch v := pairs[i+1].(type) {
		case string:
			data = []byte(v)
		case []byte:
			data = v
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tinyXLSX is a minimal zip that passes the xlsx check.
func tinyXLSX(t testing.TB) []byte {
	return zipOf(t, "[Content_Types].xml", `<?xml version="1.0"?><Types/>`, "xl/workbook.xml", "<workbook/>")
}

// tinyXLS is an OLE2 header followed by padding.
func tinyXLS() []byte {
	return append(append([]byte{}, oleMagic...), make([]byte, 1024)...)
}

// server serves bodies by URL path with an octet-stream content type and
// records the request URIs it saw.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
	ua   []string
}

func newServer(t *testing.T, bodies map[string][]byte) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.URL.RequestURI())
		s.ua = append(s.ua, r.UserAgent())
		s.mu.Unlock()
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func urlPath(t testing.TB, raw string) string {
	t.Helper()
	u, err := resolveURL(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u, "https://www.eia.gov")
}

// dirEntries lists the names in dir (nil when it does not exist).
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestFetchRealFiles(t *testing.T) {
	tests := []struct {
		name   string
		src    Source
		served func(t *testing.T) (body, want []byte) // body served, bytes expected on disk
	}{
		{
			name: "xlsx",
			src:  Source{URL: urlGenerator, Kind: XLSX, Dest: "eia/eia860m/may_generator2016.xlsx"},
			served: func(t *testing.T) ([]byte, []byte) {
				b := rawFile(t, "eia/eia860m/may_generator2016.xlsx")
				return b, b
			},
		},
		{
			name: "xls",
			src:  Source{URL: urlHenryHub, Kind: XLS, Dest: "eia/ng_prices/RNGWHHDd.xls"},
			served: func(t *testing.T) ([]byte, []byte) {
				b := rawFile(t, "eia/ng_prices/RNGWHHDd.xls")
				return b, b
			},
		},
		{
			name: "zip member",
			src:  Source{URL: urlEIA860Zip, Kind: XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
			served: func(t *testing.T) ([]byte, []byte) {
				b := rawFile(t, "eia/eia860/LayoutY2024.xlsx")
				return zipOf(t, "readme.txt", "EIA-860 2024", "LayoutY2024.xlsx", b, "3_1_Generator_Y2024.xlsx", tinyXLSX(t)), b
			},
		},
		{
			name: "zip member in folder",
			src:  Source{URL: urlEIA860Zip, Kind: XLSX, ZipMember: "eia8602024/LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
			served: func(t *testing.T) ([]byte, []byte) {
				b := rawFile(t, "eia/eia860/LayoutY2024.xlsx")
				return zipOf(t, "eia8602024/", "", "eia8602024/LayoutY2024.xlsx", b), b
			},
		},
		{
			name: "whole zip",
			src:  Source{URL: urlEIA860Zip, Kind: ZIP, Dest: "eia/eia860/eia8602024.zip"},
			served: func(t *testing.T) ([]byte, []byte) {
				z := zipOf(t, "LayoutY2024.xlsx", rawFile(t, "eia/eia860/LayoutY2024.xlsx"))
				return z, z
			},
		},
		{
			name: "csv",
			src:  Source{URL: urlCSV, Kind: CSV, Dest: "eia/sample.csv"},
			served: func(t *testing.T) ([]byte, []byte) {
				b := []byte("\xEF\xBB\xBFplant,état,mw\n1,Québec,12.5\n")
				return b, b
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, want := tt.served(t)
			srv := newServer(t, map[string][]byte{urlPath(t, tt.src.URL): body})
			raw := t.TempDir()
			opt := Options{Mirror: srv.URL, Client: srv.Client()}
			dest := filepath.Join(raw, filepath.FromSlash(tt.src.Dest))

			res, err := Fetch(context.Background(), raw, tt.src, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusDownloaded || res.Path != dest || res.Bytes != int64(len(want)) || res.SHA256 != sum(want) {
				t.Fatalf("first fetch: got %+v, want downloaded %s, %d bytes, sha256 %s", res, dest, len(want), sum(want))
			}
			got, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if sum(got) != sum(want) {
				t.Fatalf("file on disk has sha256 %s, served file has %s", sum(got), sum(want))
			}
			fi1, _ := os.Stat(dest)
			if fi1.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", fi1.Mode().Perm())
			}

			res, err = Fetch(context.Background(), raw, tt.src, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != StatusUnchanged || res.SHA256 != sum(want) || res.Bytes != int64(len(want)) {
				t.Fatalf("second fetch: got %+v, want unchanged", res)
			}
			fi2, _ := os.Stat(dest)
			if !os.SameFile(fi1, fi2) || !fi1.ModTime().Equal(fi2.ModTime()) {
				t.Errorf("second fetch replaced the unchanged file")
			}
			if names := dirEntries(t, filepath.Dir(dest)); !slices.Equal(names, []string{filepath.Base(dest)}) {
				t.Errorf("destination directory holds %q, want only %q", names, filepath.Base(dest))
			}
			if len(srv.seen) != 2 || srv.seen[0] != urlPath(t, tt.src.URL) {
				t.Errorf("server saw %q, want two requests for %q", srv.seen, urlPath(t, tt.src.URL))
			}
			if srv.ua[0] != DefaultUserAgent {
				t.Errorf("User-Agent %q, want %q", srv.ua[0], DefaultUserAgent)
			}
		})
	}
}

func TestFetchReplacesChangedFile(t *testing.T) {
	old, updated := tinyXLS(), append(tinyXLS(), 1, 2, 3)
	srv := newServer(t, map[string][]byte{urlPath(t, urlHenryHub): updated})
	raw := t.TempDir()
	src := Source{URL: urlHenryHub, Kind: XLS, Dest: "eia/ng_prices/RNGWHHDd.xls"}
	dest := filepath.Join(raw, "eia", "ng_prices", "RNGWHHDd.xls")
	os.MkdirAll(filepath.Dir(dest), 0o755)
	if err := os.WriteFile(dest, old, 0o444); err != nil {
		t.Fatal(err)
	}
	res, err := Fetch(context.Background(), raw, src, Options{Mirror: srv.URL, Client: srv.Client(), UserAgent: "citeq-test"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(dest)
	if res.Status != StatusDownloaded || !bytes.Equal(got, updated) || res.SHA256 != sum(updated) {
		t.Fatalf("got %+v and %d bytes on disk, want the updated file downloaded", res, len(got))
	}
	if srv.ua[0] != "citeq-test" {
		t.Errorf("User-Agent %q, want citeq-test", srv.ua[0])
	}
}

func TestMirror(t *testing.T) {
	tests := []struct {
		url, mirror, want, wantErr string
	}{
		{urlGenerator, "", urlGenerator, ""},
		{urlGenerator, "http://127.0.0.1:8099", "http://127.0.0.1:8099/electricity/data/eia860m/archive/xls/may_generator2016.xlsx", ""},
		{urlGenerator, "http://127.0.0.1:8099/", "http://127.0.0.1:8099/electricity/data/eia860m/archive/xls/may_generator2016.xlsx", ""},
		{"https://www.eia.gov/dnav/ng/hist/rngwhhdd.htm?f=D&x=a%20b", "http://127.0.0.1:8099", "http://127.0.0.1:8099/dnav/ng/hist/rngwhhdd.htm?f=D&x=a%20b", ""},
		{"https://www.eia.gov/a/b.xls", "https://mirror.example/eia/", "https://mirror.example/eia/a/b.xls", ""},
		{"https://www.eia.gov/a%2Fb.xls", "http://m:1/p", "http://m:1/p/a%2Fb.xls", ""},
		{urlGenerator, "127.0.0.1:8099", "", "bad mirror"},
		{urlGenerator, "ftp://mirror", "", "bad mirror"},
		{"www.eia.gov/x.xls", "", "", "bad URL"},
		{"ftp://ftp.fcc.gov/pub/Bureaus/International/databases/IBFS.zip", "http://127.0.0.1:1", "http://127.0.0.1:1/pub/Bureaus/International/databases/IBFS.zip", ""},
		{"ftp://ftp.fcc.gov/pub/IBFS.zip", "", "ftp://ftp.fcc.gov/pub/IBFS.zip", ""},
		{"sftp://www.eia.gov/x.xls", "http://127.0.0.1:1", "", "bad URL"},
	}
	for _, tt := range tests {
		got, err := resolveURL(tt.url, tt.mirror)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("resolveURL(%q, %q) = %q, %v; want error %q", tt.url, tt.mirror, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("resolveURL(%q, %q) = %q, %v; want %q", tt.url, tt.mirror, got, err, tt.want)
		}
	}

	// End to end: the path and query of the official URL reach the mirror.
	srv := newServer(t, map[string][]byte{"/dnav/ng/hist_xls/RNGWHHDd.xls": tinyXLS()})
	src := Source{URL: urlHenryHub + "?download=1&t=2", Kind: XLS, Dest: "x.xls"}
	if _, err := Fetch(context.Background(), t.TempDir(), src, Options{Mirror: srv.URL, Client: srv.Client()}); err != nil {
		t.Fatal(err)
	}
	if want := "/dnav/ng/hist_xls/RNGWHHDd.xls?download=1&t=2"; len(srv.seen) != 1 || srv.seen[0] != want {
		t.Errorf("mirror saw %q, want %q", srv.seen, want)
	}
}

func TestProgress(t *testing.T) {
	body := append(tinyXLS(), make([]byte, 3000)...)
	srv := newServer(t, map[string][]byte{urlPath(t, urlHenryHub): body})
	var out bytes.Buffer
	src := Source{URL: urlHenryHub, Kind: XLS, Dest: "eia/ng_prices/RNGWHHDd.xls"}
	if _, err := Fetch(context.Background(), t.TempDir(), src, Options{Mirror: srv.URL, Client: srv.Client(), Progress: &out}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"eia/ng_prices/RNGWHHDd.xls", "100%", humanBytes(int64(len(body))) + " / " + humanBytes(int64(len(body))), "\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("progress output %q lacks %q", s, want)
		}
	}

	// Unknown total (chunked): bytes only.
	srv2 := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write(tinyXLS()[:600])
		w.(http.Flusher).Flush()
		w.Write(tinyXLS()[600:])
	})
	out.Reset()
	if _, err := Fetch(context.Background(), t.TempDir(), src, Options{Mirror: srv2.URL, Client: srv2.Client(), Progress: &out}); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, humanBytes(int64(len(tinyXLS())))) || strings.Contains(s, "%") {
		t.Errorf("progress output without total = %q", s)
	}
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 3443412: "3.3 MiB", 512 << 20: "512.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestRefusals checks that every kind of bad response is refused with a
// clear message, leaves an existing destination untouched, creates none
// when there was none, and leaves no temporary file behind.
func TestRefusals(t *testing.T) {
	htmlPage := "\n  <!DOCTYPE html>\n<html><head><title>Page not found</title></head><body>Sorry</body></html>\n"
	octet := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		}
	}
	xlsx := Source{URL: urlGenerator, Kind: XLSX, Dest: "eia/eia860m/may_generator2016.xlsx"}
	xls := Source{URL: urlHenryHub, Kind: XLS, Dest: "eia/ng_prices/RNGWHHDd.xls"}
	csv := Source{URL: urlCSV, Kind: CSV, Dest: "eia/sample.csv"}
	zipSrc := Source{URL: urlEIA860Zip, Kind: ZIP, Dest: "eia/eia860/eia8602024.zip"}
	member := Source{URL: urlEIA860Zip, Kind: XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"}

	tests := []struct {
		name     string
		src      Source
		maxBytes int64
		handler  http.HandlerFunc
		want     []string
	}{
		{
			name:    "HTML page with 200",
			src:     xlsx,
			handler: octet([]byte(htmlPage)),
			want:    []string{"refused http://127.0.0.1", "/may_generator2016.xlsx: the server returned an HTML page, not an xlsx file (an error or login page?); check the URL or try again later"},
		},
		{
			name:    "HTML page lower case for csv",
			src:     csv,
			handler: octet([]byte("\xEF\xBB\xBF\r\n<!-- maintenance --><html lang=en>\n<p>Down for maintenance, back soon.</p>")),
			want:    []string{"HTML page, not a csv file"},
		},
		{
			name: "text/html content type",
			src:  xlsx,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.Write(tinyXLSX(t))
			},
			want: []string{"HTML page (Content-Type text/html; charset=utf-8), not an xlsx file", "check the URL"},
		},
		{
			name:    "xls kind but zip magic",
			src:     xls,
			handler: octet(tinyXLSX(t)),
			want:    []string{"the body is a zip archive (or xlsx file), not an xls file", "set Source.Kind to xlsx"},
		},
		{
			name:    "xlsx kind but OLE magic",
			src:     xlsx,
			handler: octet(tinyXLS()),
			want:    []string{"not an xlsx file", "set Source.Kind to xls"},
		},
		{
			name:    "xlsx kind but PDF",
			src:     xlsx,
			handler: octet([]byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")),
			want:    []string{"the body is a PDF document, not an xlsx file"},
		},
		{
			name:    "xlsx kind but plain zip",
			src:     xlsx,
			handler: octet(zipOf(t, "data/generators.csv", "a,b\n")),
			want:    []string{"not an xlsx workbook", `"data/generators.csv"`, "set Source.ZipMember"},
		},
		{
			name:    "zip magic but damaged",
			src:     zipSrc,
			handler: octet(append([]byte("PK\x03\x04"), bytes.Repeat([]byte{0x55}, 200)...)),
			want:    []string{"starts like a zip archive but cannot be read as one", "truncated or damaged"},
		},
		{
			name:    "xls header only",
			src:     xls,
			handler: octet(oleMagic),
			want:    []string{"only 8 bytes"},
		},
		{
			name:    "csv kind but binary",
			src:     csv,
			handler: octet(tinyXLS()),
			want:    []string{"the body is an OLE2 compound file", "not a csv file"},
		},
		{
			name:    "csv not UTF-8",
			src:     csv,
			handler: octet([]byte("plant,state\n1,Qu\xE9bec\n")),
			want:    []string{"not valid UTF-8 (byte 0xe9 at offset 16)"},
		},
		{
			name:    "csv with NUL",
			src:     csv,
			handler: octet([]byte("p\x00l\x00a\x00n\x00t\x00,\x00")),
			want:    []string{"not a csv file"},
		},
		{
			name:    "csv without separators",
			src:     csv,
			handler: octet([]byte("just one word")),
			want:    []string{"no comma and no line break"},
		},
		{
			name:    "empty body",
			src:     xlsx,
			handler: octet(nil),
			want:    []string{"the body is empty"},
		},
		{
			name:    "404",
			src:     xlsx,
			handler: http.NotFound,
			want:    []string{"refused http://127.0.0.1", "/electricity/data/eia860m/archive/xls/may_generator2016.xlsx: the server answered 404 Not Found", "check the URL"},
		},
		{
			name:    "503",
			src:     xlsx,
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) },
			want:    []string{"503 Service Unavailable", "try again later"},
		},
		{
			name:    "403",
			src:     xls,
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) },
			want:    []string{"403 Forbidden", "denied access"},
		},
		{
			name: "truncated with Content-Length",
			src:  xlsx,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Header().Set("Content-Length", "4096")
				w.Write(tinyXLSX(t)[:100])
			},
			want: []string{"truncated: received 100 of the 4096 bytes announced by Content-Length", "try again later"},
		},
		{
			name: "truncated connection",
			src:  xls,
			handler: func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					panic(err)
				}
				defer conn.Close()
				buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.ms-excel\r\nContent-Length: 351232\r\n\r\n")
				buf.Write(tinyXLS()[:700])
				buf.Flush()
			},
			want: []string{"received 700 of the 351232 bytes"},
		},
		{
			name:     "over cap with Content-Length",
			src:      xls,
			maxBytes: 1024,
			handler:  octet(append(tinyXLS(), make([]byte, 4096)...)),
			want:     []string{"announced 5.0 KiB (Content-Length 5128), above the size cap of 1.0 KiB", "Options.MaxBytes"},
		},
		{
			name:     "over cap chunked",
			src:      xls,
			maxBytes: 1024,
			handler: func(w http.ResponseWriter, r *http.Request) {
				body := append(tinyXLS(), make([]byte, 4096)...)
				for len(body) > 0 {
					n := min(len(body), 512)
					if _, err := w.Write(body[:n]); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					body = body[n:]
				}
			},
			want: []string{"larger than the size cap of 1.0 KiB"},
		},
		{
			name:    "missing zip member",
			src:     member,
			handler: octet(zipOf(t, "eia8602024/", "", "eia8602024/LayoutY2023.xlsx", tinyXLSX(t), "eia8602024/2___Plant_Y2024.xlsx", tinyXLSX(t))),
			want:    []string{`the zip archive has no member "LayoutY2024.xlsx"; it contains "eia8602024/LayoutY2023.xlsx", "eia8602024/2___Plant_Y2024.xlsx"`, "check Source.ZipMember"},
		},
		{
			name:    "zip member of wrong kind",
			src:     member,
			handler: octet(zipOf(t, "LayoutY2024.xlsx", tinyXLS())),
			want:    []string{`zip member "LayoutY2024.xlsx" is an OLE2 compound file`, "not an xlsx file", "check Source.ZipMember"},
		},
		{
			name:    "zip member is HTML",
			src:     member,
			handler: octet(zipOf(t, "LayoutY2024.xlsx", "<!doctype HTML><title>x</title>")),
			want:    []string{`zip member "LayoutY2024.xlsx" is an HTML page, not an xlsx file`},
		},
		{
			name:    "archive is HTML page",
			src:     member,
			handler: octet([]byte(htmlPage)),
			want:    []string{"the server returned an HTML page, not a zip archive"},
		},
		{
			name:    "archive is not a zip",
			src:     member,
			handler: octet(tinyXLS()),
			want:    []string{"not a zip archive", "Source.ZipMember is set, so it must give a zip archive"},
		},
		{
			name:     "zip member over cap",
			src:      member,
			maxBytes: 2048,
			handler:  octet(zipOf(t, "LayoutY2024.xlsx", append(tinyXLSX(t), make([]byte, 8192)...))),
			want:     []string{`zip member "LayoutY2024.xlsx" is 8.`, "above the size cap of 2.0 KiB"},
		},
	}
	for _, tt := range tests {
		for _, existing := range []bool{true, false} {
			name := tt.name + "/absent"
			if existing {
				name = tt.name + "/existing"
			}
			t.Run(name, func(t *testing.T) {
				srv := serve(t, tt.handler)
				raw := t.TempDir()
				dest := filepath.Join(raw, filepath.FromSlash(tt.src.Dest))
				old := []byte("previous good copy")
				if existing {
					os.MkdirAll(filepath.Dir(dest), 0o755)
					if err := os.WriteFile(dest, old, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				var progress bytes.Buffer
				opt := Options{Mirror: srv.URL, Client: srv.Client(), MaxBytes: tt.maxBytes, Progress: &progress}
				res, err := Fetch(context.Background(), raw, tt.src, opt)
				if err == nil {
					t.Fatalf("Fetch succeeded with %+v, want a refusal", res)
				}
				if !errors.Is(err, ErrRefused) {
					t.Errorf("error %v does not match ErrRefused", err)
				}
				var re *RefusedError
				if !errors.As(err, &re) || !strings.HasPrefix(re.URL, srv.URL+"/") {
					t.Errorf("error %v: want a *RefusedError for a URL on %s", err, srv.URL)
				}
				msg := err.Error()
				if prefix := "fetch " + tt.src.Dest + ": refused " + srv.URL + "/"; !strings.HasPrefix(msg, prefix) {
					t.Errorf("error %q does not start with %q", msg, prefix)
				}
				for _, w := range tt.want {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q lacks %q", msg, w)
					}
				}
				if existing {
					got, err := os.ReadFile(dest)
					if err != nil || !bytes.Equal(got, old) {
						t.Errorf("destination changed: %q, %v", got, err)
					}
					if names := dirEntries(t, filepath.Dir(dest)); !slices.Equal(names, []string{filepath.Base(dest)}) {
						t.Errorf("destination directory holds %q, want only %q", names, filepath.Base(dest))
					}
				} else if names := dirEntries(t, filepath.Dir(dest)); len(names) != 0 {
					t.Errorf("destination directory holds %q, want nothing", names)
				}
			})
		}
	}
}

// shortBody is a transport whose responses announce more bytes than they
// carry yet end with a clean io.EOF, as a broken proxy might.
type shortBody struct{}

func (shortBody) RoundTrip(r *http.Request) (*http.Response, error) {
	body := tinyXLS()
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/vnd.ms-excel"}},
		ContentLength: int64(len(body)) + 10,
		Body:          io.NopCloser(bytes.NewReader(body)),
		Request:       r,
	}, nil
}

func TestTruncatedCleanEOF(t *testing.T) {
	raw := t.TempDir()
	src := Source{URL: urlHenryHub, Kind: XLS, Dest: "ng/RNGWHHDd.xls"}
	_, err := Fetch(context.Background(), raw, src, Options{Client: &http.Client{Transport: shortBody{}}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), fmt.Sprintf("received %d of the %d bytes", len(tinyXLS()), len(tinyXLS())+10)) {
		t.Fatalf("got %v, want a truncation refusal", err)
	}
	if names := dirEntries(t, filepath.Join(raw, "ng")); len(names) != 0 {
		t.Errorf("left %q behind", names)
	}
}

func TestBadSources(t *testing.T) {
	srv := newServer(t, nil)
	tests := []struct {
		name string
		src  Source
		opt  Options
		want string
	}{
		{"no URL", Source{Kind: XLS, Dest: "a.xls"}, Options{}, "no URL"},
		{"unknown kind", Source{URL: urlHenryHub, Kind: "docx", Dest: "a.docx"}, Options{}, `unknown kind "docx"`},
		{"no dest", Source{URL: urlHenryHub, Kind: XLS}, Options{}, "no destination"},
		{"dest escapes", Source{URL: urlHenryHub, Kind: XLS, Dest: "../a.xls"}, Options{}, "inside the raw directory"},
		{"dest absolute", Source{URL: urlHenryHub, Kind: XLS, Dest: "/tmp/a.xls"}, Options{}, "inside the raw directory"},
		{"dest dot", Source{URL: urlHenryHub, Kind: XLS, Dest: "."}, Options{}, "inside the raw directory"},
		{"bad mirror", Source{URL: urlHenryHub, Kind: XLS, Dest: "a.xls"}, Options{Mirror: "localhost"}, "bad mirror"},
		{"sftp URL", Source{URL: "sftp://ftp.eia.gov/a.xls", Kind: XLS, Dest: "a.xls"}, Options{}, "bad URL"},
		{"dest is a directory", Source{URL: urlHenryHub, Kind: XLS, Dest: "dir"}, Options{Mirror: srv.URL, Client: srv.Client()}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := t.TempDir()
			os.Mkdir(filepath.Join(raw, "dir"), 0o755)
			_, err := Fetch(context.Background(), raw, tt.src, tt.opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fetch ") {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if len(srv.seen) != 0 {
				t.Errorf("a request was sent: %q", srv.seen)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(tinyXLS())
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	raw := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	src := Source{URL: urlHenryHub, Kind: XLS, Dest: "ng/a.xls"}
	_, err := Fetch(ctx, raw, src, Options{Mirror: srv.URL, Client: srv.Client()})
	if err == nil || errors.Is(err, ErrRefused) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
	if !strings.Contains(err.Error(), "fetch ng/a.xls: download "+srv.URL) {
		t.Errorf("error %q lacks context", err)
	}
	if names := dirEntries(t, filepath.Join(raw, "ng")); len(names) != 0 {
		t.Errorf("left %q behind", names)
	}
}

// TestGarbageResponses throws odd bodies at every kind; Fetch must return
// (an error or a result) without panicking and without leaving temp files.
func TestGarbageResponses(t *testing.T) {
	bodies := [][]byte{
		nil, {0}, []byte("PK"), []byte("PK\x03\x04"), oleMagic, []byte("<"), []byte("<!--"), []byte("<!-- x"), []byte("<?xml"),
		[]byte("\xEF\xBB"), []byte("a,\xE2\x82"), []byte("\xFF\xFE,\x00"), zipOf(t), zipOf(t, "LayoutY2024.xlsx", ""),
		zipOf(t, "LayoutY2024.xlsx/", ""), []byte("PK\x05\x06" + strings.Repeat("\x00", 18)),
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		w.Write(bodies[i])
	})
	for i := range bodies {
		for _, kind := range []Kind{XLSX, XLS, CSV, ZIP, JSON, PDF, TEXT, ANSI} {
			for _, member := range []string{"", "LayoutY2024.xlsx"} {
				raw := t.TempDir()
				src := Source{URL: urlEIA860Zip + "?i=" + strconv.Itoa(i), Kind: kind, ZipMember: member, Dest: "d/f"}
				res, err := Fetch(context.Background(), raw, src, Options{Mirror: srv.URL, Client: srv.Client()})
				names := dirEntries(t, filepath.Join(raw, "d"))
				if err != nil && len(names) != 0 || err == nil && (len(names) != 1 || res.Status != StatusDownloaded) {
					t.Errorf("body %d kind %s member %q: %+v, %v, dir %q", i, kind, member, res, err, names)
				}
			}
		}
	}
}

func TestLooksHTML(t *testing.T) {
	for s, want := range map[string]bool{
		"<!DOCTYPE html>":                   true,
		"  \r\n\t<!doctype HTML PUBLIC":     true,
		"<HTML>":                            true,
		"<html":                             true,
		"\xEF\xBB\xBF<html lang=en>":        true,
		"<?xml version='1.0'?>\n<html xmln": true,
		"<!-- a --> <!-- b -->\n<head>":     true,
		"<body onload=x>":                   true,
		"<htmlx>":                           false,
		"<!-- unterminated <html>":          false,
		"plant,<html>\n":                    false,
		"PK\x03\x04<html>":                  false,
		"":                                  false,
		"<?xml version='1.0'?><Types/>":     false,
	} {
		if got := looksHTML([]byte(s)); got != want {
			t.Errorf("looksHTML(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCheckTextSplitRunes(t *testing.T) {
	text := strings.Repeat("Québec,€,𝄞\n", 20000) // larger than one read buffer
	for _, r := range []io.Reader{strings.NewReader(text), iotest.OneByteReader(strings.NewReader(text)), iotest.HalfReader(strings.NewReader(text))} {
		if problem, err := checkText(r, true); problem != "" || err != nil {
			t.Fatalf("checkText = %q, %v", problem, err)
		}
	}
	if problem, _ := checkText(iotest.OneByteReader(strings.NewReader("a,b\xE2\x82")), true); !strings.Contains(problem, "not valid UTF-8") {
		t.Errorf("truncated rune at end: %q", problem)
	}
	if _, err := checkText(iotest.TimeoutReader(strings.NewReader("a,b")), true); !errors.Is(err, iotest.ErrTimeout) {
		t.Errorf("TimeoutReader: got %v, want the read error", err)
	}
	if _, err := checkText(iotest.ErrReader(io.ErrClosedPipe), true); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("read error not returned: %v", err)
	}
}

// TestTextKinds checks the JSON, PDF and text kinds on bodies written to disk.
func TestTextKinds(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		body string
		want string // "" accepts; otherwise part of the refusal
	}{
		{"json object", JSON, `{"response":{"data":[]}}`, ""},
		{"json rows", JSON, "[[\"NAME\",\"time\"],\n[\"x\",\"2024-01\"]]\n", ""},
		{"json trailing data", JSON, `{"a":1} x`, "not a JSON document: data after the first JSON value"},
		{"json cut short", JSON, `{"a":[1,2`, "not a JSON document"},
		{"json is html", JSON, "<!DOCTYPE html><html></html>", "HTML page, not a JSON document"},
		{"json is xlsx", JSON, "PK\x03\x04rest", "not a JSON document"},
		{"pdf", PDF, "%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj", ""},
		{"pdf is text", PDF, "Results of the auction", "text starting \"Results of the auction\", not a PDF document"},
		{"text pipes", TEXT, "SAT-LOA-20250101-00001|^|Example LLC|^|\n", ""},
		{"text is pdf", TEXT, "%PDF-1.4\x00\x01", "not a text file"},
		{"ansi records", ANSI, "1|S2129|SATAMD2022010700003|Caf\xe9 \x93Sat\x94|^|\r\n", ""},
		{"ansi is utf-8", ANSI, "1|Café|^|\r\n", ""},
		{"ansi with a NUL", ANSI, "1|S2129|^|\r\n\x00", "contains a NUL byte at offset 12"},
		{"ansi is a zip", ANSI, "PK\x03\x04rest", "not a text file (Windows-1252)"},
		{"text refuses windows-1252", TEXT, "1|Caf\xe9|^|\r\n", "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "body")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			err := checkFile(path, tt.kind, "http://x/", "")
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want a refusal containing %q", err, tt.want)
			}
		})
	}
}

// FuzzCheckFile makes sure no body makes the checks panic.
func FuzzCheckFile(f *testing.F) {
	f.Add([]byte("PK\x03\x04"))
	f.Add(oleMagic)
	f.Add([]byte("<!-- <html"))
	f.Add([]byte("a,b\n\xE2"))
	f.Add(zipOf(f, "[Content_Types].xml", "x", "a.csv", "a,b\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		path := filepath.Join(t.TempDir(), "body")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []Kind{XLSX, XLS, CSV, ZIP, JSON, PDF, TEXT, ANSI} {
			if err := checkFile(path, kind, "http://x/", ""); err != nil && !errors.Is(err, ErrRefused) {
				t.Errorf("kind %s: unexpected error %v", kind, err)
			}
		}
		_ = describe(body)
	})
}

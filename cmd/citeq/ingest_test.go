package main

import (
	"archive/zip"
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// currentCopies stand for an operator's current file, which ingest --fetch downloads under a
// name without date: the latest dated copy among the raw files.
var currentCopies = map[string]string{
	"iso/caiso/PublicQueueReport.xlsx":           "iso/caiso/publicqueuereport-08032026.xlsx",
	"iso/nyiso/NYISO-Interconnection-Queue.xlsx": "iso/nyiso/NYISO-Interconnection-Queue_2025-01.xlsx",
}

// knownFile is where the test finds the file an adapter downloads to dest: the shared raw
// file (or the latest dated copy of an operator's current file), or, for a publisher whose
// file is not here, the fixture written in its layout.
func knownFile(t *testing.T, raw, dest string) string {
	t.Helper()
	if c, ok := currentCopies[dest]; ok {
		dest = c
	}
	p := filepath.Join(raw, filepath.FromSlash(dest))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	f := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", filepath.FromSlash(dest))
	if _, err := os.Stat(f); err != nil {
		t.Fatalf("%s is neither a raw file nor a fixture under testdata/fixtures", dest)
	}
	return f
}

// agencyMirror serves the shared raw files (or, where the publisher's file is not here, its
// fixture) at the paths of their official URLs, zipping the members of zip downloads on the
// fly. htmlFor names paths answered with an HTML error page.
func agencyMirror(t *testing.T, raw string, htmlFor string) *httptest.Server {
	t.Helper()
	// A zip download may hold several members that different adapters read: the mirror's
	// archive holds every one of them.
	type member struct {
		name string
		body []byte
	}
	zips := map[string][]member{}
	routes := map[string]func(http.ResponseWriter){}
	serve := func(route string, body []byte) {
		routes[route] = func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		}
	}
	for _, a := range adapters.All() {
		for _, src := range a.Known() {
			u, err := url.Parse(src.URL)
			if err != nil {
				t.Fatal(err)
			}
			body, err := os.ReadFile(knownFile(t, raw, src.Dest))
			if err != nil {
				t.Fatal(err)
			}
			if src.ZipMember == "" {
				serve(routeOf(u), body)
				continue
			}
			have := false
			for _, m := range zips[routeOf(u)] {
				have = have || m.name == src.ZipMember
			}
			if !have {
				zips[routeOf(u)] = append(zips[routeOf(u)], member{src.ZipMember, body})
			}
		}
	}
	for route, members := range zips {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, m := range members {
			w, _ := zw.Create(m.name)
			w.Write(m.body)
		}
		zw.Close()
		serve(route, b.Bytes())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if htmlFor != "" && strings.HasSuffix(r.URL.Path, htmlFor) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<!DOCTYPE html><html><body>Service unavailable</body></html>"))
			return
		}
		if h, ok := routes[routeOf(r.URL)]; ok {
			h(w)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// routeOf is a URL's path with its query, if any (API downloads differ by query alone).
func routeOf(u *url.URL) string {
	if u.RawQuery == "" {
		return u.Path
	}
	return u.Path + "?" + u.RawQuery
}

func TestIngestFetch(t *testing.T) {
	raw := testenv.Raw(t)
	srv := agencyMirror(t, raw, "")
	dir := t.TempDir()
	rawDir, data := filepath.Join(dir, "raw"), filepath.Join(dir, "var")
	var out, progress bytes.Buffer
	if err := runIngest([]string{"--fetch", "--mirror", srv.URL, "--raw", rawDir, "--data", data}, &out, &progress); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Every known file arrived byte for byte.
	for _, a := range adapters.All() {
		for _, src := range a.Known() {
			got, _, err := snapshots.HashFile(filepath.Join(rawDir, src.Dest))
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := snapshots.HashFile(knownFile(t, raw, src.Dest))
			if got != want {
				t.Errorf("%s: sha256 %s, want %s", src.Dest, got, want)
			}
		}
	}
	if !strings.Contains(progress.String(), "100%") {
		t.Errorf("no progress bar: %q", progress.String())
	}
	text := out.String()
	for _, want := range []string{"power.capacity", "natural_gas.prices", "promoted"} {
		if !strings.Contains(text, want) {
			t.Errorf("closing table lacks %q:\n%s", want, text)
		}
	}
	// A second run downloads nothing new and changes nothing.
	out.Reset()
	if err := runIngest([]string{"--fetch", "--mirror", srv.URL, "--raw", rawDir, "--data", data}, &out, &progress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "unchanged") || !strings.Contains(out.String(), "nothing changed") {
		t.Errorf("second run:\n%s", out.String())
	}
}

func TestIngestFetchRefusesHTML(t *testing.T) {
	raw := testenv.Raw(t)
	srv := agencyMirror(t, raw, "RNGWHHDd.xls")
	dir := t.TempDir()
	var out, progress bytes.Buffer
	err := runIngest([]string{"--fetch", "--mirror", srv.URL, "--raw", filepath.Join(dir, "raw"), "--data", filepath.Join(dir, "var")}, &out, &progress)
	if err == nil || !strings.Contains(out.String(), "HTML") {
		t.Fatalf("err %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "raw", "eia", "ng_prices", "RNGWHHDd.xls")); err == nil {
		t.Error("the refused download was written")
	}
}

// TestIngestCleansAndReportsHonestly: the build directories and temporary files a killed
// ingest leaves are removed by the next one, and an ingest that fails never claims that
// nothing changed.
func TestIngestCleansAndReportsHonestly(t *testing.T) {
	raw := testenv.Raw(t)
	data := testenv.CopyDir(t, testenv.Data(t))
	stale := []string{
		filepath.Join(data, "snapshots", "power.capacity", "2016-05-31", ".build-1234", "facts.parquet"),
		filepath.Join(data, "snapshots", "natural_gas.prices", "2024-07-10", ".build-99", "manifest.json"),
		filepath.Join(data, ".tmp-555"),
	}
	for _, p := range stale {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := runIngest([]string{"--raw", raw, "--data", data}, &out, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, p := range stale {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there after the next ingest", p)
		}
	}
	if !strings.Contains(out.String(), ".build-1234, left by an interrupted ingest") || !strings.Contains(out.String(), "nothing changed") {
		t.Errorf("output:\n%s", out.String())
	}

	cases := []struct {
		name string
		args []string
	}{
		{"missing raw directory", []string{"--raw", filepath.Join(t.TempDir(), "absent"), "--data", data}},
		{"unreadable data directory", []string{"--raw", raw, "--data", "/dev/null/var"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := runIngest(tc.args, &out, &out)
			if err == nil {
				t.Fatalf("no error:\n%s", out.String())
			}
			if strings.Contains(out.String(), "nothing changed") {
				t.Errorf("a failed ingest says nothing changed before its error (%v):\n%s", err, out.String())
			}
		})
	}
}

// TestIngestFetchPagesTheEIAAPI: with the EIA API key in a file named by --api-key-file,
// ingest --fetch walks the API's pages into the raw directory and ingests them; without a
// key it says the request is skipped and what to set, and asks nothing. The key appears in
// no output and no stored file.
func TestIngestFetchPagesTheEIAAPI(t *testing.T) {
	raw := testenv.Raw(t)
	const key = "cmdTestKey0123456789"
	agency := agencyMirror(t, raw, "")
	api := testenv.NewEIAAPI(t, "testdata/fixtures/eia/eia923_api/eia923_2022.json", key, 10)
	target, _ := url.Parse(agency.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == testenv.EIAFacilityFuelRoute {
			api.ServeHTTP(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "eia.key")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CITEQ_EIA_API_KEY", "")

	var out, progress bytes.Buffer
	rawDir := filepath.Join(dir, "raw")
	if err := runIngest([]string{"--fetch", "--mirror", srv.URL, "--raw", rawDir, "--data", filepath.Join(dir, "nokey")}, &out, &progress); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "eia/eia923_api/eia923_2022.json") || !strings.Contains(out.String(), "SKIPPED") || !strings.Contains(out.String(), "CITEQ_EIA_API_KEY") || len(api.Asked()) > 0 {
		t.Errorf("without a key:\n%s", out.String())
	}

	out.Reset()
	if err := runIngest([]string{"--fetch", "--mirror", srv.URL, "--api-key-file", "CITEQ_EIA_API_KEY=" + keyFile, "--raw", rawDir, "--data", filepath.Join(dir, "var")}, &out, &progress); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if got := strings.Join(api.Asked(), " "); got != "0+5000 10+5000 20+5000 30+5000" {
		t.Errorf("pages asked: %s", got)
	}
	for _, want := range []string{"eia923_2022_10.json", "eia923_2022_30.json", "power.generation"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String()+progress.String(), key) {
		t.Error("the key is printed")
	}
	entries, err := os.ReadDir(filepath.Join(rawDir, "eia", "eia923_api"))
	if err != nil || len(entries) != 4 {
		t.Fatalf("%d page files (%v)", len(entries), err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(rawDir, "eia", "eia923_api", e.Name()))
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s holds the key", e.Name())
		}
	}
}

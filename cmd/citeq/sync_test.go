package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/webhooks"
)

// publisher is a loopback mirror of the publishers' hosts: each path serves the version of a
// file published last, answering conditional requests (ETag, If-Modified-Since) as a
// publisher's web server does, or fails with a status when told to. It counts what it sends.
type publisher struct {
	mu    sync.Mutex
	files map[string]*published // by path
}

type published struct {
	body     []byte
	etag     string
	modified time.Time
	fail     int // a status to answer with instead of the file (0: none)
	gets     int // requests
	bodies   int // requests answered with the body
	notMod   int // requests answered 304
}

func (p *publisher) publish(path string, body []byte, modified time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sum := sha256.Sum256(body)
	f := p.files[path]
	if f == nil {
		f = &published{}
		p.files[path] = f
	}
	f.body, f.etag, f.modified, f.fail = body, `"`+hex.EncodeToString(sum[:8])+`"`, modified, 0
}

func (p *publisher) failWith(path string, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[path].fail = status
}

func (p *publisher) counts(path string) published {
	p.mu.Lock()
	defer p.mu.Unlock()
	return *p.files[path]
}

func (p *publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	f := p.files[r.URL.Path]
	if f == nil {
		p.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	f.gets++
	if f.fail != 0 {
		status := f.fail
		p.mu.Unlock()
		w.WriteHeader(status)
		return
	}
	body, etag, modified := f.body, f.etag, f.modified
	p.mu.Unlock()
	w.Header().Set("ETag", etag)
	rec := &statusRecorder{ResponseWriter: w}
	http.ServeContent(rec, r, filepath.Base(r.URL.Path), modified, bytes.NewReader(body))
	p.mu.Lock()
	switch rec.status {
	case http.StatusNotModified:
		f.notMod++
	case http.StatusOK:
		f.bodies++
	}
	p.mu.Unlock()
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

const (
	caisoPath = "/PublishedDocuments/PublicQueueReport.xlsx"
	nyisoPath = "/documents/20142/1407078/NYISO-Interconnection-Queue.xlsx"
)

// promotedEvents records signed snapshot.promoted deliveries.
type promotedEvents struct {
	mu     sync.Mutex
	secret string
	events []map[string]any
	bad    int
}

func (e *promotedEvents) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !webhooks.Verify(e.secret, r.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute) {
		e.bad++
		w.WriteHeader(400)
		return
	}
	var ev map[string]any
	json.Unmarshal(body, &ev)
	e.events = append(e.events, ev)
	w.WriteHeader(200)
}

func (e *promotedEvents) asOf(dataPoint, asOf string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.events {
		if ev["type"] == "snapshot.promoted" && ev["data_point"] == dataPoint && ev["as_of"] == asOf {
			return true
		}
	}
	return false
}

// capabilityEntry is a capability's entry in /v1/capabilities (nil when not listed).
func capabilityEntry(t *testing.T, addr, id string) map[string]any {
	t.Helper()
	_, body := call(t, "GET", "http://"+addr+"/v1/capabilities", "", "")
	var doc struct {
		Capabilities []map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("capabilities: %v\n%s", err, body)
	}
	for _, c := range doc.Capabilities {
		if c["capability"] == id {
			return c
		}
	}
	return nil
}

func waitFor(t *testing.T, what string, timeout time.Duration, srv *server, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; server log:\n%s", what, srv.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSyncPublishesNewVintage is the sync loop end to end, with nothing run by hand: citeq
// serve --sync checks CAISO's and NYISO's queue exports on a loopback mirror every second,
// ingests and promotes the first versions, asks again with their validators (the mirror
// answers 304, nothing is downloaded), picks up the new vintage CAISO publishes (a new file
// at the same address), ingests and promotes it, and a subscriber receives its signed
// snapshot.promoted; meanwhile NYISO's mirror fails, NYISO turns stale (its answers over the
// latest snapshot say so) and CAISO goes on. Restarted, the loop resumes with the validators
// it kept: its first request is answered 304.
func TestSyncPublishesNewVintage(t *testing.T) {
	raw := testenv.Raw(t)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(raw, rel))
		if err != nil {
			testenv.SkipRaw(t, "raw file %s: %v", rel, err)
		}
		return b
	}
	caisoJan, caisoAug := read("iso/caiso/publicqueuereport-01232025.xlsx"), read("iso/caiso/publicqueuereport-08112025.xlsx")
	nyisoJan := read("iso/nyiso/NYISO-Interconnection-Queue_2025-01.xlsx")

	pub := &publisher{files: map[string]*published{}}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	pub.publish(caisoPath, caisoJan, t0)
	pub.publish(nyisoPath, nyisoJan, t0)
	mirror := httptest.NewServer(pub)
	defer mirror.Close()
	hooks := &promotedEvents{}
	hookSrv := httptest.NewServer(hooks)
	defer hookSrv.Close()

	data, rawDir := t.TempDir(), t.TempDir()
	opKey := filepath.Join(t.TempDir(), "operator.key")
	args := []string{"--data", data, "--raw", rawDir, "--sync", "--sync-only", "caiso_queue,nyiso_queue", "--sync-every", "1s",
		"--mirror", mirror.URL, "--allow-insecure-callbacks", "--operator-key", opKey}
	srv := startServer(t, args...)

	// The first check of each source downloads its file, and ingest promotes it.
	waitFor(t, "the first CAISO and NYISO snapshots", 3*time.Minute, srv, func() bool {
		c, n := capabilityEntry(t, srv.addr, "power.interconnection_queue_caiso"), capabilityEntry(t, srv.addr, "power.interconnection_queue_nyiso")
		return c != nil && n != nil && c["as_of_latest"] == "2025-01-23" && n["as_of_latest"] == "2025-01-31"
	})
	// Asked again with the validators of what it holds, the mirror answers 304: nothing is
	// downloaded, nothing new is promoted.
	waitFor(t, "a conditional request answered 304", time.Minute, srv, func() bool { return pub.counts(caisoPath).notMod >= 2 })
	if got := pub.counts(caisoPath); got.bodies != 1 {
		t.Fatalf("CAISO's file was sent %d times before it changed, want once", got.bodies)
	}
	fresh := capabilityEntry(t, srv.addr, "power.interconnection_queue_caiso")["freshness"].(map[string]any)
	if fresh["stale"] != false || fresh["last_checked"] == nil || fresh["next_check"] == nil {
		t.Fatalf("freshness of a source checked fine: %v", fresh)
	}
	src := fresh["sources"].([]any)[0].(map[string]any)
	if src["source_id"] != "caiso_queue" || src["checked"] != true || src["last_changed"] != t0.UTC().Format(time.RFC3339) {
		t.Fatalf("CAISO source freshness: %v", src)
	}

	// A subscriber of the CAISO queue, with the operator key the server made.
	keyBytes, err := os.ReadFile(opKey)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(keyBytes))
	st, body := call(t, "POST", "http://"+srv.addr+"/v1/webhooks/subscriptions", key,
		fmt.Sprintf(`{"data_point":"power.interconnection_queue_caiso","callback_url":%q}`, hookSrv.URL+"/caiso"))
	var sub struct {
		Secret string `json:"signing_secret"`
	}
	json.Unmarshal(body, &sub)
	if st != 200 || sub.Secret == "" {
		t.Fatalf("subscribe: %d %s", st, body)
	}
	hooks.mu.Lock()
	hooks.secret = sub.Secret
	hooks.mu.Unlock()

	// CAISO publishes a new vintage at the same address; NYISO's host starts failing.
	pub.publish(caisoPath, caisoAug, time.Now().Truncate(time.Second))
	pub.failWith(nyisoPath, http.StatusServiceUnavailable)
	waitFor(t, "the snapshot.promoted event of CAISO's new vintage", 3*time.Minute, srv, func() bool {
		return hooks.asOf("power.interconnection_queue_caiso", "2025-08-11")
	})
	hooks.mu.Lock()
	if hooks.bad > 0 {
		t.Errorf("%d deliveries with a bad signature", hooks.bad)
	}
	hooks.mu.Unlock()
	c := capabilityEntry(t, srv.addr, "power.interconnection_queue_caiso")
	if c["as_of_latest"] != "2025-08-11" || len(c["as_of_available"].([]any)) != 2 {
		t.Fatalf("CAISO after the new vintage: %v", c)
	}

	// NYISO turns stale after three failed checks; CAISO is not.
	waitFor(t, "NYISO marked stale", time.Minute, srv, func() bool {
		return capabilityEntry(t, srv.addr, "power.interconnection_queue_nyiso")["freshness"].(map[string]any)["stale"] == true
	})
	nf := capabilityEntry(t, srv.addr, "power.interconnection_queue_nyiso")["freshness"].(map[string]any)
	reasons := fmt.Sprint(nf["stale_reasons"])
	if !strings.Contains(reasons, "nyiso_queue: ") || !strings.Contains(reasons, "checks in a row failed") || !strings.Contains(reasons, "503") {
		t.Fatalf("NYISO stale reasons: %v", nf)
	}
	if cf := capabilityEntry(t, srv.addr, "power.interconnection_queue_caiso")["freshness"].(map[string]any); cf["stale"] != false {
		t.Fatalf("CAISO is stale: %v", cf)
	}
	// An answer over NYISO's latest snapshot says it may be out of date; one pinned to its
	// date, and CAISO's, do not.
	_, latest := call(t, "GET", "http://"+srv.addr+"/v1/power/interconnection-queue-nyiso/query", key, "")
	_, pinned := call(t, "GET", "http://"+srv.addr+"/v1/power/interconnection-queue-nyiso/query?as_of=2025-01-31", key, "")
	_, caiso := call(t, "GET", "http://"+srv.addr+"/v1/power/interconnection-queue-caiso/query", key, "")
	if !strings.Contains(string(latest), `"code":"stale"`) || !strings.Contains(string(latest), "power.interconnection_queue_nyiso may be out of date") {
		t.Fatalf("NYISO latest answer has no stale note: %s", latest)
	}
	if strings.Contains(string(pinned), `"code":"stale"`) || strings.Contains(string(caiso), `"code":"stale"`) {
		t.Fatalf("a stale note where none belongs:\npinned %s\ncaiso %s", pinned, caiso)
	}
	_, metrics := call(t, "GET", "http://"+srv.addr+"/metrics", "", "")
	for _, want := range []string{`citeq_sync_last_success_timestamp_seconds{source="caiso_queue"}`,
		`citeq_sync_check_failures_total{reason="http_5xx",source="nyiso_queue"}`,
		`citeq_capability_stale{capability="power.interconnection_queue_nyiso"} 1`,
		`citeq_capability_stale{capability="power.interconnection_queue_caiso"} 0`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	// Restarted, the loop resumes with what it kept: CAISO is asked with its validators and
	// answered 304, nothing is downloaded again.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.cmd.Wait()
	before := pub.counts(caisoPath)
	srv2 := startServer(t, args...)
	waitFor(t, "the first check after the restart", time.Minute, srv2, func() bool { return pub.counts(caisoPath).gets > before.gets })
	time.Sleep(500 * time.Millisecond)
	after := pub.counts(caisoPath)
	if after.bodies != before.bodies || after.notMod <= before.notMod {
		t.Fatalf("after the restart CAISO was sent its file %d more times and answered 304 %d more times; want 0 and at least 1",
			after.bodies-before.bodies, after.notMod-before.notMod)
	}
	if nf := capabilityEntry(t, srv2.addr, "power.interconnection_queue_nyiso")["freshness"].(map[string]any); nf["stale"] != true {
		t.Fatalf("NYISO's failures were forgotten by the restart: %v", nf)
	}
}

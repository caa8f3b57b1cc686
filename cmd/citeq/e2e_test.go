package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/webhooks"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// binary builds the citeq command once per test run.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "citeq-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "citeq")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// server is a running `citeq serve` process.
type server struct {
	cmd  *exec.Cmd
	addr string
	log  *bytes.Buffer
	// out is what it printed on stdout.
	out *syncBuffer
}

// syncBuffer is a buffer a process writes to while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	s := &server{addr: freePort(t), log: &bytes.Buffer{}, out: &syncBuffer{}}
	s.cmd = exec.Command(binary(t), append([]string{"serve", "--addr", s.addr}, args...)...)
	s.cmd.Stderr = s.log
	s.cmd.Stdout = s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	for i := 0; i < 200; i++ {
		if resp, err := http.Get("http://" + s.addr + "/v1/health"); err == nil {
			resp.Body.Close()
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server did not start:\n%s", s.log)
	return nil
}

func run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(binary(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("citeq %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// createKey runs citeq keys create and returns the printed secret.
func createKey(t *testing.T, args ...string) string {
	t.Helper()
	out := run(t, append([]string{"keys", "create"}, args...)...)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "cq_") {
			return line
		}
	}
	t.Fatalf("no key in:\n%s", out)
	return ""
}

func call(t *testing.T, method, url, key, body string) (int, []byte) {
	t.Helper()
	resp, b := testenv.Do(t, method, url, key, body)
	return resp.StatusCode, b
}

// hookReceiver records signed deliveries by event id; until ok is set it answers 503.
type hookReceiver struct {
	mu       sync.Mutex
	ok       bool
	secrets  map[string]string // path → signing secret
	requests int
	events   map[string]map[string]bool // path → event ids
	bad      int
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests++
	if !h.ok {
		w.WriteHeader(503)
		return
	}
	if !webhooks.Verify(h.secrets[r.URL.Path], r.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute) {
		h.bad++
		w.WriteHeader(400)
		return
	}
	if h.events[r.URL.Path] == nil {
		h.events[r.URL.Path] = map[string]bool{}
	}
	h.events[r.URL.Path][r.Header.Get(webhooks.EventIDHeader)] = true
	w.WriteHeader(200)
}

// juneRaw makes a raw directory holding a re-dated copy of the May 2016 inventory (June 2016)
// with the reference files, so that an ingest promotes a new power.capacity snapshot.
func juneRaw(t *testing.T) string {
	t.Helper()
	raw := testenv.Raw(t)
	dir := t.TempDir()
	gen := filepath.Join(dir, "eia", "eia860m")
	os.MkdirAll(gen, 0o755)
	testenv.RebuildWorkbook(t, filepath.Join(raw, "eia", "eia860m", "may_generator2016.xlsx"), filepath.Join(gen, "june_generator2016.xlsx"), testenv.Retitle("May 2016", "June 2016"))
	for _, rel := range []string{"eia/eia860/LayoutY2024.xlsx", "eia/eia861/Balancing_Authority_2018.xlsx"} {
		b, _ := os.ReadFile(filepath.Join(raw, rel))
		os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	}
	return dir
}

// TestPromotionDeliveredAcrossCrash: citeq ingest promotes a snapshot against a running
// server's store; the server's deliveries fail at first; the server is killed with SIGKILL
// while they are pending, started again, and every subscriber then receives its signed event.
func TestPromotionDeliveredAcrossCrash(t *testing.T) {
	for name, dsn := range testenv.StateDSNs(t) {
		t.Run(name, func(t *testing.T) { promotionAcrossCrash(t, dsn(t)) })
	}
}

func promotionAcrossCrash(t *testing.T, dsn string) {
	data := testenv.CopyDir(t, testenv.Data(t))
	june := juneRaw(t)
	rc := &hookReceiver{secrets: map[string]string{}, events: map[string]map[string]bool{}}
	hooks := httptest.NewServer(rc)
	defer hooks.Close()

	stateArgs := []string{"--data", data}
	if dsn != "" {
		stateArgs = append(stateArgs, "--state", dsn)
	}
	srv := startServer(t, append(stateArgs, "--allow-insecure-callbacks")...)
	key := createKey(t, append(stateArgs, "--plan", "monthly")...)
	paths := []string{"/a", "/b", "/c"}
	for _, p := range paths {
		st, body := call(t, "POST", "http://"+srv.addr+"/v1/webhooks/subscriptions", key,
			fmt.Sprintf(`{"data_point":"power.capacity","callback_url":%q}`, hooks.URL+p))
		var sub struct {
			Secret string `json:"signing_secret"`
		}
		json.Unmarshal(body, &sub)
		if st != 200 || sub.Secret == "" {
			t.Fatalf("subscribe: %d %s", st, body)
		}
		rc.secrets[p] = sub.Secret
	}

	out := run(t, append([]string{"ingest", "--raw", june}, stateArgs...)...)
	if !strings.Contains(out, "3 webhook deliveries") {
		t.Fatalf("ingest output:\n%s", out)
	}
	// Wait for the first (failing) attempts, then kill the server with deliveries pending.
	deadline := time.Now().Add(20 * time.Second)
	for {
		rc.mu.Lock()
		n := rc.requests
		rc.mu.Unlock()
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery attempt:\n%s", srv.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.cmd.Process.Signal(syscall.SIGKILL)
	srv.cmd.Wait()
	rc.mu.Lock()
	rc.ok = true
	rc.mu.Unlock()

	srv2 := startServer(t, append(stateArgs, "--allow-insecure-callbacks")...)
	deadline = time.Now().Add(60 * time.Second)
	for {
		rc.mu.Lock()
		done := 0
		for _, p := range paths {
			if len(rc.events[p]) == 1 {
				done++
			}
		}
		bad := rc.bad
		rc.mu.Unlock()
		if bad > 0 {
			t.Fatalf("%d deliveries with a bad signature", bad)
		}
		if done == len(paths) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d subscribers received the event:\n%s", done, len(paths), srv2.log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The new snapshot is served by the restarted server.
	if st, body := call(t, "GET", "http://"+srv2.addr+"/v1/power/capacity/query?as_of=2016-06-30", key, ""); st != 200 {
		t.Errorf("query the promoted snapshot: %d %s", st, body)
	}
	// The subscriber sees its deliveries as delivered (a receiver may hold the event before its
	// delivery is recorded: the worker records it once the answer is read).
	deadline = time.Now().Add(30 * time.Second)
	for {
		_, body := call(t, "GET", "http://"+srv2.addr+"/v1/webhooks/deliveries", key, "")
		if strings.Count(string(body), `"delivered"`) == len(paths) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries: %s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestQuotaAcrossServerProcesses: two citeq serve processes sharing one PostgreSQL grant
// exactly 25 queries to 100 simultaneous requests with a fresh free key.
func TestQuotaAcrossServerProcesses(t *testing.T) {
	dsn := testenv.FreshPostgres(t)
	data := testenv.CopyDir(t, testenv.Data(t))
	a := startServer(t, "--data", data, "--state", dsn)
	b := startServer(t, "--data", data, "--state", dsn)
	key := createKey(t, "--state", dsn, "--plan", "free")
	var mu sync.Mutex
	var wg sync.WaitGroup
	codes := map[int]int{}
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			addr := a.addr
			if i%2 == 1 {
				addr = b.addr
			}
			st, _ := call(t, "POST", "http://"+addr+"/v1/power/capacity/query", key, `{}`)
			mu.Lock()
			codes[st]++
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	if codes[200] != 25 || codes[402] != 75 {
		t.Fatalf("status counts %v", codes)
	}
	out := run(t, "keys", "list", "--state", dsn)
	if !strings.Contains(out, " 25 ") {
		t.Errorf("keys list does not show 25 used:\n%s", out)
	}
}

package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// limitedServer serves MCP alone under l over loopback.
func limitedServer(t *testing.T, l mcp.Limits) string {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.NewWithLimits(svc, nil, nil, l))
	t.Cleanup(srv.Close)
	return srv.URL
}

// rpc posts a raw JSON-RPC body, with the session when given, and returns the answer.
func rpc(t *testing.T, url, session, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// initialize opens a session with the 2025-03-26 protocol (the last one with batches).
func initialize(t *testing.T, url string) string {
	t.Helper()
	resp, b := rpc(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	rpc(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

// rpcErr is a JSON-RPC error answer.
type rpcErr struct {
	JSONRPC string `json:"jsonrpc"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func describeBatch(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"describe_power_capacity_v1","arguments":{}}}`, i+2)
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestTransportErrorsAreJSONRPC: every transport error is a JSON-RPC error in
// application/json, with the HTTP status that fits it.
func TestTransportErrorsAreJSONRPC(t *testing.T) {
	l := mcp.DefaultLimits()
	url := limitedServer(t, l)
	sid := initialize(t, url)
	cases := []struct {
		name, session, body string
		status, code        int
	}{
		{"malformed JSON", sid, `{"jsonrpc":"2.0",`, 400, -32700},
		{"not an object", sid, `42`, 400, -32700},
		{"oversized body", sid, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", int(l.MaxBody)) + `"}}`, 413, -32600},
		{"batch over the limit", sid, describeBatch(l.MaxBatch + 1), 400, -32600},
		{"the batch attack", sid, describeBatch(5000), 400, -32600},
		{"unknown method", sid, `{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`, 400, -32601},
		{"unknown session", "no-such-session", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, 404, -32001},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := rpc(t, url, tc.session, tc.body)
			var e rpcErr
			if err := json.Unmarshal(b, &e); err != nil || e.JSONRPC != "2.0" {
				t.Fatalf("status %d, %s: not a JSON-RPC error: %q", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			if resp.StatusCode != tc.status || e.Error.Code != tc.code || resp.Header.Get("Content-Type") != "application/json" || e.Error.Message == "" {
				t.Errorf("status %d, %s, code %d, want %d and %d: %s", resp.StatusCode, resp.Header.Get("Content-Type"), e.Error.Code, tc.status, tc.code, b)
			}
		})
	}
	// A batch within the limit is answered.
	resp, b := rpc(t, url, sid, describeBatch(l.MaxBatch))
	if resp.StatusCode != 200 || strings.Count(string(b), `"result"`) != l.MaxBatch {
		t.Fatalf("batch of %d: status %d, %d results", l.MaxBatch, resp.StatusCode, strings.Count(string(b), `"result"`))
	}
}

// TestSessionsAreCappedAndExpire: initialize beyond MaxSessions is refused; an idle session
// is closed after SessionIdle, with its goroutines, and then answered as unknown.
func TestSessionsAreCappedAndExpire(t *testing.T) {
	l := mcp.DefaultLimits()
	l.MaxSessions, l.SessionIdle = 20, 500*time.Millisecond
	url := limitedServer(t, l)
	before := runtime.NumGoroutine()
	var ids []string
	for i := 0; i < l.MaxSessions; i++ {
		ids = append(ids, initialize(t, url))
	}
	resp, b := rpc(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var e rpcErr
	_ = json.Unmarshal(b, &e)
	if resp.StatusCode != 503 || e.Error.Code != -32000 || !strings.Contains(e.Error.Message, "maximum of 20") {
		t.Fatalf("session over the cap: %d %s", resp.StatusCode, b)
	}
	// Every session expires once idle (nothing may touch it meanwhile: a request would keep
	// it alive); the goroutines they held end.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before the sessions, %d after they should have expired", before, runtime.NumGoroutine())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if resp, b := rpc(t, url, ids[0], `{"jsonrpc":"2.0","id":5,"method":"ping"}`); resp.StatusCode != 404 {
		t.Fatalf("an expired session answers %d: %s", resp.StatusCode, b)
	}
	initialize(t, url) // room again
}

// TestBatchAttackMemory: 40 clients each post the 610 KB batch of 5,000 describe calls and
// 16 clients a batch at the limit whose answers they never read; the heap stays bounded.
func TestBatchAttackMemory(t *testing.T) {
	l := mcp.DefaultLimits()
	url := limitedServer(t, l)
	sid := initialize(t, url)
	attack, atLimit := describeBatch(5000), describeBatch(l.MaxBatch)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := rpc(t, url, sid, attack)
			if resp.StatusCode != 400 {
				t.Errorf("attack batch: status %d", resp.StatusCode)
			}
		}()
	}
	var unread []*http.Response
	var mu sync.Mutex
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(atLimit))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				mu.Lock()
				unread = append(unread, resp)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	<-sampled
	for _, r := range unread {
		r.Body.Close()
	}
	growth := int64(peak) - int64(base)
	t.Logf("heap before %d MB, peak during the attack %d MB (growth %d MB)", base>>20, peak>>20, growth>>20)
	if growth > 300<<20 {
		t.Errorf("the heap grew by %d MB under the batch attack", growth>>20)
	}
}

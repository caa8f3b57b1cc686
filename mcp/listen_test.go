package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citeq/citeq/mcp"
)

// listen opens a 2026-07-28 subscriptions/listen stream and returns its response, open.
func listen(t *testing.T, ctx context.Context, url string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"listen:1","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestListenStreamsAreCapped: an open subscriptions/listen stream holds no place among the
// POSTs answered at once, and one beyond MaxListens is refused as busy.
func TestListenStreamsAreCapped(t *testing.T) {
	l := mcp.DefaultLimits()
	l.MaxListens, l.MaxInFlight = 2, 1
	url := limitedServer(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < l.MaxListens; i++ {
		resp := listen(t, ctx, url)
		defer resp.Body.Close()
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if resp.StatusCode != 200 || err != nil {
			t.Fatalf("listen %d: %d %q %v", i+1, resp.StatusCode, line, err)
		}
	}
	// The one place for a POST is free: a request is answered at once.
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, b := rpc(t, url, "", `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		if resp.StatusCode != 400 && resp.StatusCode != 200 || strings.Contains(string(b), "maximum of 1 MCP requests") {
			t.Errorf("a request beside the listens: %d %s", resp.StatusCode, b)
		}
	}()
	select {
	case <-done:
	case <-time.After(4 * time.Second):
		t.Fatal("a request waited behind the open listens")
	}
	resp := listen(t, ctx, url)
	defer resp.Body.Close()
	var e rpcErr
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 503 || e.Error.Code != -32000 || !strings.Contains(e.Error.Message, "subscriptions/listen") {
		t.Errorf("a listen over the cap: %d %+v", resp.StatusCode, e)
	}
}

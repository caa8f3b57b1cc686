package testenv

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Do sends one HTTP request (with "Authorization: Bearer key" when key is set) and returns
// the response, whose body is read and closed, and the body.
func Do(t testing.TB, method, url, key, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return send(t, req)
}

// send sends req and returns the response, whose body is read and closed, and the body.
func send(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// Discover sends an MCP server/discover request of revision 2026-07-28 to the MCP endpoint
// url, with the headers that revision requires, and returns the HTTP status and the JSON-RPC
// answer (taken out of its event stream when it comes as one).
func Discover(t testing.TB, url string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	resp, b := send(t, req)
	text := string(b)
	if i := strings.Index(text, "data: "); i >= 0 {
		text = strings.TrimSpace(text[i+len("data: "):])
	}
	return resp.StatusCode, []byte(text)
}

// Pages asks query for the first page of params and then for each next page its summary's
// next_cursor names (the same params with cursor), and returns every page's body.
func Pages(t testing.TB, params string, query func(params string) []byte) [][]byte {
	t.Helper()
	var out [][]byte
	next := params
	for range 1000 {
		b := query(next)
		out = append(out, b)
		var a struct {
			Summary struct {
				Next string `json:"next_cursor"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("page %d: %v", len(out), err)
		}
		if a.Summary.Next == "" {
			return out
		}
		next = strings.TrimSuffix(strings.TrimSpace(params), "}") + `,"cursor":` + strconv.Quote(a.Summary.Next) + `}`
	}
	t.Fatal("more than 1000 pages")
	return nil
}

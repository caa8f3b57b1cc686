package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
)

// failingStore is a key store whose quota counter, subscriptions and deliveries fail.
type failingStore struct{ state.Store }

var errDiskFull = errors.New("database or disk is full")

func (failingStore) ConsumeQuery(context.Context, string, int) (int, bool, error) {
	return 0, false, errDiskFull
}

func (failingStore) ListSubscriptions(context.Context, string) ([]state.Subscription, error) {
	return nil, errDiskFull
}

func (failingStore) DeleteSubscription(context.Context, string, string) error { return errDiskFull }

func (failingStore) ListDeliveries(context.Context, string, int) ([]state.Delivery, error) {
	return nil, errDiskFull
}

// TestStoreFailureCauseLogged: when the key store fails, the client gets internal_error with
// a message that names no cause, and the request's one log line names the code, the cause and
// the request id the response carries.
func TestStoreFailureCauseLogged(t *testing.T) {
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	key, _, err := store.CreateKey(context.Background(), state.PlanFree, "cause")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	h, err := api.NewWith(svc, api.Config{Log: zerolog.New(&log), Gate: &access.Gate{Store: failingStore{store}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"query_power_capacity_v1","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/v1/power/capacity/query", `{}`},
		{"POST", "/mcp", mcpCall},
		{"GET", "/v1/webhooks/subscriptions", ""},
		{"DELETE", "/v1/webhooks/subscriptions/sub_1", ""},
		{"GET", "/v1/webhooks/deliveries", ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			log.Reset()
			var resp *http.Response
			var body []byte
			if tc.path == "/mcp" {
				req := httptest.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
				req.RequestURI = ""
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "query_power_capacity_v1")
				req.Header.Set("Authorization", "Bearer "+key)
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				// The tool's refusal is a result of a 200 answer; its body is REST's.
				if resp.StatusCode == 200 && strings.Contains(string(body), `"isError":true`) {
					resp.StatusCode = 500
				}
			} else {
				resp, body = request(t, tc.method, srv.URL+tc.path, key, tc.body)
			}
			if resp.StatusCode != 500 || !strings.Contains(string(body), `"internal_error"`) || strings.Contains(string(body), errDiskFull.Error()) {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			lines := strings.Split(strings.TrimSpace(log.String()), "\n")
			var requestLines []map[string]any
			for _, l := range lines {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
				if strings.Contains(l, errDiskFull.Error()) {
					requestLines = append(requestLines, m)
				}
			}
			if len(requestLines) != 1 {
				t.Fatalf("the cause is in %d log lines, want 1:\n%s", len(requestLines), log.String())
			}
			m := requestLines[0]
			if m["request_id"] != resp.Header.Get(api.RequestIDHeader) || m["error_code"] != "internal_error" || m["level"] != "error" {
				t.Errorf("log line %v: want request_id %s, error_code internal_error, level error", m, resp.Header.Get(api.RequestIDHeader))
			}
		})
	}
}

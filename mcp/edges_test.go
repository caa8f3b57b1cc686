package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/mcp"
)

// answer is one JSON-RPC response.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// answersIn reads the JSON-RPC responses of an answer: a JSON array or object, or the data
// of each event of an event stream.
func answersIn(t *testing.T, contentType string, b []byte) []answer {
	t.Helper()
	var datas [][]byte
	if strings.HasPrefix(contentType, "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				datas = append(datas, append([]byte(nil), d...))
			}
		}
	} else {
		datas = [][]byte{b}
	}
	var out []answer
	for _, d := range datas {
		var many []answer
		if err := json.Unmarshal(d, &many); err != nil {
			var one answer
			if err := json.Unmarshal(d, &one); err != nil {
				t.Fatalf("not JSON-RPC: %q", d)
			}
			many = []answer{one}
		}
		out = append(out, many...)
	}
	return out
}

// TestBatchWithABadMessageAnswersEach: a JSON-RPC batch (protocol 2025-03-26) holding an
// unknown method, a call whose id is null and a member that is no request object among good
// calls and a notification is answered message by message (JSON-RPC 2.0 §6): a result for each
// good call, an error for each bad one (with its id, or null), nothing for the notification.
// Before, the SDK refused the whole batch with HTTP 400.
func TestBatchWithABadMessageAnswersEach(t *testing.T) {
	url := limitedServer(t, mcp.DefaultLimits())
	sid := initialize(t, url)
	batch := `[
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"describe_power_capacity_v1","arguments":{}}},
{"jsonrpc":"2.0","id":3,"method":"no/such/method","params":{}},
{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{}},
{"jsonrpc":"2.0","method":"notifications/initialized"},
42,
{"jsonrpc":"2.0","id":"five","method":"ping"}]`
	resp, b := rpc(t, url, sid, batch)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	got := answersIn(t, resp.Header.Get("Content-Type"), b)
	want := []struct {
		id   string
		code int // 0: a result
	}{{"2", 0}, {"3", -32601}, {"null", -32600}, {"null", -32600}, {`"five"`, 0}}
	if len(got) != len(want) {
		t.Fatalf("%d answers, want %d: %s", len(got), len(want), b)
	}
	for i, w := range want {
		a := got[i]
		code := 0
		if a.Error != nil {
			code = a.Error.Code
			if a.Error.Message == "" {
				t.Errorf("answer %d: an error without a message", i)
			}
		} else if a.Result == nil {
			t.Errorf("answer %d: neither result nor error", i)
		}
		if string(a.ID) != w.id || code != w.code {
			t.Errorf("answer %d: id %s code %d, want id %s code %d: %s", i, a.ID, code, w.id, w.code, b)
		}
	}
	// A batch of good messages is still the SDK's own answer; a batch of notifications alone
	// is accepted without a body.
	resp, b = rpc(t, url, sid, `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`)
	if got := answersIn(t, resp.Header.Get("Content-Type"), b); resp.StatusCode != 200 || len(got) != 2 || got[0].Error != nil || got[1].Error != nil {
		t.Errorf("a good batch: %d %s", resp.StatusCode, b)
	}
	resp, b = rpc(t, url, sid, `[{"jsonrpc":"2.0","method":"no/such/notification"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	if resp.StatusCode != 202 || len(bytes.TrimSpace(b)) > 0 {
		t.Errorf("notifications alone: %d %q", resp.StatusCode, b)
	}
}

// TestSetLevelTakesLevelsOnly: logging/setLevel with a level that is not one of the eight is
// -32602 invalid params; a real level is {}. Before, any string was answered {}.
func TestSetLevelTakesLevelsOnly(t *testing.T) {
	url := limitedServer(t, mcp.DefaultLimits())
	sid := initialize(t, url)
	for level, code := range map[string]int{"bogus": -32602, "": -32602, "INFO": -32602, "info": 0, "emergency": 0} {
		resp, b := rpc(t, url, sid, `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"`+level+`"}}`)
		got := answersIn(t, resp.Header.Get("Content-Type"), b)
		if len(got) != 1 {
			t.Fatalf("%q: %d %s", level, resp.StatusCode, b)
		}
		c := 0
		if got[0].Error != nil {
			c = got[0].Error.Code
		}
		if c != code || code != 0 && !strings.Contains(got[0].Error.Message, "debug, info") {
			t.Errorf("level %q: %s, want code %d naming the levels", level, b, code)
		}
	}
}

// TestDescribeFullNull: describe_<capability>_v1 with "full" null (or any value that is not
// a boolean) is the documented invalid_parameter tool error. Before, null gave the compact
// description.
func TestDescribeFullNull(t *testing.T) {
	_, cs := session(t)
	for _, args := range []string{`{"full":null}`, `{"full": null }`, `{"full":"true"}`, `{"full":1}`} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "describe_power_capacity_v1", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if !res.IsError || !strings.Contains(text, `"code":"invalid_parameter"`) || !strings.Contains(text, "full must be a boolean") {
			t.Errorf("%s: isError %v, %.200s", args, res.IsError, text)
		}
	}
}

// TestStrictTimestampsOverMCP: a timestamp bound outside RFC 3339's grammar is the same tool
// error over MCP as the 400 over REST.
func TestStrictTimestampsOverMCP(t *testing.T) {
	srv, cs := session(t)
	bothWays(t, srv, cs, []restAndTool{
		{"offset +24:00", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"utc_date_from":"2021-01-01T00:00:00+24:00"}`, true},
		{"offset +05:60", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"utc_date_from":"2021-01-01T00:00:00+05:60"}`, true},
		{"offset -24:00", "query_power_demand_rollup_v1", "POST", "/v1/power/demand-rollup/query", `{"period_date_to":"2021-01-01T00:00:00-24:00"}`, true},
	})
}

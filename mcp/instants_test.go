package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInstantBoundsOverMCP: the query tools of the two capabilities whose date ranges take
// timestamps (power.demand, power.demand_rollup) accept them as their input schemas say,
// and answer the very document REST does; a malformed timestamp is the same tool error.
func TestInstantBoundsOverMCP(t *testing.T) {
	srv, cs := session(t)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "query_power_demand_v1" && tool.Name != "query_power_demand_rollup_v1" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), "RFC 3339") {
			t.Errorf("%s: the date ranges do not say they take timestamps", tool.Name)
		}
	}
	bothWays(t, srv, cs, []restAndTool{
		{"demand from an offset timestamp", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"utc_date_from":"2022-02-19T02:00:00-08:00","group_by":["utc_month"]}`, false},
		{"demand between two instants", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"local_date_from":"2022-02-18T01:00:00-08:00","local_date_to":"2022-02-19T00:00:00-08:00","include_records":true,"limit":3}`, false},
		{"rollup between two instants", "query_power_demand_rollup_v1", "POST", "/v1/power/demand-rollup/query", `{"filters":{"rollup_basis":"day UTC"},"period_date_from":"2022-02-01T00:00:00Z","period_date_to":"2022-02-10T00:00:00Z"}`, false},
		{"no time zone", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"utc_date_from":"2022-02-19 10:00"}`, true},
	})
}

// restAndTool is one request asked over REST and as a tool call with the same arguments.
type restAndTool struct {
	name, tool, method, path, args string
	isErr                          bool
}

// bothWays asks each call over REST and over MCP and compares the payloads.
func bothWays(t *testing.T, srv *httptest.Server, cs *sdk.ClientSession, calls []restAndTool) {
	t.Helper()
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			_, want := rest(t, c.method, srv.URL+c.path, c.args)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, c.isErr)
		})
	}
}

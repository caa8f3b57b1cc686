package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCapacityFactorOverMCP: the derived capability's tools are listed once its inputs are
// served; its describe payload and its refusal on the files here (the inputs share no month)
// are REST's, byte for byte.
func TestCapacityFactorOverMCP(t *testing.T) {
	srv, cs := session(t)
	ctx := context.Background()
	for _, c := range []struct {
		name, tool, method, path, args string
		isErr                          bool
	}{
		{"describe", "describe_power_capacity_factor_v1", "GET", "/v1/power/capacity-factor/schema", `{"full":true}`, false},
		{"refused", "query_power_capacity_factor_v1", "POST", "/v1/power/capacity-factor/query", `{}`, true},
		{"refused for a period", "query_power_capacity_factor_v1", "POST", "/v1/power/capacity-factor/query", `{"period_date_from":"2022-08","period_date_to":"2022-12","filters":{"state":"CO"}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, want := rest(t, c.method, srv.URL+c.path, c.args)
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, c.isErr)
		})
	}
}

package mcp_test

import "testing"

// TestCapacityFactorOverMCP: the derived capability's tools are listed once its inputs are
// served; its describe payload and its refusal on the files here (the inputs share no month)
// are REST's, byte for byte.
func TestCapacityFactorOverMCP(t *testing.T) {
	srv, cs := session(t)
	bothWays(t, srv, cs, []restAndTool{
		{"describe", "describe_power_capacity_factor_v1", "GET", "/v1/power/capacity-factor/schema", `{"full":true}`, false},
		{"refused", "query_power_capacity_factor_v1", "POST", "/v1/power/capacity-factor/query", `{}`, true},
		{"refused for a period", "query_power_capacity_factor_v1", "POST", "/v1/power/capacity-factor/query", `{"period_date_from":"2022-08","period_date_to":"2022-12","filters":{"state":"CO"}}`, true},
	})
}

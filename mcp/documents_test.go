package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDocumentSetsOverMCP: the answers that depend on how a capability's documents make its
// snapshots are the very documents REST gives (api TestDocumentSets checks their figures
// against testdata/golden/docsets.json), and say over MCP what they say over REST: ERCOT's 2024
// from the latest snapshot, 2025 with its partial_period note, a year no file has, N3045US3
// revised by a later release, the EIA-930 day cut short, and the schema's documents.
func TestDocumentSetsOverMCP(t *testing.T) {
	srv, cs := session(t)
	type answer struct {
		AsOf    string `json:"as_of"`
		Summary struct {
			Totals map[string]*float64 `json:"totals"`
			Notes  []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"notes"`
		} `json:"summary"`
		Documents struct {
			Relation string `json:"relation"`
		} `json:"documents"`
	}
	has := func(a answer, code string) bool {
		for _, n := range a.Summary.Notes {
			if n.Code == code {
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		restAndTool
		check func(a answer) bool
	}{
		{restAndTool{"ercot 2024 from the latest snapshot", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"filters":{"settlement_point":"HB_NORTH","year":2024}}`, false},
			func(a answer) bool {
				return a.AsOf == "2025-05-17" && a.Summary.Totals["hour_count"] != nil && *a.Summary.Totals["hour_count"] == 8784 && len(a.Summary.Notes) == 0
			}},
		{restAndTool{"ercot 2025 in part", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"filters":{"settlement_point":"HB_NORTH","year":2025}}`, false},
			func(a answer) bool { return has(a, "partial_period") }},
		{restAndTool{"ercot by year", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"group_by":["year"]}`, false},
			func(a answer) bool {
				return *a.Summary.Totals["hour_count"] == 131760+49305 && has(a, "partial_period")
			}},
		{restAndTool{"ercot a year no file has", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"filters":{"settlement_point":"HB_NORTH","year":2023}}`, false},
			func(a answer) bool {
				return has(a, "no_rows") && strings.Contains(a.Summary.Notes[0].Message, "no file published by 2025-05-17")
			}},
		{restAndTool{"ercot 2025 of the 2024 snapshot", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"as_of":"2024-12-31","filters":{"year":2025}}`, false},
			func(a answer) bool {
				return has(a, "no_rows") && strings.Contains(a.Summary.Notes[0].Message, "no file published by 2024-12-31")
			}},
		{restAndTool{"N3045US3 revised", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"filters":{"series_id":"N3045US3","month":"2022-01"}}`, false},
			func(a answer) bool { return *a.Summary.Totals["avg_price"] == 6.97 && has(a, "release_revised") }},
		{restAndTool{"N3045US3 2022", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"filters":{"atom":"us_electric_power_monthly","year":2022},"include_records":true,"limit":12}`, false},
			func(a answer) bool { return *a.Summary.Totals["observation_count"] == 12 }},
		{restAndTool{"demand local day cut short", "query_power_demand_v1", "POST", "/v1/power/demand/query", `{"local_date_from":"2022-02-19","local_date_to":"2022-02-19"}`, false},
			func(a answer) bool { return *a.Summary.Totals["hours_present"] == 11 && has(a, "partial_period") }},
		{restAndTool{"schema documents", "describe_power_price_ercot_v1", "GET", "/v1/power/price-ercot/schema", `{"full":true}`, false},
			func(a answer) bool { return a.Documents.Relation == "complement" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, want := rest(t, c.method, srv.URL+c.path, c.args)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, c.isErr)
			var a answer
			text := res.Content[0].(*sdk.TextContent).Text
			if err := json.Unmarshal([]byte(text), &a); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, "widen the filters") || !c.check(a) {
				t.Errorf("the tool's answer does not say it: %.1500s", text)
			}
		})
	}
}

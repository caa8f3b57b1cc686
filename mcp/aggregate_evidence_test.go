package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// TestAggregateEvidenceMatchesREST: verify_aggregate_v1 returns the bytes of POST
// /v1/evidence/aggregate, for a citation of each served capability and for a refusal.
func TestAggregateEvidenceMatchesREST(t *testing.T) {
	srv, cs := session(t)
	for _, tc := range []struct{ capability, path, query, metric string }{
		{"power.capacity", "/v1/power/capacity/query", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":2}`, "nameplate_mw"},
		{"natural_gas.prices", "/v1/natural-gas/prices/query", `{"filters":{"atom":"henry_hub_daily_spot"},"group_by":["year"],"order_by":"max_price","top_n":1}`, "avg_price"},
	} {
		_, body := rest(t, "POST", srv.URL+tc.path, tc.query)
		var r struct {
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Citations) < 2 {
			t.Fatalf("%s: %d citations", tc.capability, len(r.Citations))
		}
		for id, cite := range r.Citations {
			args, _ := json.Marshal(map[string]any{"capability": tc.capability, "metric": tc.metric, "citation": cite})
			st, want := rest(t, "POST", srv.URL+service.AggregateEvidencePath, string(args))
			if st != 200 {
				t.Fatalf("%s %s: %d %s", tc.capability, id, st, want)
			}
			var v struct {
				Equal bool `json:"equal"`
			}
			if json.Unmarshal(want, &v); !v.Equal {
				t.Errorf("%s %s: not equal: %s", tc.capability, id, want)
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, false)
		}
	}
	args := `{"capability":"power.capacity","metric":"megawatts","citation":{}}`
	st, want := rest(t, "POST", srv.URL+service.AggregateEvidencePath, args)
	if st != 400 {
		t.Fatalf("a bad metric answers %d", st)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, res, want, true)
}

package mcp_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDescribeCompactByDefault: over two capabilities, describe without arguments is the
// compact description, much shorter than the full one yet naming every filter and codebook
// with its size; {"full": true} is the REST /schema body byte for byte.
func TestDescribeCompactByDefault(t *testing.T) {
	srv, cs := session(t)
	ctx := context.Background()
	for _, tc := range []struct {
		tool, path string
		// share is the largest length of the compact description, as a share of the full one.
		share float64
	}{
		{"describe_power_capacity_v1", "/v1/power/capacity/schema", 0.4},
		{"describe_natural_gas_prices_v1", "/v1/natural-gas/prices/schema", 1},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			_, full := rest(t, "GET", srv.URL+tc.path, "")
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(`{}`)})
			if err != nil || res.IsError {
				t.Fatalf("compact: %v %v", err, res)
			}
			compact := res.Content[0].(*sdk.TextContent).Text
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(`{"full":true}`)})
			if err != nil || res.IsError {
				t.Fatalf("full: %v %v", err, res)
			}
			if got := res.Content[0].(*sdk.TextContent).Text; got != string(full) {
				t.Errorf("full describe differs from REST /schema")
			}
			if len(compact) >= len(full) || float64(len(compact)) > tc.share*float64(len(full)) {
				t.Errorf("compact %d characters, full %d", len(compact), len(full))
			}
			t.Logf("compact %d characters, full %d", len(compact), len(full))
			var c, f struct {
				Filters []struct {
					Name           string `json:"name"`
					DistinctValues *int   `json:"distinct_values"`
					ValuesFirst    []any  `json:"values_first"`
					Values         []any  `json:"values_in_snapshot"`
				} `json:"filters"`
				GroupBy   []string                   `json:"group_by"`
				Metrics   []map[string]any           `json:"metrics"`
				Rules     []any                      `json:"rules"`
				Codebooks map[string]map[string]any  `json:"codebooks"`
				Compact   map[string]json.RawMessage `json:"compact"`
			}
			if err := json.Unmarshal([]byte(compact), &c); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(full, &f)
			if c.Compact == nil {
				t.Error("compact description lacks its compact member")
			}
			if len(c.Filters) != len(f.Filters) || len(c.GroupBy) != len(f.GroupBy) || len(c.Metrics) != len(f.Metrics) || len(c.Rules) != len(f.Rules) || len(c.Codebooks) != len(f.Codebooks) {
				t.Errorf("compact is not complete: filters %d/%d group_by %d/%d metrics %d/%d rules %d/%d codebooks %d/%d",
					len(c.Filters), len(f.Filters), len(c.GroupBy), len(f.GroupBy), len(c.Metrics), len(f.Metrics), len(c.Rules), len(f.Rules), len(c.Codebooks), len(f.Codebooks))
			}
			for i, fl := range c.Filters {
				if fl.Name != f.Filters[i].Name {
					t.Errorf("filter %d: %s, full has %s", i, fl.Name, f.Filters[i].Name)
				}
				if len(fl.ValuesFirst) > 8 || len(fl.Values) > 8 && fl.DistinctValues != nil {
					t.Errorf("filter %s lists %d+%d values", fl.Name, len(fl.ValuesFirst), len(fl.Values))
				}
			}
			for name, cb := range c.Codebooks {
				if cb["code_count"] != f.Codebooks[name]["code_count"] || cb["codes"] != nil {
					t.Errorf("codebook %s: %v", name, cb)
				}
			}
		})
	}
}

// TestToolsForAgents: tools/list is one page in name order, the same on every call; every
// tool is marked read-only, idempotent and closed-world, and has an output schema.
func TestToolsForAgents(t *testing.T) {
	_, cs := session(t)
	ctx := context.Background()
	var first []string
	for i := 0; i < 2; i++ {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.NextCursor != "" {
			t.Errorf("tools/list has a next page")
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			a := tool.Annotations
			if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint != nil && *a.DestructiveHint {
				t.Errorf("%s annotations %+v", tool.Name, a)
			}
			if tool.OutputSchema == nil {
				t.Errorf("%s has no output schema", tool.Name)
			}
		}
		if !sort.StringsAreSorted(names) {
			t.Errorf("tools not in name order: %v", names)
		}
		if i == 0 {
			first = names
		} else if strings.Join(first, ",") != strings.Join(names, ",") {
			t.Errorf("tools/list order changed")
		}
	}
	if len(first) < 7 {
		t.Errorf("only %d tools", len(first))
	}
}

// TestStructuredContentConformsAndBadArgumentsAreToolErrors: over two capabilities, answers,
// service errors and invalid arguments alike, every result's structured content validates
// against the tool's output schema; invalid arguments are tool errors with the structured
// error, never protocol errors.
func TestStructuredContentConformsAndBadArgumentsAreToolErrors(t *testing.T) {
	_, cs := session(t)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	for _, tc := range []struct {
		name, tool, args string
		isErr            bool
	}{
		{"discover", "list_capabilities_v1", `{}`, false},
		{"describe compact", "describe_power_capacity_v1", `{}`, false},
		{"describe full", "describe_natural_gas_prices_v1", `{"full":true}`, false},
		{"describe full not boolean", "describe_power_capacity_v1", `{"full":"yes"}`, true},
		{"describe unknown argument", "describe_natural_gas_prices_v1", `{"codes":true}`, true},
		{"describe arguments not an object", "describe_power_capacity_v1", `[1]`, true},
		{"query", "query_power_capacity_v1", `{"group_by":["state"],"order_by":"nameplate_mw","top_n":3}`, false},
		{"query prices", "query_natural_gas_prices_v1", `{"group_by":["atom"]}`, false},
		{"query top_n as text", "query_power_capacity_v1", `{"group_by":["state"],"order_by":"nameplate_mw","top_n":"3"}`, false},
		{"query top_n not an integer", "query_power_capacity_v1", `{"group_by":["state"],"order_by":"nameplate_mw","top_n":"three"}`, true},
		{"query unknown argument", "query_power_capacity_v1", `{"colour":"red"}`, true},
		{"query bad filter", "query_natural_gas_prices_v1", `{"filters":{"atom":"nope"}}`, true},
		{"query arguments not an object", "query_natural_gas_prices_v1", `"all"`, true},
		{"evidence bad citation", "get_source_evidence_v1", `{"source_file":"x","sheet":"y","source_row":"one","raw_file_sha256":"00"}`, true},
		{"evidence not an object", "get_source_evidence_v1", `[]`, true},
		{"aggregate evidence missing members", "verify_aggregate_v1", `{}`, true},
		{"aggregate evidence unknown capability", "verify_aggregate_v1", `{"capability":"x.y","metric":"m"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			if res.IsError != tc.isErr {
				t.Fatalf("isError %v, want %v: %.300s", res.IsError, tc.isErr, res.Content[0].(*sdk.TextContent).Text)
			}
			b, _ := json.Marshal(res.StructuredContent)
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if err := schemas[tc.tool].Validate(v); err != nil {
				t.Errorf("structured content does not conform to the output schema: %v\n%.300s", err, b)
			}
			if tc.isErr {
				var e struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				if json.Unmarshal(b, &e); e.Error.Code == "" || e.Error.Message == "" {
					t.Errorf("tool error without the structured error: %s", b)
				}
			}
		})
	}
}

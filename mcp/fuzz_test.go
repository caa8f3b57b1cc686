package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// FuzzToolArguments: no arguments, however malformed, crash a tool; every call gets a
// result, an error result carrying {"error":{code,message}}, or a JSON-RPC error from the SDK
// (arguments that are not an object, or fail the input schema).
func FuzzToolArguments(f *testing.F) {
	svc, err := service.New(testenv.Data(f))
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	if _, err := mcp.NewServer(svc, nil, nil).Connect(ctx, st, nil); err != nil {
		f.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "fuzz", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { cs.Close() })
	tools := []string{"query_power_capacity_v1", "query_natural_gas_prices_v1", "get_source_evidence_v1", "describe_power_capacity_v1"}
	for i, seed := range []string{`{}`, `{"filters":{"state":"TX"},"group_by":["technology"]}`, `{"group_by":"state"}`, `{"limit":1e99}`,
		`{"source_file":"x","sheet":"y","source_row":1,"raw_file_sha256":"` + "0000000000000000000000000000000000000000000000000000000000000000" + `"}`,
		`{"include_records":true,"limit":2,"filters":{"atom":"henry_hub_daily_spot"}}`, `[]`, `null`, `"x"`} {
		f.Add(uint8(i), seed)
	}
	f.Fuzz(func(t *testing.T, tool uint8, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tools[int(tool)%len(tools)], Arguments: json.RawMessage(args)})
		if err != nil {
			return // refused by the SDK as a JSON-RPC error
		}
		if len(res.Content) == 0 || res.IsError && len(res.Content) != 1 {
			t.Fatalf("%d contents (isError %v)", len(res.Content), res.IsError)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError {
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if json.Unmarshal([]byte(text), &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("error result %q", text)
			}
		}
	})
}

package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/notecheck"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/state"
)

// TestNotesOfMisleadingTotalsOverMCP asks each question of testdata/golden/notes/notes.json as a
// tool call: the very document REST answers, carrying the notes the figures from the raw files
// call for (compute_notes.py).
func TestNotesOfMisleadingTotalsOverMCP(t *testing.T) {
	srv, cs := session(t)
	for _, c := range notecheck.Load(t, testenv.RepoRoot(t)) {
		t.Run(c.Name, func(t *testing.T) {
			cp := capability.ByID(c.Capability)
			_, want := rest(t, "POST", srv.URL+"/v1/"+cp.Path+"/query", string(c.Body()))
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "query_" + cp.ToolName() + "_v1", Arguments: json.RawMessage(c.Body())})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, false)
			notecheck.Check(t, c, []byte(res.Content[0].(*sdk.TextContent).Text))
		})
	}
}

// TestFirstHourOverMCP: list_capabilities_v1 says the capacity factor answers nothing here and
// which files would make it; a filter value is matched with surrounding white space trimmed;
// a loopback caller out of free queries is told about the operator key file.
func TestFirstHourOverMCP(t *testing.T) {
	srv, cs := session(t)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_capabilities_v1", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	var doc struct {
		Capabilities []struct {
			Capability string `json:"capability"`
			Answerable bool   `json:"answerable"`
			Because    string `json:"not_answerable_because"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range doc.Capabilities {
		if c.Capability == capability.PowerCapacityFactor.ID {
			found = true
			if c.Answerable || !strings.Contains(c.Because, "august_generator2022.xlsx") || !strings.Contains(c.Because, "eia923_2016.json") {
				t.Errorf("capacity factor: answerable %v: %s", c.Answerable, c.Because)
			}
		}
	}
	if !found {
		t.Errorf("list_capabilities_v1 does not list %s", capability.PowerCapacityFactor.ID)
	}
	bothWays(t, srv, cs, []restAndTool{
		{"sheet without its trailing space", "query_power_interconnection_queue_caiso_v1", "POST", "/v1/power/interconnection-queue-caiso/query", `{"filters":{"sheet":"Cluster 15"}}`, false},
		{"capacity factor refused, naming files", "query_power_capacity_factor_v1", "POST", "/v1/power/capacity-factor/query", `{}`, true},
	})

	gated, _ := gatedServer(t, func(store state.Store) *access.Gate {
		op, err := access.LoadOperatorKey(ctx, store, filepath.Join(t.TempDir(), "operator.key"))
		if err != nil {
			t.Fatal(err)
		}
		return &access.Gate{Store: store, FreeQueries: 1, Operator: op.Key.ID, OperatorFile: "var/operator.key"}
	})
	client := sdk.NewClient(&sdk.Implementation{Name: "citeq-test", Version: "v1"}, nil)
	anon, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: gated.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	args := json.RawMessage(`{"filters":{"state":"RI"}}`)
	for i, wantErr := range []bool{false, true} {
		res, err := anon.CallTool(ctx, &sdk.CallToolParams{Name: "query_power_capacity_v1", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if res.IsError != wantErr || wantErr && (!strings.Contains(text, apierror.CodePaymentRequired) || !strings.Contains(text, "var/operator.key")) {
			t.Errorf("query %d: isError %v: %.300s", i+1, res.IsError, text)
		}
	}
}

package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/service"
)

// AggregateEvidenceTool is the name of the tool that verifies a whole aggregate.
const AggregateEvidenceTool = "verify_aggregate_v1"

// aggregateEvidence is verify_aggregate_v1: the payload of POST /v1/evidence/aggregate for
// the same arguments.
func (ts toolSet) aggregateEvidence(caps []*capability.Capability) toolDef {
	var ids []string
	for _, c := range caps {
		if len(c.Inputs) == 0 { // a derived capability's citations are verified row by row
			ids = append(ids, c.ID)
		}
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"capability":     map[string]any{"enum": ids},
			"metric":         map[string]any{"type": "string", "description": "a metric of the capability"},
			"citation":       map[string]any{"type": "object", "description": "an aggregate citation of a query answer"},
			"lineage_filter": map[string]any{"type": "object", "description": "instead of citation: its lineage_filter, with as_of"},
			"as_of":          map[string]any{"type": "string"},
			"value":          map[string]any{"type": "number", "description": "optional: the figure read, to compare"},
		},
		"required":             []string{"capability", "metric"},
		"additionalProperties": false,
	}
	b := jsonw.MustMarshal(schema)
	return toolDef{
		tool: &sdk.Tool{
			Name:  AggregateEvidenceTool,
			Title: "Verify a whole aggregate",
			Description: "Step 4, for a whole number: check every member of an aggregate citation against what the service cites for the rows its lineage_filter selects ((other) included; a forged member or a filter selecting nothing is an error naming it), " +
				"re-open the raw file it names, re-hash it, read every cited row's cells by the rules ingest read them with, recompute the metric from those cells alone, and say whether it equals the figure served (recomputed, served, equal, rows). " +
				"A metric the capability declares not recomputable is an error saying why. Free; a few run at once (over_capacity beyond: call again shortly); cancelling the call stops it. Same payload as POST " + service.AggregateEvidencePath + ".",
			InputSchema:  json.RawMessage(b),
			OutputSchema: outputSchema("recomputed", "equal", "rows"),
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			// The call's context: a cancelled call (notifications/cancelled) stops the verification.
			body, e := ts.svc.AggregateEvidence(ctx, args(req))
			return ts.result(req, AggregateEvidenceTool, "", body, e), nil
		},
	}
}

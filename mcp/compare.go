package mcp

import (
	"encoding/json"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// compareProperty is compare_as_of in the input schema of a query tool whose capability
// compares snapshots (the interconnection queues).
func compareProperty() map[string]any {
	return map[string]any{"type": "string", "pattern": service.CompareAsOfPattern, "description": service.CompareAsOfDescription}
}

// queryOutputSchema is a query tool's output schema: a cited answer, or, for a capability
// that compares snapshots, the comparison compare_as_of asks for, or a tool error.
func queryOutputSchema(c *capability.Capability) json.RawMessage {
	if !service.Compares(c) {
		return outputSchema("a cited answer", "capability", "as_of", "summary", "rows", "citations")
	}
	b, _ := json.Marshal(map[string]any{
		"type":        "object",
		"description": `a cited answer, with compare_as_of the comparison of two snapshots, or {"error":{code,message}} on a tool error`,
		"anyOf": []any{
			map[string]any{"type": "object", "required": []string{"capability", "as_of", "summary", "rows", "citations"}},
			map[string]any{"type": "object", "required": []string{"capability", "as_of", service.CompareParam, "summary", "figures", "entered", "left", "status_changed", "mw_changed", "not_compared"}},
			errorSchema,
		},
	})
	return b
}

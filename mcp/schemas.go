package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/service"
)

// describeSchema is the input schema of describe_<capability>_v1.
const describeSchema = `{"type":"object","properties":{"full":{"type":"boolean"}},"additionalProperties":false}`

// objectSchema is the output schema of the per-capability tools: an object (the answer, or
// the {"error":{code,message}} of a tool error); the generic tools' name its members.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// describe answers describe_<capability>_v1: the compact description, or the full one (the
// REST /schema payload) with {"full": true}. Arguments that are not {"full": boolean} are an
// invalid_parameter error.
func describe(svc *service.Service, c *capability.Capability, body []byte) ([]byte, *apierror.Error) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(body, &a); err != nil || a == nil {
		return nil, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "the arguments are not a JSON object; send {} for the compact description or {\"full\": true} for every value and code"}
	}
	full := false
	for k, v := range a {
		if k != "full" {
			return nil, &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: fmt.Sprintf("unknown argument %q; the only argument is full (a boolean)", k)}
		}
		if err := json.Unmarshal(v, &full); err != nil || string(bytes.TrimSpace(v)) == "null" {
			return nil, &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: fmt.Sprintf("full must be a boolean (true or false), not %s", v)}
		}
	}
	if full {
		return svc.Schema(c.Path)
	}
	return svc.SchemaCompact(c.Path)
}

// outputSchema is a tool's output schema: an object holding the members required of an
// answer, or the {"error":{code,message}} of a tool error (structured content conforms to it
// either way).
func outputSchema(required ...string) json.RawMessage {
	return jsonw.MustMarshal(map[string]any{
		"type":  "object",
		"anyOf": []any{map[string]any{"required": required}, map[string]any{"required": []string{"error"}}},
	})
}

func readOnly() *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

const evidenceSchema = `{"type":"object","properties":{"source_id":{"type":"string"},"source_url":{"type":"string"},"source_file":{"type":"string"},"sheet":{"type":"string"},"source_row":{"type":"integer","minimum":1},"raw_file_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"as_of":{"type":"string"}},"required":["source_file","sheet","source_row","raw_file_sha256"]}`

// property is parameter p (as_of, group_by, a control, cursor or compare_as_of) in a query
// tool's input schema: its values where they are closed, else its type and bounds; a list is
// an array of them. The tools have given as_of its type only (its pattern is in describe);
// bytes pinned.
func property(p capability.Param) map[string]any {
	v := map[string]any{"type": p.Type.JSONType()}
	switch {
	case len(p.Enum) > 0:
		v = map[string]any{"enum": p.Enum}
	case p.Kind == capability.KindCompare:
		v["pattern"] = p.Pattern
	}
	if p.Min != 0 {
		v["minimum"] = p.Min
	}
	if p.Max != 0 {
		v["maximum"] = p.Max
	}
	if p.List {
		return map[string]any{"type": "array", "items": v}
	}
	return v
}

// QuerySchema is the JSON Schema of query_<capability>_v1's arguments, generated from the
// capability definition: every filter by name (with its values where they are at most
// smallEnum: a declared enum or a codebook of the latest snapshot), the group_by dimensions and
// metrics as enums, the date ranges and the controls. Descriptions and large codebooks are
// left to describe and to the values resource.
func QuerySchema(svc *service.Service, c *capability.Capability) json.RawMessage {
	defs := map[string]any{}
	oneOrMany := func(name string, item map[string]any) map[string]any {
		defs[name] = item
		ref := map[string]any{"$ref": "#/$defs/" + name}
		return map[string]any{"anyOf": []any{ref, map[string]any{"type": "array", "items": ref}}}
	}
	filters := map[string]any{}
	props := map[string]any{"filters": map[string]any{"type": "object", "properties": filters, "additionalProperties": false}}
	for _, p := range c.Params() {
		switch f := p.Field; p.Kind {
		case capability.KindFilter:
			// Closed lists only: a declared enum, or a codebook of at most smallEnum codes (the
			// distinct values a snapshot happens to hold are left to the values resource).
			if vals, ok := svc.SmallValues(c, f.Name, smallEnum); ok && f.Type == capability.String && (len(f.Enum) > 0 || f.Codebook != "") {
				filters[f.Name] = oneOrMany(f.Name, map[string]any{"enum": vals})
				continue
			}
			// Filters of one type share one definition: a value, or a list of values.
			t := f.Type.JSONType()
			if defs[t+"s"] == nil {
				defs[t+"s"] = map[string]any{"anyOf": []any{map[string]any{"type": t}, map[string]any{"type": "array", "items": map[string]any{"type": t}}}}
			}
			filters[f.Name] = map[string]any{"$ref": "#/$defs/" + t + "s"}
		case capability.KindRange:
			def := "date"
			if p.Range.Instants != nil {
				def = "instant"
				defs[def] = map[string]any{"type": "string", "description": "YYYY-MM-DD, YYYY-MM, YYYY or an RFC 3339 timestamp, inclusive"}
			} else {
				defs[def] = map[string]any{"type": "string", "pattern": `^\d{4}(-\d{2}(-\d{2})?)?$`, "description": "YYYY-MM-DD, YYYY-MM or YYYY, inclusive"}
			}
			props[p.Name] = map[string]any{"$ref": "#/$defs/" + def}
		default:
			props[p.Name] = property(p)
		}
	}
	return jsonw.MustMarshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false, "$defs": defs})
}

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/service"
)

// smallEnum is the largest value list written into a query tool's input schema as an enum;
// longer codebooks are left to describe and to completion (the values resource).
const smallEnum = 16

// Names of the tools that take the capability id.
const (
	DescribeTool = "describe_capability_v1"
	QueryTool    = "query_capability_v1"
)

// toolSet builds the tools.
type toolSet struct {
	svc     *service.Service
	observe Observer
	gate    *access.Gate
}

// toolDef is one tool with its handler.
type toolDef struct {
	tool    *sdk.Tool
	handler sdk.ToolHandler
}

// Tools lists the tools offered for capabilities caps, in name order: the tools/list an agent
// reads when caps are served.
func Tools(svc *service.Service, caps []*capability.Capability) []*sdk.Tool {
	defs := toolSet{svc: svc, observe: func(string, string, *apierror.Error, http.Header) {}}.all(caps)
	out := make([]*sdk.Tool, len(defs))
	for i, d := range defs {
		out[i] = d.tool
	}
	return out
}

// result reports a tool call to the observer and makes its result.
func (ts toolSet) result(req *sdk.CallToolRequest, tool, capID string, body []byte, e *apierror.Error, links ...sdk.Content) *sdk.CallToolResult {
	ts.observe(tool, capID, e, header(req))
	return toolResult(body, e, links...)
}

// header is the HTTP header of the request that carried req (nil over other transports).
func header(req sdk.Request) http.Header {
	if x := req.GetExtra(); x != nil {
		return x.Header
	}
	return nil
}

// all returns the tools for caps.
func (ts toolSet) all(caps []*capability.Capability) []toolDef {
	svc := ts.svc
	out := []toolDef{{
		tool: &sdk.Tool{
			Name:         "list_capabilities_v1",
			Title:        "Discover",
			Description:  "Step 1 of discover → describe → query → verify: the served capabilities with their paths, as_of dates, tool names and join keys (fields that share one vocabulary across capabilities). Same payload as GET /v1/capabilities.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
			OutputSchema: outputSchema("capabilities"),
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return ts.result(req, "list_capabilities_v1", "", svc.Capabilities(), nil), nil
		},
	}}
	ids := make([]string, len(caps))
	for i, c := range caps {
		ids[i] = c.ID
	}
	out = append(out, ts.generic(ids)...)
	for _, c := range caps {
		out = append(out, ts.describeTool(c), ts.queryTool(c))
	}
	out = append(out, toolDef{
		tool: &sdk.Tool{
			Name:         "get_source_evidence_v1",
			Title:        "Verify",
			Description:  "Step 4: re-open the raw file a citation names, re-hash it, return the literal cells of the cited row with their headers. Pass a record's citation or an aggregate citation's verify member. Same payload as POST /v1/evidence/source-row.",
			InputSchema:  json.RawMessage(evidenceSchema),
			OutputSchema: outputSchema("cells"),
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			body, e := svc.Evidence(ctx, args(req))
			return ts.result(req, "get_source_evidence_v1", "", body, e), nil
		},
	}, ts.aggregateEvidence(caps))
	return out
}

// describeTool is describe_<capability>_v1.
func (ts toolSet) describeTool(c *capability.Capability) toolDef {
	name := "describe_" + c.ToolName() + "_v1"
	return toolDef{
		tool: &sdk.Tool{
			Name:         name,
			Description:  "Schema of " + c.ID + " (" + c.Title + "); {\"full\":true}: every value.",
			InputSchema:  json.RawMessage(describeSchema),
			OutputSchema: objectSchema,
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			body, e := describe(ts.svc, c, args(req))
			return ts.result(req, name, c.ID, body, e), nil
		},
	}
}

// queryTool is query_<capability>_v1.
func (ts toolSet) queryTool(c *capability.Capability) toolDef {
	name := "query_" + c.ToolName() + "_v1"
	return toolDef{
		tool: &sdk.Tool{
			Name:         name,
			Description:  "Cited aggregates of " + c.ID + " (POST /v1/" + c.Path + "/query). Filter values: describe_" + c.ToolName() + "_v1.",
			InputSchema:  QuerySchema(ts.svc, c),
			OutputSchema: objectSchema,
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return ts.runQuery(ctx, name, c, req, args(req)), nil
		},
	}
}

// runQuery answers a query tool call: the REST body, with links to the evidence of its
// citations, and the free queries left in _meta.
func (ts toolSet) runQuery(ctx context.Context, tool string, c *capability.Capability, req *sdk.CallToolRequest, body []byte) *sdk.CallToolResult {
	a, e := query(ctx, ts.svc, ts.gate, c, req, body)
	var links []sdk.Content
	if e == nil {
		links = evidenceLinks(a.Body)
	}
	res := ts.result(req, tool, c.ID, a.Body, e, links...)
	if a.Remaining != "" {
		res.Meta = sdk.Meta{"free_queries_remaining": a.Remaining}
	}
	return res
}

// generic are describe_capability_v1 and query_capability_v1: the same tools for any
// capability, named by its id, for a client whose tool list is stale or cut short.
func (ts toolSet) generic(ids []string) []toolDef {
	idProp := map[string]any{"type": "string", "enum": ids, "description": "capability id (list_capabilities_v1)"}
	describeIn := jsonw.MustMarshal(map[string]any{"type": "object", "required": []string{"capability"}, "additionalProperties": false,
		"properties": map[string]any{"capability": idProp, "full": map[string]any{"type": "boolean"}}})
	// The parameters every capability shares, and compare_as_of (refused by a capability that
	// does not compare); filters, group_by and order_by name no values here.
	props := map[string]any{"capability": idProp, "filters": map[string]any{"type": "object", "description": "filter → value or list of values (describe names them)"}}
	for _, p := range append(capability.CommonParams(), capability.CompareParam()) {
		props[p.Name] = property(p)
	}
	props["order_by"].(map[string]any)["description"] = "a metric"
	queryIn := jsonw.MustMarshal(map[string]any{"type": "object", "required": []string{"capability"}, "properties": props,
		"additionalProperties": map[string]any{"type": "string", "description": "date ranges: <name>_date_from and <name>_date_to (describe names them)"}})
	capOf := func(body []byte) (*capability.Capability, []byte, *apierror.Error) {
		var a map[string]json.RawMessage
		if err := json.Unmarshal(body, &a); err != nil || a == nil {
			return nil, nil, &apierror.Error{Status: 400, Code: apierror.CodeInvalidRequest, Message: "the arguments are not a JSON object; send {\"capability\": \"<id>\", ...}"}
		}
		var id string
		if err := json.Unmarshal(a["capability"], &id); err != nil || id == "" {
			return nil, nil, &apierror.Error{Status: 400, Code: apierror.CodeInvalidParameter, Message: "capability is required: a capability id from list_capabilities_v1 (" + strings.Join(ids, ", ") + ")"}
		}
		c := capability.ByID(id)
		if c == nil || !ts.served(c) {
			return nil, nil, &apierror.Error{Status: 404, Code: apierror.CodeNotFound, Message: fmt.Sprintf("no served capability %q; use one of %s", id, strings.Join(ids, ", "))}
		}
		delete(a, "capability")
		rest, err := jsonw.Marshal(a)
		if err != nil {
			return nil, nil, apierror.New(500, apierror.CodeInternal, "the arguments could not be passed on; retry, and report it if it persists").Because(fmt.Errorf("re-encode the arguments of %s: %w", id, err))
		}
		return c, rest, nil
	}
	return []toolDef{{
		tool: &sdk.Tool{
			Name:         DescribeTool,
			Title:        "Describe a capability",
			Description:  "describe_<capability>_v1 for the capability named by its id: compact by default, {\"full\":true} is GET /v1/<path>/schema.",
			InputSchema:  json.RawMessage(describeIn),
			OutputSchema: outputSchema("capability", "filters", "metrics"),
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			c, rest, e := capOf(args(req))
			if e != nil {
				return ts.result(req, DescribeTool, "", nil, e), nil
			}
			body, e := describe(ts.svc, c, rest)
			return ts.result(req, DescribeTool, c.ID, body, e), nil
		},
	}, {
		tool: &sdk.Tool{
			Name:         QueryTool,
			Title:        "Query a capability",
			Description:  "query_<capability>_v1 for the capability named by its id: the other arguments are the params object of POST /v1/<path>/query (describe names the filters, group_by, metrics and date ranges); the answer is its body.",
			InputSchema:  json.RawMessage(queryIn),
			OutputSchema: outputSchema("capability", "as_of", "summary"),
			Annotations:  readOnly(),
		},
		handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			c, rest, e := capOf(args(req))
			if e != nil {
				return ts.result(req, QueryTool, "", nil, e), nil
			}
			return ts.runQuery(ctx, QueryTool, c, req, rest), nil
		},
	}}
}

// served reports whether c has a snapshot.
func (ts toolSet) served(c *capability.Capability) bool { return len(ts.svc.ServedDates(c.ID)) > 0 }

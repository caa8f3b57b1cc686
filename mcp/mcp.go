// Package mcp serves the contract's four verbs as MCP tools over the streamable HTTP
// transport of the official Go SDK: list_capabilities_v1, describe_<capability>_v1,
// query_<capability>_v1 for every served capability, and get_source_evidence_v1. Tool input
// schemas are generated from the capability definitions, and every result is the very JSON
// document REST returns for the same request, as structured content and as text.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// Version is the server version announced to MCP clients.
const Version = "v1"

// smallCodebook is the largest value list written into a tool's input schema as an enum.
const smallCodebook = 60

// Instructions tell an agent how to use the tools.
const Instructions = `citeq answers questions about U.S. public data with aggregates cited down to the exact source row.
Flow: 1) list_capabilities_v1 to see what is served and its as_of dates; 2) describe_<capability>_v1 for valid filters, group_by dimensions, metrics (unit, aggregation, additivity) and codebooks; 3) query_<capability>_v1 with filters, group_by, order_by/top_n; 4) get_source_evidence_v1 with a citation's "verify" member to see the literal cells of the cited source row, re-hashed.
Rules: summary.totals is authoritative; sum group rows only for metrics whose additive_across_groups is true. Every response pins as_of; pass it back to reproduce an answer exactly.`

// Handler is the MCP endpoint. It keeps one MCP server per set of served snapshots, so a
// newly promoted capability gets its tools without a restart.
type Handler struct {
	svc     *service.Service
	opts    *sdk.StreamableHTTPOptions
	observe Observer
	gate    *access.Gate
	limits  Limits
	// inflight holds a place for each POST being answered.
	inflight chan struct{}

	mu     sync.Mutex
	key    string
	server *sdk.Server
	// older are the servers of earlier snapshot sets that still have sessions.
	older []*sdk.Server
	http  http.Handler
}

// Observer is told of every tool call: the tool, its capability ("" for none) and the error
// code ("" on success).
type Observer func(tool, capability, code string)

// ClientAddrHeader carries the caller's network address from the HTTP front end to the
// tools (the front end sets it; a client's own value is overwritten).
const ClientAddrHeader = "X-Citeq-Client-Addr"

// New returns the MCP endpoint over svc under DefaultLimits; observe and gate may be nil (no
// quota).
func New(svc *service.Service, observe Observer, gate *access.Gate) *Handler {
	return NewWithLimits(svc, observe, gate, DefaultLimits())
}

// NewWithLimits returns the MCP endpoint over svc under limits l.
func NewWithLimits(svc *service.Service, observe Observer, gate *access.Gate, l Limits) *Handler {
	if observe == nil {
		observe = func(string, string, string) {}
	}
	opts := &sdk.StreamableHTTPOptions{SessionTimeout: l.SessionIdle, MaxRequestBodyBytes: l.MaxBody}
	h := &Handler{svc: svc, opts: opts, observe: observe, gate: gate, limits: l, inflight: make(chan struct{}, max(l.MaxInFlight, 1))}
	h.http = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.current() }, h.opts)
	return h
}

// ServeHTTP implements http.Handler: the SDK's streamable transport within the limits, every
// transport error a JSON-RPC error.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.limit(w, r, h.http) }

// current returns the server for the snapshots served now.
func (h *Handler) current() *sdk.Server {
	key := h.svc.ServedKey()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.server == nil || key != h.key {
		if h.server != nil {
			h.older = append(h.older, h.server)
		}
		h.server, h.key = NewServer(h.svc, h.observe, h.gate), key
	}
	return h.server
}

// sessions counts the open sessions of every server, forgetting older servers left without any.
func (h *Handler) sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	count := func(s *sdk.Server) int {
		n := 0
		for range s.Sessions() {
			n++
		}
		return n
	}
	total := 0
	if h.server != nil {
		total = count(h.server)
	}
	kept := h.older[:0]
	for _, s := range h.older {
		if n := count(s); n > 0 {
			total += n
			kept = append(kept, s)
		}
	}
	h.older = kept
	return total
}

// NewServer builds an MCP server with the tools of every capability served now. With a gate,
// query tools count against the caller's free quota exactly as REST queries do.
func NewServer(svc *service.Service, observe Observer, gate *access.Gate) *sdk.Server {
	if observe == nil {
		observe = func(string, string, string) {}
	}
	result := func(tool, capID string) func([]byte, *service.Error) *sdk.CallToolResult {
		return func(body []byte, e *service.Error) *sdk.CallToolResult {
			code := ""
			if e != nil {
				code = e.Code
			}
			observe(tool, capID, code)
			return toolResult(body, e)
		}
	}
	// One page holds every tool (the SDK lists them sorted by name): some clients read only
	// the first page.
	s := sdk.NewServer(&sdk.Implementation{Name: "citeq", Title: "citeq: cited U.S. public data", Version: Version},
		&sdk.ServerOptions{Instructions: Instructions, PageSize: ToolsPageSize})
	s.AddReceivingMiddleware(checkLogLevel)
	s.AddTool(&sdk.Tool{
		Name:         "list_capabilities_v1",
		Title:        "Discover",
		Description:  "Step 1 of discover → describe → query → verify. Lists the served capabilities with their paths, as_of dates and tool names. Same payload as GET /v1/capabilities.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		OutputSchema: outputSchema("the capabilities served", "capabilities", "flow"),
		Annotations:  readOnly(),
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result("list_capabilities_v1", "")(svc.Capabilities(), nil), nil
	})
	for _, c := range svc.Served() {
		c := c
		s.AddTool(&sdk.Tool{
			Name:  "describe_" + c.ToolName() + "_v1",
			Title: "Describe " + c.ID,
			Description: "Step 2: the schema of " + c.ID + " (" + c.Title + "): valid filters and their values, group_by dimensions, metrics with unit, aggregation and additivity, date-range parameters, controls, detail fields, citation fields and the codebooks. " +
				"Compact by default: each filter lists its first values and each codebook its size and first codes (the compact member says so). With {\"full\": true}: every value and code, the same payload as GET /v1/" + c.Path + "/schema.",
			InputSchema:  json.RawMessage(describeSchema),
			OutputSchema: outputSchema("the description of "+c.ID, "capability", "filters", "group_by", "metrics"),
			Annotations:  readOnly(),
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return result("describe_"+c.ToolName()+"_v1", c.ID)(describe(svc, c, args(req))), nil
		})
		s.AddTool(&sdk.Tool{
			Name:  "query_" + c.ToolName() + "_v1",
			Title: "Query " + c.ID,
			Description: "Step 3: cited aggregates of " + c.ID + " (" + c.Description + ") " +
				"Arguments are the REST params object: filters, group_by, date ranges, order_by (a metric) with order and top_n (the rest folds into (other)), include_records with limit, include_evidence, rollup_other, as_of. " +
				"The result is the same document POST /v1/" + c.Path + "/query returns: as_of, summary.totals (authoritative), rows with group, metrics and lineage.citation_ref, and the citations map; pass a citation's verify member to get_source_evidence_v1.",
			InputSchema:  QuerySchema(svc, c),
			OutputSchema: queryOutputSchema(c),
			Annotations:  readOnly(),
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			done := result("query_"+c.ToolName()+"_v1", c.ID)
			a, e := query(ctx, svc, gate, c, req)
			res := done(a.Body, e)
			if a.Remaining != "" {
				res.Meta = sdk.Meta{"free_queries_remaining": a.Remaining}
			}
			return res, nil
		})
	}
	s.AddTool(&sdk.Tool{
		Name:         "get_source_evidence_v1",
		Title:        "Verify",
		Description:  "Step 4: re-open the raw file a citation names, re-hash it, and return the literal cells of the cited row with their headers. Pass a record's citation or an aggregate citation's verify member. Same payload as POST /v1/evidence/source-row; a citation that cannot be verified is an error with its code.",
		InputSchema:  json.RawMessage(evidenceSchema),
		OutputSchema: outputSchema("the cited row's literal cells, re-hashed", "cells"),
		Annotations:  readOnly(),
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result("get_source_evidence_v1", "")(svc.EvidenceContext(ctx, args(req))), nil
	})
	addAggregateEvidenceTool(s, svc, result)
	return s
}

// query runs a query tool call through the same sequence as a REST query (access.Query),
// with the caller's headers as the HTTP front end passed them on.
func query(ctx context.Context, svc *service.Service, gate *access.Gate, c *capability.Capability, req *sdk.CallToolRequest) (access.Answer, *service.Error) {
	raw, e := service.ParseBody(args(req))
	if e != nil {
		return access.Answer{}, e
	}
	var hdr http.Header
	if req.Extra != nil {
		hdr = req.Extra.Header
	}
	return access.Query(ctx, svc, gate, hdr.Get("Authorization"), hdr.Get(ClientAddrHeader), c.Path, raw)
}

// ToolsPageSize is the page size of tools/list, far above the number of tools so that one
// page holds them all.
const ToolsPageSize = 10000

// describeSchema is the input schema of describe_<capability>_v1.
const describeSchema = `{"type":"object","properties":{"full":{"type":"boolean","default":false,"description":"true: every filter value and codebook code (the REST schema payload); false: the compact description"}},"additionalProperties":false}`

// describe answers describe_<capability>_v1: the compact description, or the full one (the
// REST /schema payload) with {"full": true}. Arguments that are not {"full": boolean} are an
// invalid_parameter error.
func describe(svc *service.Service, c *capability.Capability, body []byte) ([]byte, *service.Error) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(body, &a); err != nil || a == nil {
		return nil, &service.Error{Status: 400, Code: service.CodeInvalidRequest, Message: "the arguments are not a JSON object; send {} for the compact description or {\"full\": true} for every value and code"}
	}
	full := false
	for k, v := range a {
		if k != "full" {
			return nil, &service.Error{Status: 400, Code: service.CodeInvalidParameter, Message: fmt.Sprintf("unknown argument %q; the only argument is full (a boolean)", k)}
		}
		if err := json.Unmarshal(v, &full); err != nil || string(bytes.TrimSpace(v)) == "null" {
			return nil, &service.Error{Status: 400, Code: service.CodeInvalidParameter, Message: fmt.Sprintf("full must be a boolean (true or false), not %s", v)}
		}
	}
	if full {
		return svc.Schema(c.Path)
	}
	return svc.SchemaCompact(c.Path)
}

// errorSchema is the JSON Schema of a tool error's structured content (the REST error body).
var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error"},
	"properties": map[string]any{"error": map[string]any{
		"type":       "object",
		"required":   []string{"code", "message"},
		"properties": map[string]any{"code": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}},
	}},
}

// outputSchema is a tool's output schema: an object that holds the members required of an
// answer, or the error object of a tool error (structured content conforms to it either way).
func outputSchema(description string, required ...string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type":        "object",
		"description": description + `, or {"error":{code,message}} on a tool error`,
		"anyOf":       []any{map[string]any{"type": "object", "required": required}, errorSchema},
	})
	return b
}

func readOnly() *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

func args(req *sdk.CallToolRequest) []byte {
	if req.Params == nil || len(req.Params.Arguments) == 0 {
		return []byte("{}")
	}
	return req.Params.Arguments
}

// toolResult carries a service payload as structured content and as text, byte for byte the
// REST body; a service error becomes a tool error carrying the same {error:{code,message}}.
func toolResult(body []byte, e *service.Error) *sdk.CallToolResult {
	isErr := false
	if e != nil {
		body, isErr = e.Body(), true
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
		IsError:           isErr,
	}
}

const evidenceSchema = `{"type":"object","properties":{
"source_id":{"type":"string"},"source_url":{"type":"string"},"source_file":{"type":"string"},
"sheet":{"type":"string"},"source_row":{"type":"integer","minimum":1},
"raw_file_sha256":{"type":"string","pattern":"^[0-9a-f]{64}$"},"as_of":{"type":"string"}},
"required":["source_file","sheet","source_row","raw_file_sha256"]}`

// QuerySchema is the JSON Schema of query_<capability>_v1's arguments, generated from the
// capability definition (and, for small codebooks, the latest snapshot's values).
func QuerySchema(svc *service.Service, c *capability.Capability) json.RawMessage {
	filters := map[string]any{}
	for _, f := range c.Fields {
		if !f.Filter {
			continue
		}
		one := map[string]any{"type": f.Type.JSONType(), "description": f.Description}
		if vals, ok := svc.SmallValues(c, f.Name, smallCodebook); ok && f.Type == capability.String {
			one["enum"] = vals
		}
		filters[f.Name] = map[string]any{"anyOf": []any{one, map[string]any{"type": "array", "items": one, "minItems": 1}}}
	}
	metrics := c.MetricNames()
	props := map[string]any{
		"filters":          map[string]any{"type": "object", "properties": filters, "additionalProperties": false, "description": "filter name → one value or a list of values"},
		"group_by":         map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": c.GroupByNames()}, "uniqueItems": true},
		"order_by":         map[string]any{"type": "string", "enum": metrics, "description": "a metric to rank groups by; needs group_by"},
		"order":            map[string]any{"type": "string", "enum": []string{"desc", "asc"}, "default": "desc"},
		"top_n":            map[string]any{"type": "integer", "minimum": 1, "description": "keep the top N groups; needs group_by and order_by; the rest fold into (other)"},
		"rollup_other":     map[string]any{"type": "boolean", "default": true},
		"include_records":  map[string]any{"type": "boolean", "default": false},
		"limit":            map[string]any{"type": "integer", "minimum": 1, "maximum": service.MaxLimit, "default": service.DefaultLimit},
		"include_evidence": map[string]any{"type": "boolean", "default": false},
		"as_of":            map[string]any{"type": "string", "description": "latest (default), a served snapshot date YYYY-MM-DD, or on:YYYY-MM-DD for the snapshot in force at that date (the newest on or before it)"},
	}
	for _, r := range c.DateRanges {
		d := map[string]any{"type": "string", "pattern": `^\d{4}(-\d{2}(-\d{2})?)?$`, "description": "YYYY-MM-DD, YYYY-MM or YYYY, inclusive, on " + r.Column}
		if r.Instants != nil {
			d = map[string]any{"type": "string", "pattern": `^\d{4}(-\d{2}(-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2}))?)?)?$`,
				"description": "YYYY-MM-DD, YYYY-MM or YYYY, inclusive, on " + r.Column + "; or an RFC 3339 timestamp (Z or an offset), compared in UTC, inclusive, with " + r.Instants.From + " (_from) or " + r.Instants.To + " (_to): " + r.Instants.Convention}
		}
		props[r.From()] = d
		props[r.To()] = d
	}
	if service.Compares(c) {
		props[service.CompareParam] = compareProperty()
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
	return b
}

// Package mcp serves the contract's four verbs as MCP tools over the streamable HTTP
// transport of the official Go SDK: list_capabilities_v1, describe_<capability>_v1,
// query_<capability>_v1 for every served capability, the generic describe_capability_v1 and
// query_capability_v1 that take the capability id, get_source_evidence_v1 and
// verify_aggregate_v1. Every result is the very JSON document REST returns for the same
// request, as structured content and as text. Served snapshots, their schemas, the values of
// their filters and the evidence of a cited row are resources; completion/complete completes
// the arguments of their templates. Protocol revision 2026-07-28 (stateless requests) is
// served beside 2025-11-25 and the older revisions the SDK negotiates.
package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/ask"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// Version is the server version announced to MCP clients.
const Version = "v1"

// Instructions tell an agent how to use the tools.
const Instructions = `citeq answers questions about U.S. public data with aggregates cited down to the exact source row.
Flow: 1) list_capabilities_v1 to see what is served, its as_of dates and join keys; 2) describe_<capability>_v1 (or describe_capability_v1 with the capability id) for valid filters, group_by dimensions, metrics (unit, aggregation, additivity) and codebooks; 3) query_<capability>_v1 (or query_capability_v1) with filters, group_by, order_by/top_n; an answer too large for one page carries summary.next_cursor: pass it back as cursor for the next page; 4) get_source_evidence_v1 with a citation's "verify" member to see the literal cells of the cited source row, re-hashed.
Rules: summary.totals is authoritative; sum group rows only for metrics whose additive_across_groups is true. Every response pins as_of; pass it back to reproduce an answer exactly. Combine two answers only on fields with the same join key.
Resources: citeq://{capability}/{as_of} (a snapshot), .../schema, .../values/{field} (every value of a filter); completion/complete completes their arguments.`

// Handler is the MCP endpoint. It keeps one MCP server whose tools and resources follow the
// served snapshots: a newly promoted snapshot adds or changes them without a restart, and
// the SDK tells the sessions that listen (notifications/tools/list_changed and
// notifications/resources/list_changed, on a 2025 session's stream or a 2026-07-28
// subscriptions/listen).
type Handler struct {
	svc    *service.Service
	gate   *access.Gate
	limits Limits
	// inflight holds a place for each POST being answered; listens for each open
	// subscriptions/listen.
	inflight chan struct{}
	listens  chan struct{}

	mu       sync.Mutex
	server   *sdk.Server
	features *features
	watching bool
	// legacy serves 2025-11-25 and older (sessions); modern serves 2026-07-28 (stateless).
	legacy, modern http.Handler
}

// Observer is told of every tool call as its result is written: the tool, its capability (""
// for none), the refusal (nil on success) and the HTTP header of the request that carried it
// (its X-Request-Id among them); and of every refused resource read, with tool "". The HTTP
// front end counts the tool calls and logs each refusal's cause, once, with the request id.
type Observer func(tool, capability string, e *apierror.Error, header http.Header)

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
	h := &Handler{svc: svc, gate: gate, limits: l,
		inflight: make(chan struct{}, max(l.MaxInFlight, 1)), listens: make(chan struct{}, max(l.MaxListens, 1))}
	h.server, h.features = newServer(svc, observe, gate)
	get := func(*http.Request) *sdk.Server { return h.current() }
	h.legacy = sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{SessionTimeout: l.SessionIdle, MaxRequestBodyBytes: l.MaxBody})
	h.modern = sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: l.MaxBody, PropagateRequestCancellation: true})
	return h
}

// ServeHTTP implements http.Handler: the SDK's streamable transport within the limits, every
// transport error a JSON-RPC error.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.limit(w, r) }

// current returns the server with the tools and resources of the snapshots served now.
func (h *Handler) current() *sdk.Server {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.features.sync(h.server)
	return h.server
}

// watch keeps the server's features in step with the served snapshots while any session is
// open, so that a session that only listens hears of a promotion without another request.
func (h *Handler) watch() {
	h.mu.Lock()
	if h.watching {
		h.mu.Unlock()
		return
	}
	h.watching = true
	h.mu.Unlock()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for range t.C {
			h.current()
			if h.sessions() == 0 {
				h.mu.Lock()
				h.watching = false
				h.mu.Unlock()
				return
			}
		}
	}()
}

// sessions counts the open sessions (a 2026-07-28 request's lasts as long as the request).
func (h *Handler) sessions() int {
	n := 0
	for range h.server.Sessions() {
		n++
	}
	return n
}

// NewServer builds an MCP server with the tools and resources of every capability served
// now. With a gate, query tools count against the caller's free quota exactly as REST
// queries do.
func NewServer(svc *service.Service, observe Observer, gate *access.Gate) *sdk.Server {
	s, _ := newServer(svc, observe, gate)
	return s
}

func newServer(svc *service.Service, observe Observer, gate *access.Gate) (*sdk.Server, *features) {
	if observe == nil {
		observe = func(string, string, *apierror.Error, http.Header) {}
	}
	// One page holds every tool (the SDK lists them sorted by name): some clients read only
	// the first page.
	s := sdk.NewServer(&sdk.Implementation{Name: "citeq", Title: "citeq: cited U.S. public data", Version: Version},
		&sdk.ServerOptions{
			Instructions:              Instructions,
			PageSize:                  ToolsPageSize,
			SupportedProtocolVersions: ProtocolVersions,
			CompletionHandler:         completer(svc),
			SetCacheable:              setCacheable,
			// Capabilities are the SDK's: logging (for the revisions that have it), and tools,
			// resources (both with listChanged) and completions, inferred from what is added.
		})
	s.AddReceivingMiddleware(checkLogLevel)
	f := &features{svc: svc, observe: observe, tools: toolSet{svc: svc, observe: observe, gate: gate}}
	f.sync(s)
	return s, f
}

// ProtocolVersions are the MCP revisions served, newest first.
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// ToolsPageSize is the page size of tools/list, far above the number of tools so that one
// page holds them all.
const ToolsPageSize = 10000

// Cache lifetimes of list and read results (ttlMs), as REST's Cache-Control gives them: what
// follows the served snapshots may change within a minute of a promotion; what is pinned to
// an as_of never changes; evidence is re-verified on every read.
const (
	latestTTL = 60 * time.Second
	pinnedTTL = 365 * 24 * time.Hour
)

// setCacheable sets ttlMs and cacheScope of server/discover and of the list results (read
// results set their own): the served set may change at a promotion. Like REST, an answer to a
// caller with a key is private.
func setCacheable(_ context.Context, req sdk.Request, c *sdk.Cacheable) {
	if _, isRead := req.(*sdk.ReadResourceRequest); !isRead {
		c.TTLMs = int(latestTTL.Milliseconds())
	}
	c.CacheScope = "public"
	if x := req.GetExtra(); x != nil && x.Header.Get("Authorization") != "" {
		c.CacheScope = "private"
	}
}

// features is what the server offers for the snapshots served now: tools and resources,
// re-registered when the set of served snapshots changes.
type features struct {
	svc     *service.Service
	observe Observer
	tools   toolSet
	key     string
	// tool names and resource URIs registered for key.
	toolNames, resourceURIs []string
	templates               bool
}

// sync brings s's tools and resources in step with the served snapshots. Adding and
// removing them makes the SDK tell the listening sessions.
func (f *features) sync(s *sdk.Server) {
	key := f.svc.ServedKey()
	if key == f.key && f.toolNames != nil {
		return
	}
	f.key = key
	tools := f.tools.all(f.svc.Served())
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.tool.Name
	}
	if stale := missing(f.toolNames, names); len(stale) > 0 {
		s.RemoveTools(stale...)
	}
	for _, t := range tools {
		s.AddTool(t.tool, t.handler)
	}
	f.toolNames = names
	res := snapshotResources(f.svc, f.observe)
	uris := make([]string, len(res))
	for i, r := range res {
		uris[i] = r.res.URI
	}
	if stale := missing(f.resourceURIs, uris); len(stale) > 0 {
		s.RemoveResources(stale...)
	}
	for _, r := range res {
		s.AddResource(r.res, r.handler)
	}
	f.resourceURIs = uris
	if !f.templates {
		for _, t := range resourceTemplates(f.svc, f.observe) {
			s.AddResourceTemplate(t.tmpl, t.handler)
		}
		f.templates = true
	}
}

// missing lists the names of old that are not in now.
func missing(old, now []string) []string {
	var out []string
	for _, n := range old {
		if !slices.Contains(now, n) {
			out = append(out, n)
		}
	}
	return out
}

// query runs a query tool call through the same sequence as a REST query (ask.Query),
// with the caller's headers as the HTTP front end passed them on.
func query(ctx context.Context, svc *service.Service, gate *access.Gate, c *capability.Capability, req *sdk.CallToolRequest, body []byte) (ask.Answer, *apierror.Error) {
	params, e := service.ParseBody(body)
	if e != nil {
		return ask.Answer{}, e
	}
	var hdr http.Header
	if req.Extra != nil {
		hdr = req.Extra.Header
	}
	return ask.Query(ctx, svc, gate, hdr.Get("Authorization"), hdr.Get(ClientAddrHeader), c.Path, params)
}

func args(req *sdk.CallToolRequest) []byte {
	if req.Params == nil || len(req.Params.Arguments) == 0 {
		return []byte("{}")
	}
	return req.Params.Arguments
}

// toolResult carries a service payload as structured content and as text, byte for byte the
// REST body, followed by links; a service error becomes a tool error carrying the same
// {error:{code,message}}.
func toolResult(body []byte, e *apierror.Error, links ...sdk.Content) *sdk.CallToolResult {
	isErr := false
	if e != nil {
		body, isErr, links = e.Body(), true, nil
	}
	return &sdk.CallToolResult{
		Content:           append([]sdk.Content{&sdk.TextContent{Text: string(body)}}, links...),
		StructuredContent: json.RawMessage(body),
		IsError:           isErr,
	}
}

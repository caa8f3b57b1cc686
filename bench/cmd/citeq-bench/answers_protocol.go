package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
)

// The protocol part of the answers dump is what REST and MCP put around the service's
// answers, asked through the HTTP handler citeq serve runs (with accounts, on a key store of
// its own in a temporary directory):
//
//   - rest_<name>: the error body and status of each of a set of bad REST requests (unknown
//     capability, unknown field, bad as_of, bad filter value, an over-long body, a method
//     not allowed, a key required and not sent, a key in the wrong header, …);
//   - mcp_initialize, mcp_discover, mcp_tools_list: the MCP handshake of both revisions and
//     the tool list;
//   - mcp_describe, mcp_query: for every capability served, its describe tool's and its query
//     tool's result (the latest snapshot, no params);
//   - mcp_<name>: the JSON-RPC answer to each of a set of bad MCP requests (unknown tool,
//     unknown argument, bad as_of, bad filter value, an over-long body, a method not allowed).
//
// The body of an MCP answer sent as a server-sent event is its data line.

// protocolCall is one request of the protocol dump.
type protocolCall struct {
	name, method, path, body string
	header                   map[string]string
}

// dumpProtocol asks the REST and MCP handler over svc the protocol questions of the dump.
func dumpProtocol(svc *service.Service, caps []*capability.Capability, emit func(key, params string, status int, body []byte) error) error {
	dir, err := os.MkdirTemp("", "citeq-answers-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := state.Open(ctx, "", dir)
	if err != nil {
		return fmt.Errorf("open a key store: %w", err)
	}
	defer store.Close()
	key, _, err := store.CreateKey(ctx, state.PlanMonthly, "answers-dump")
	if err != nil {
		return fmt.Errorf("create a key: %w", err)
	}
	h, err := api.NewWith(svc, api.Config{Log: zerolog.Nop(), Gate: &access.Gate{Store: store}})
	if err != nil {
		return err
	}
	ask := func(c protocolCall) (int, []byte) {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		if c.path == "/mcp" {
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		req.Header.Set("Authorization", "Bearer "+key)
		for k, v := range c.header {
			req.Header.Set(k, v)
			if v == "" {
				req.Header.Del(k)
			}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body := w.Body.Bytes()
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			if i := strings.Index(string(body), "data: "); i >= 0 {
				body = []byte(strings.TrimSpace(strings.SplitN(string(body[i+len("data: "):]), "\n", 2)[0]))
			}
		}
		return w.Code, body
	}
	for _, c := range protocolCalls(caps) {
		status, body := ask(c)
		params := c.method + " " + c.path
		if len(c.body) <= 400 {
			params += " " + c.body
		} else {
			params += fmt.Sprintf(" (%d bytes)", len(c.body))
		}
		if err := emit("-\t-\t"+c.name, params, status, body); err != nil {
			return err
		}
	}
	return nil
}

// mcpModern is the protocol revision of the dump's stateless MCP requests.
const mcpModern = "2026-07-28"

// protocolCalls are the requests of the protocol dump, in a fixed order.
func protocolCalls(caps []*capability.Capability) []protocolCall {
	c := capability.ByID("power.capacity")
	query := "/v1/" + c.Path + "/query"
	over := `{"as_of":"` + strings.Repeat("x", api.MaxBody) + `"}`
	noKey := map[string]string{"Authorization": ""}
	calls := []protocolCall{
		{name: "rest_unknown_capability", method: "POST", path: "/v1/power/capacty/query", body: `{}`},
		{name: "rest_unknown_capability_schema", method: "GET", path: "/v1/power/nowhere/schema"},
		{name: "rest_trailing_slash", method: "GET", path: "/v1/capabilities/"},
		{name: "rest_unknown_field", method: "POST", path: query, body: `{"group_by":["state"],"grup":1}`},
		{name: "rest_unknown_query_parameter", method: "GET", path: query + "?grup=state"},
		{name: "rest_bad_as_of", method: "POST", path: query, body: `{"as_of":"2016-13-45"}`},
		{name: "rest_as_of_not_served", method: "POST", path: query, body: `{"as_of":"1999-01-01"}`},
		{name: "rest_bad_filter_value", method: "POST", path: query, body: `{"filters":{"state":"ZZ"}}`},
		{name: "rest_unknown_filter", method: "POST", path: query, body: `{"filters":{"stat":"RI"}}`},
		{name: "rest_bad_limit", method: "GET", path: query + "?include_records=true&limit=abc"},
		{name: "rest_bad_order_by", method: "POST", path: query, body: `{"group_by":["state"],"order_by":"state"}`},
		{name: "rest_compare_refused", method: "POST", path: query, body: `{"compare_as_of":"2016-05-31"}`},
		{name: "rest_not_json", method: "POST", path: query, body: `{"group_by":`},
		{name: "rest_body_too_long", method: "POST", path: query, body: over},
		{name: "rest_method_not_allowed", method: "PUT", path: query, body: `{}`},
		{name: "rest_method_not_allowed_schema", method: "POST", path: "/v1/" + c.Path + "/schema", body: `{}`},
		{name: "rest_evidence_not_a_citation", method: "POST", path: "/v1/evidence/source-row", body: `{}`},
		{name: "rest_evidence_unknown_file", method: "POST", path: "/v1/evidence/source-row", body: `{"source_file":"x.xlsx","raw_file_sha256":"` + strings.Repeat("0", 64) + `","sheet":"s","source_row":2}`},
		{name: "rest_aggregate_evidence_not_a_citation", method: "POST", path: "/v1/evidence/aggregate", body: `{"capability":"power.capacity"}`},
		{name: "rest_key_required", method: "GET", path: "/v1/webhooks/subscriptions", header: noKey},
		{name: "rest_key_in_other_header", method: "POST", path: query, body: `{}`, header: map[string]string{"X-Api-Key": "cq_x", "Authorization": ""}},
		{name: "rest_key_unknown", method: "POST", path: query, body: `{}`, header: map[string]string{"Authorization": "Bearer cq_0000000000000000"}},
		{name: "rest_key_malformed", method: "POST", path: query, body: `{}`, header: map[string]string{"Authorization": "Basic x"}},
		{name: "rest_webhook_bad_body", method: "POST", path: "/v1/webhooks/subscriptions", body: `{"url":1}`},
		{name: "rest_webhook_unknown_subscription", method: "DELETE", path: "/v1/webhooks/subscriptions/nope"},
		{name: "mcp_initialize", method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"citeq-answers","version":"v1"}}}`},
	}
	modern := func(name, method, params string) protocolCall {
		return protocolCall{name: name, method: "POST", path: "/mcp",
			body:   `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`,
			header: map[string]string{"Mcp-Protocol-Version": mcpModern, "Mcp-Method": method}}
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + mcpModern + `","io.modelcontextprotocol/clientCapabilities":{}}`
	call := func(name, tool, args string) protocolCall {
		c := modern(name, "tools/call", `{"name":"`+tool+`","arguments":`+args+`,`+meta+`}`)
		c.header["Mcp-Name"] = tool
		return c
	}
	calls = append(calls,
		modern("mcp_discover", "server/discover", `{`+meta+`}`),
		modern("mcp_tools_list", "tools/list", `{`+meta+`}`),
	)
	for _, c := range caps {
		id := strings.ReplaceAll(c.ID, ".", "_")
		calls = append(calls,
			call("mcp_describe "+c.ID, "describe_"+id+"_v1", `{}`),
			call("mcp_query "+c.ID, "query_"+id+"_v1", `{}`))
	}
	calls = append(calls,
		call("mcp_unknown_tool", "query_power_capacty_v1", `{}`),
		call("mcp_unknown_argument", "query_power_capacity_v1", `{"group_by":["state"],"grup":1}`),
		call("mcp_bad_as_of", "query_power_capacity_v1", `{"as_of":"2016-13-45"}`),
		call("mcp_bad_filter_value", "query_power_capacity_v1", `{"filters":{"state":"ZZ"}}`),
		call("mcp_bad_argument_type", "query_power_capacity_v1", `{"limit":"abc"}`),
		call("mcp_compare_refused", "query_power_capacity_v1", `{"compare_as_of":"2016-05-31"}`),
		call("mcp_evidence_not_a_citation", "get_source_evidence_v1", `{}`),
		modern("mcp_unknown_method", "tools/nothing", `{`+meta+`}`),
		protocolCall{name: "mcp_not_json", method: "POST", path: "/mcp", body: `{"jsonrpc":`, header: map[string]string{"Mcp-Protocol-Version": mcpModern}},
		protocolCall{name: "mcp_body_too_long", method: "POST", path: "/mcp", body: over, header: map[string]string{"Mcp-Protocol-Version": mcpModern}},
		protocolCall{name: "mcp_method_not_allowed", method: "PUT", path: "/mcp", body: `{}`},
	)
	return calls
}

// servedCaps are the capabilities of the capabilities document.
func servedCaps(ids []string) ([]*capability.Capability, error) {
	var out []*capability.Capability
	for _, id := range ids {
		c := capability.ByID(id)
		if c == nil {
			return nil, fmt.Errorf("the capabilities document lists %s, which is not defined", id)
		}
		out = append(out, c)
	}
	return out, nil
}

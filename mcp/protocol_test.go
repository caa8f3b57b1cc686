package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// toolsListBudget is the most characters tools/list may take with every defined capability
// served (31): the tools an agent reads before its first call.
const toolsListBudget = 100000

// TestToolsListBudget: at full breadth, tools/list stays under its budget, each
// per-capability query tool under 4,000 characters, and the generic pair names every
// capability.
func TestToolsListBudget(t *testing.T) {
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	all := capability.All()
	if len(all) != 31 {
		t.Errorf("%d capabilities defined; the budget is set for 31", len(all))
	}
	tools := mcp.Tools(svc, all)
	b, _ := json.Marshal(map[string]any{"tools": tools})
	t.Logf("tools/list at full breadth: %d tools, %d characters", len(tools), len(b))
	if len(b) > toolsListBudget {
		t.Errorf("tools/list is %d characters, over its budget of %d", len(b), toolsListBudget)
	}
	for _, tool := range tools {
		one, _ := json.Marshal(tool)
		if strings.HasPrefix(tool.Name, "query_") && len(one) > 4000 {
			t.Errorf("%s: %d characters", tool.Name, len(one))
		}
		if tool.Name == mcp.QueryTool || tool.Name == mcp.DescribeTool {
			for _, c := range all {
				if !bytes.Contains(one, []byte(`"`+c.ID+`"`)) {
					t.Errorf("%s does not name %s", tool.Name, c.ID)
				}
			}
		}
	}
}

// connect opens a Go SDK client session at protocol revision version ("" for the newest).
func connect(t *testing.T, url string, version string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "citeq-test", Version: "v1"}, opts)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestProtocolRevisions: a client of 2026-07-28 (server/discover, stateless requests) and one
// of 2025-11-25 (initialize, a session) get the same tools and the same answers, byte for
// byte REST's, the generic tools included.
func TestProtocolRevisions(t *testing.T) {
	srv, _ := session(t)
	ctx := context.Background()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, srv.URL, version, nil)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s, want %s", got, version)
			}
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tool := range res.Tools {
				names[tool.Name] = true
			}
			for _, want := range []string{"list_capabilities_v1", mcp.DescribeTool, mcp.QueryTool, "query_power_capacity_v1", "describe_power_capacity_v1", "get_source_evidence_v1"} {
				if !names[want] {
					t.Errorf("%s not listed", want)
				}
			}
			for _, c := range []struct{ tool, args, method, path, rest string }{
				{mcp.QueryTool, `{"capability":"power.capacity","group_by":["lifecycle"]}`, "POST", "/v1/power/capacity/query", `{"group_by":["lifecycle"]}`},
				{mcp.DescribeTool, `{"capability":"natural_gas.prices","full":true}`, "GET", "/v1/natural-gas/prices/schema", ""},
				{"query_power_capacity_v1", `{"filters":{"state":"RI"},"include_records":true,"limit":3}`, "POST", "/v1/power/capacity/query", `{"filters":{"state":"RI"},"include_records":true,"limit":3}`},
			} {
				_, want := rest(t, c.method, srv.URL+c.path, c.rest)
				got, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
				if err != nil {
					t.Fatal(err)
				}
				compare(t, got, want, false)
			}
			bad, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.QueryTool, Arguments: json.RawMessage(`{"capability":"power.nothing"}`)})
			if err != nil || !bad.IsError || !strings.Contains(bad.Content[0].(*sdk.TextContent).Text, "power.capacity") {
				t.Errorf("unknown capability: %v %+v", err, bad)
			}
		})
	}
}

// TestServerDiscover: a raw 2026-07-28 server/discover names both revisions, the server,
// its tools and resources capabilities, and a cache lifetime.
func TestServerDiscover(t *testing.T) {
	srv, _ := session(t)
	status, text := testenv.Discover(t, srv.URL+"/mcp")
	var got struct {
		Result struct {
			SupportedVersions []string       `json:"supportedVersions"`
			Capabilities      map[string]any `json:"capabilities"`
			TTLMs             *int           `json:"ttlMs"`
			CacheScope        string         `json:"cacheScope"`
		} `json:"result"`
	}
	if err := json.Unmarshal(text, &got); status != 200 || err != nil {
		t.Fatalf("%d %s: %v", status, text, err)
	}
	r := got.Result
	if strings.Join(r.SupportedVersions, ",") != strings.Join(mcp.ProtocolVersions, ",") || r.Capabilities["tools"] == nil ||
		r.Capabilities["resources"] == nil || r.Capabilities["completions"] == nil || r.TTLMs == nil || *r.TTLMs <= 0 || r.CacheScope != "public" {
		t.Errorf("server/discover: %s", text)
	}
}

// TestResourcesAndCompletion: snapshots are listed as resources; the schema resource at
// latest is the REST schema byte for byte; the values resource lists a codebook whole; an
// answer's evidence link reads as the evidence endpoint answers; completion/complete
// completes capability ids, as_of dates, filters and codebook values. Over both revisions.
func TestResourcesAndCompletion(t *testing.T) {
	srv, _ := session(t)
	ctx := context.Background()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, srv.URL, version, nil)
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			uris := map[string]bool{}
			for _, r := range list.Resources {
				uris[r.URI] = true
			}
			if !uris["citeq://power.capacity/2016-05-31"] || !uris["citeq://natural_gas.prices/2024-07-10"] {
				t.Errorf("snapshots not listed: %v", uris)
			}
			tmpls, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil || len(tmpls.ResourceTemplates) != 5 {
				t.Fatalf("templates: %v %+v", err, tmpls)
			}
			read := func(uri string) (string, *sdk.ReadResourceResult) {
				t.Helper()
				res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatalf("%s: %v", uri, err)
				}
				return res.Contents[0].Text, res
			}
			_, schema := rest(t, "GET", srv.URL+"/v1/power/capacity/schema", "")
			if got, res := read("citeq://power.capacity/latest/schema"); got != string(schema) || res.TTLMs != 60000 {
				t.Errorf("schema resource differs from REST (ttl %d)", res.TTLMs)
			}
			if got, res := read("citeq://power.capacity/2016-05-31"); !strings.Contains(got, `"raw_file_sha256"`) || res.TTLMs != 365*24*3600*1000 {
				t.Errorf("snapshot resource: ttl %d %.300s", res.TTLMs, got)
			}
			values, _ := read("citeq://power.capacity/2016-05-31/values/energy_source_code")
			var v struct {
				Count  int `json:"value_count"`
				Values []struct {
					Value, Description string
				} `json:"values"`
			}
			json.Unmarshal([]byte(values), &v)
			if v.Count < 30 || len(v.Values) != v.Count || v.Values[0].Description == "" {
				t.Errorf("values resource: %.300s", values)
			}
			if one, _ := read("citeq://power.capacity/2016-05-31/values/energy_source_code/BIT"); !strings.Contains(one, "bituminous") && !strings.Contains(one, "Bituminous") {
				t.Errorf("value resource: %s", one)
			}
			// An answer links the evidence of its citations.
			ans, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "query_power_capacity_v1", Arguments: json.RawMessage(`{"group_by":["lifecycle"]}`)})
			if err != nil || len(ans.Content) < 2 {
				t.Fatalf("answer without evidence links: %v %d", err, len(ans.Content))
			}
			link := ans.Content[1].(*sdk.ResourceLink)
			var doc struct {
				Citations map[string]struct {
					Verify struct {
						SourceFile string `json:"source_file"`
						Sheet      string `json:"sheet"`
						SourceRow  int    `json:"source_row"`
						SHA256     string `json:"raw_file_sha256"`
					} `json:"verify"`
				} `json:"citations"`
			}
			json.Unmarshal([]byte(ans.Content[0].(*sdk.TextContent).Text), &doc)
			vf := doc.Citations[strings.TrimPrefix(link.Name, "evidence ")].Verify
			// The resource is the evidence endpoint's answer to the citation the URI spells.
			cite, _ := json.Marshal(map[string]any{"raw_file_sha256": vf.SHA256, "source_file": vf.SourceFile, "sheet": vf.Sheet, "source_row": vf.SourceRow})
			_, want := rest(t, "POST", srv.URL+"/v1/evidence/source-row", string(cite))
			if got, res := read(link.URI); got != string(want) || res.TTLMs != 0 {
				t.Errorf("evidence resource %s differs from REST:\n%.300s\n%.300s", link.URI, got, want)
			}
			complete := func(tmpl, arg, value string, known map[string]string) []string {
				t.Helper()
				res, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: tmpl},
					Argument: sdk.CompleteParamsArgument{Name: arg, Value: value}, Context: &sdk.CompleteContext{Arguments: known}})
				if err != nil {
					t.Fatal(err)
				}
				return res.Completion.Values
			}
			if got := complete(mcp.SchemaTemplate, "capability", "power.cap", nil); !contains(got, "power.capacity") || contains(got, "natural_gas.prices") {
				t.Errorf("capability completion: %v", got)
			}
			if got := complete(mcp.SchemaTemplate, "as_of", "", map[string]string{"capability": "power.interconnection_queue_caiso"}); strings.Join(got, ",") != "latest,2025-01-23,2025-08-11,2026-08-03" {
				t.Errorf("as_of completion: %v", got)
			}
			if got := complete(mcp.ValueTemplate, "value", "BI", map[string]string{"capability": "power.capacity", "as_of": "2016-05-31", "field": "energy_source_code"}); !contains(got, "BIT") {
				t.Errorf("codebook completion: %v", got)
			}
			if got := complete(mcp.ValuesTemplate, "field", "energy", map[string]string{"capability": "power.capacity"}); strings.Join(got, ",") != "energy_source_code" {
				t.Errorf("field completion: %v", got)
			}
		})
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestListChangedOnPromotion: when a snapshot is promoted, a 2026-07-28 client listening
// (subscriptions/listen) and a 2025-11-25 session both hear that the tools and the resources
// changed, and the new snapshot is then listed.
func TestListChangedOnPromotion(t *testing.T) {
	w := testenv.Withhold(t, testenv.Data(t), func(p map[string]map[string]string) { delete(p, "natural_gas.prices") })
	svc, err := service.New(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, zerolog.Nop()))
	t.Cleanup(srv.Close)
	type heard struct{ tools, resources chan struct{} }
	listen := func(version string) (*sdk.ClientSession, heard) {
		h := heard{make(chan struct{}, 8), make(chan struct{}, 8)}
		cs := connect(t, srv.URL, version, &sdk.ClientOptions{
			ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { h.tools <- struct{}{} },
			ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { h.resources <- struct{}{} },
		})
		return cs, h
	}
	modern, hm := listen("2026-07-28")
	legacy, hl := listen("2025-11-25")
	time.Sleep(500 * time.Millisecond) // the listen stream and the session's GET stream open
	w.Promote(t)
	if changed, err := svc.Reload(); err != nil || !changed {
		t.Fatalf("reload: %v %v", changed, err)
	}
	for name, h := range map[string]heard{"2026-07-28": hm, "2025-11-25": hl} {
		for what, ch := range map[string]chan struct{}{"tools": h.tools, "resources": h.resources} {
			select {
			case <-ch:
			case <-time.After(15 * time.Second):
				t.Errorf("%s: no %s/list_changed after the promotion", name, what)
			}
		}
	}
	for _, cs := range []*sdk.ClientSession{modern, legacy} {
		res, err := cs.ListResources(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range res.Resources {
			found = found || r.URI == "citeq://natural_gas.prices/2024-07-10"
		}
		if !found {
			t.Errorf("the promoted snapshot is not listed")
		}
	}
}

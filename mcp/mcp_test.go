package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func session(t *testing.T) (*httptest.Server, *sdk.ClientSession) {
	t.Helper()
	_, srv, cs := sessionWith(t)
	return srv, cs
}

func rest(t *testing.T, method, url string, body string) (int, []byte) {
	t.Helper()
	resp, b := testenv.Do(t, method, url, "", body)
	return resp.StatusCode, b
}

func TestToolsListed(t *testing.T) {
	_, cs := session(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		names[tool.Name] = tool
	}
	for _, want := range []string{"list_capabilities_v1", "describe_power_capacity_v1", "query_power_capacity_v1",
		"describe_natural_gas_prices_v1", "query_natural_gas_prices_v1", "get_source_evidence_v1"} {
		if names[want] == nil {
			t.Errorf("tool %s missing", want)
		}
	}
	// The query schema is generated from the definition: group_by and order_by enums, small
	// codebooks as enums (technology's 20-odd values are left to describe), date ranges.
	schema, _ := json.Marshal(names["query_power_capacity_v1"].InputSchema)
	for _, want := range []string{`"operating_date_from"`, `"retirement_date_to"`, `"distinct_plant_count"`, `"retired"`, `"canceled_or_postponed"`, `"balancing_authority_code"`} {
		if !bytes.Contains(schema, []byte(want)) {
			t.Errorf("query schema lacks %s", want)
		}
	}
	// compare_as_of is an argument of the queue tools only.
	queueSchema, _ := json.Marshal(names["query_power_interconnection_queue_caiso_v1"].InputSchema)
	if !bytes.Contains(queueSchema, []byte(`"compare_as_of"`)) || bytes.Contains(schema, []byte(`"compare_as_of"`)) {
		t.Errorf("compare_as_of in the queue tool's schema: %v, in power.capacity's: %v", bytes.Contains(queueSchema, []byte(`"compare_as_of"`)), bytes.Contains(schema, []byte(`"compare_as_of"`)))
	}
	if !strings.Contains(names["query_power_capacity_v1"].Description, "describe_power_capacity_v1") {
		t.Error("query tool description does not say where the values are")
	}
	if bytes.Contains(schema, []byte(`"Batteries"`)) {
		t.Error("the query schema lists a codebook of more than smallEnum values")
	}
}

// TestPayloadsMatchREST: for each verb and a fixed set of queries, the REST body equals the MCP
// text content byte for byte and the MCP structured content as a JSON value.
func TestPayloadsMatchREST(t *testing.T) {
	srv, cs := session(t)
	ctx := context.Background()
	type call struct {
		name, tool, method, path, args string
		isErr                          bool
	}
	calls := []call{
		{"discover", "list_capabilities_v1", "GET", "/v1/capabilities", `{}`, false},
		{"describe", "describe_power_capacity_v1", "GET", "/v1/power/capacity/schema", `{"full":true}`, false},
		{"describe prices", "describe_natural_gas_prices_v1", "GET", "/v1/natural-gas/prices/schema", `{"full":true}`, false},
		{"plain", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{}`, false},
		{"filtered", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{"filters":{"technology":"Batteries","lifecycle":["operating","planned"]}}`, false},
		{"grouped top_n", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`, false},
		{"records", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{"filters":{"state":"RI"},"include_records":true,"limit":4}`, false},
		{"prices plain", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{}`, false},
		{"prices filtered", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"filters":{"atom":"henry_hub_daily_spot"},"observation_date_from":"2008","observation_date_to":"2008"}`, false},
		{"prices grouped", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"group_by":["atom","year"]}`, false},
		{"prices top_n", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"filters":{"atom":"henry_hub_daily_spot"},"group_by":["year"],"order_by":"max_price","top_n":3}`, false},
		{"prices records", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"filters":{"atom":"us_electric_power_monthly"},"include_records":true,"limit":6}`, false},
		{"evidence included", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"group_by":["atom"],"observation_date_from":"2021","include_evidence":true}`, false},
		{"bad filter", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{"filters":{"state":"ZZ"}}`, true},
		{"bad order_by", "query_natural_gas_prices_v1", "POST", "/v1/natural-gas/prices/query", `{"group_by":["atom"],"order_by":"atom"}`, true},
		{"prices median", "query_power_price_ercot_v1", "POST", "/v1/power/price-ercot/query", `{"as_of":"2024-12-31","group_by":["settlement_point_type"],"order_by":"median_price","top_n":1}`, false},
		{"queue compare", "query_power_interconnection_queue_caiso_v1", "POST", "/v1/power/interconnection-queue-caiso/query", `{"as_of":"2025-08-11","compare_as_of":"2025-01-23","group_by":["status"]}`, false},
		{"compare refused", "query_power_capacity_v1", "POST", "/v1/power/capacity/query", `{"compare_as_of":"2016-05-31"}`, true},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			_, want := rest(t, c.method, srv.URL+c.path, c.args)
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, c.isErr)
		})
	}
	// Evidence: a citation taken from the grouped query, over both protocols.
	_, body := rest(t, "POST", srv.URL+"/v1/power/capacity/query", `{"group_by":["lifecycle"]}`)
	var r struct {
		Citations map[string]struct {
			Verify json.RawMessage `json:"verify"`
		} `json:"citations"`
	}
	json.Unmarshal(body, &r)
	for ref, c := range r.Citations {
		_, want := rest(t, "POST", srv.URL+"/v1/evidence/source-row", string(c.Verify))
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_source_evidence_v1", Arguments: c.Verify})
		if err != nil {
			t.Fatal(err)
		}
		t.Run("evidence "+ref, func(t *testing.T) { compare(t, res, want, false) })
	}
	tampered := bytes.Replace(r.Citations[firstKey(r.Citations)].Verify, []byte(`"raw_file_sha256":"`), []byte(`"raw_file_sha256":"0`), 1)
	_, want := rest(t, "POST", srv.URL+"/v1/evidence/source-row", string(tampered))
	res, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_source_evidence_v1", Arguments: json.RawMessage(tampered)})
	t.Run("evidence refused", func(t *testing.T) { compare(t, res, want, true) })
}

func firstKey[V any](m map[string]V) string {
	for k := range m {
		return k
	}
	return ""
}

func compare(t *testing.T, res *sdk.CallToolResult, want []byte, isErr bool) {
	t.Helper()
	if res.IsError != isErr {
		t.Fatalf("isError %v, want %v", res.IsError, isErr)
	}
	if len(res.Content) == 0 {
		t.Fatal("no content")
	}
	for _, c := range res.Content[1:] {
		if l, ok := c.(*sdk.ResourceLink); !ok || !strings.HasPrefix(l.URI, "citeq://evidence/") {
			t.Errorf("content after the text is not an evidence link: %#v", c)
		}
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if text != string(want) {
		t.Errorf("text content differs from REST:\n%.400s\n%.400s", text, want)
	}
	var a, b any
	structured, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(structured, &a); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(want, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("structured content differs from REST:\n%.400s\n%.400s", structured, want)
	}
}

// gatedServer serves the ingested data with accounts (SQLite in a directory of the test's)
// behind the gate gate makes on the store.
func gatedServer(t *testing.T, gate func(state.Store) *access.Gate) (*httptest.Server, state.Store) {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(context.Background(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.NewWith(svc, api.Config{Log: zerolog.Nop(), Gate: gate(store)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); store.Close() })
	return srv, store
}

// keyTransport adds an API key to every request.
type keyTransport struct{ key string }

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// TestQueryToolsCountAgainstTheQuota: MCP query calls draw on the same free quota as REST
// queries; describe and evidence tools do not; the 26th query is a tool error with the
// payment_required body REST gives.
func TestQueryToolsCountAgainstTheQuota(t *testing.T) {
	srv, store := gatedServer(t, func(store state.Store) *access.Gate { return &access.Gate{Store: store} })
	key, _, _ := store.CreateKey(context.Background(), state.PlanFree, "agent")
	client := sdk.NewClient(&sdk.Implementation{Name: "citeq-test", Version: "v1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: keyTransport{key}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	restQuery := func() int {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/natural-gas/prices/query", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := 0; i < 20; i++ {
		if st := restQuery(); st != 200 {
			t.Fatalf("REST query %d: %d", i, st)
		}
	}
	for i := 0; i < 5; i++ {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "query_power_capacity_v1", Arguments: json.RawMessage(`{"group_by":["lifecycle"]}`)})
		if err != nil || res.IsError {
			t.Fatalf("MCP query %d: %v %+v", i, err, res)
		}
		if got := res.Meta["free_queries_remaining"]; got != strconv.Itoa(4-i) {
			t.Errorf("MCP query %d: free_queries_remaining %v", i, got)
		}
		// Describe and evidence are free.
		if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "describe_power_capacity_v1", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
			t.Fatalf("describe: %v", err)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "query_power_capacity_v1", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError || !strings.Contains(text, `"payment_required"`) || !strings.Contains(text, "490 USD") {
		t.Fatalf("26th query: isError %v %s", res.IsError, text)
	}
	if st := restQuery(); st != 402 {
		t.Errorf("REST after the quota: %d", st)
	}
}

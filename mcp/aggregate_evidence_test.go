package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// TestAggregateEvidenceMatchesREST: verify_aggregate_v1 returns the bytes of POST
// /v1/evidence/aggregate, for a citation of each served capability and for a refusal.
func TestAggregateEvidenceMatchesREST(t *testing.T) {
	srv, cs := session(t)
	for _, tc := range []struct{ capability, path, query, metric string }{
		{"power.capacity", "/v1/power/capacity/query", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":2}`, "nameplate_mw"},
		{"natural_gas.prices", "/v1/natural-gas/prices/query", `{"filters":{"atom":"henry_hub_daily_spot"},"group_by":["year"],"order_by":"max_price","top_n":1}`, "avg_price"},
	} {
		_, body := rest(t, "POST", srv.URL+tc.path, tc.query)
		var r struct {
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Citations) < 2 {
			t.Fatalf("%s: %d citations", tc.capability, len(r.Citations))
		}
		for id, cite := range r.Citations {
			args, _ := json.Marshal(map[string]any{"capability": tc.capability, "metric": tc.metric, "citation": cite})
			st, want := rest(t, "POST", srv.URL+service.AggregateEvidencePath, string(args))
			if st != 200 {
				t.Fatalf("%s %s: %d %s", tc.capability, id, st, want)
			}
			var v struct {
				Equal bool `json:"equal"`
			}
			if json.Unmarshal(want, &v); !v.Equal {
				t.Errorf("%s %s: not equal: %s", tc.capability, id, want)
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, false)
		}
	}
	args := `{"capability":"power.capacity","metric":"megawatts","citation":{}}`
	st, want := rest(t, "POST", srv.URL+service.AggregateEvidencePath, args)
	if st != 400 {
		t.Fatalf("a bad metric answers %d", st)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, res, want, true)
}

// sessionWith is session, with the service behind the server.
func sessionWith(t *testing.T) (*service.Service, *httptest.Server, *sdk.ClientSession) {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, zerolog.Nop()))
	t.Cleanup(srv.Close)
	client := sdk.NewClient(&sdk.Implementation{Name: "citeq-test", Version: "v1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return svc, srv, cs
}

// citeOf decodes a citation into a map a test may edit (a deep copy each call).
func citeOf(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAggregateEvidenceRefusesForgery posts citations of real answers with one member forged
// each, and lineage filters that are malformed or select nothing: every one is a 400 with the
// code of what disagrees, over REST and over MCP alike (the same bytes), never verified: true.
func TestAggregateEvidenceRefusesForgery(t *testing.T) {
	srv, cs := session(t)
	answer := func(path, query string) (map[string]json.RawMessage, []map[string]any) {
		t.Helper()
		st, body := rest(t, "POST", srv.URL+path, query)
		if st != 200 {
			t.Fatalf("%s %s: %d %s", path, query, st, body)
		}
		var r struct {
			Rows []struct {
				Group   map[string]any `json:"group"`
				Lineage struct {
					Ref string `json:"citation_ref"`
				} `json:"lineage"`
			} `json:"rows"`
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		for _, row := range r.Rows {
			rows = append(rows, map[string]any{"group": row.Group, "ref": row.Lineage.Ref})
		}
		return r.Citations, rows
	}
	// power.capacity (its citations carry a source_view): the Texas group and the (other) row.
	capCites, capRows := answer("/v1/power/capacity/query", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":1}`)
	group := capCites[capRows[0]["ref"].(string)]
	// power.price_ercot: hubs in July 2024 with a date range, and the (other) row.
	priceQuery := `{"as_of":"2024-12-31","filters":{"settlement_point_type":"hub"},"delivery_date_from":"2024-07-01","delivery_date_to":"2024-07-31","group_by":["settlement_point"],"order_by":"median_price","top_n":2}`
	priceCites, priceRows := answer("/v1/power/price-ercot/query", priceQuery)
	priceGroup := priceCites[priceRows[0]["ref"].(string)]
	priceOther := priceCites[priceRows[len(priceRows)-1]["ref"].(string)]
	if g := priceRows[len(priceRows)-1]["group"].(map[string]any); g["settlement_point"] != service.OtherGroup {
		t.Fatalf("the last row is %v, not (other)", g)
	}
	// Every hub of the month, for an (other) row that excludes them all.
	_, allHubs := answer("/v1/power/price-ercot/query", `{"as_of":"2024-12-31","filters":{"settlement_point_type":"hub"},"delivery_date_from":"2024-07-01","delivery_date_to":"2024-07-31","group_by":["settlement_point"]}`)

	edit := func(raw json.RawMessage, f func(c map[string]any)) map[string]any {
		c := citeOf(t, raw)
		f(c)
		return c
	}
	lf := func(c map[string]any) map[string]any { return c["lineage_filter"].(map[string]any) }
	cases := []struct {
		name, capability, metric string
		citation                 map[string]any
		code                     string
	}{
		{"source_id", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["source_id"] = "eia923" }), apierror.CodeEvidenceSourceID},
		{"source_url of another host", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) {
			c["source_url"] = "https://example.com/may_generator2016.xlsx"
		}), apierror.CodeEvidenceSourceURL},
		{"publisher", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["publisher"] = "Somebody Else" }), apierror.CodeEvidencePublisher},
		{"source_file contradicting the filter", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["source_file"] = "june_generator2016.xlsx" }), apierror.CodeEvidenceSourceFile},
		{"raw_file_sha256 contradicting the filter", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["raw_file_sha256"] = strings.Repeat("ab", 32) }), apierror.CodeEvidenceSHA256},
		{"source_rows_count", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["source_rows_count"] = 1 }), apierror.CodeEvidenceRowsCount},
		{"source_rows_count as text", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["source_rows_count"] = "2" }), apierror.CodeEvidenceRowsCount},
		{"source_rows_sample", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) {
			s := c["source_rows_sample"].([]any)
			s[1].(map[string]any)["source_row"] = 9
		}), apierror.CodeEvidenceRowsSample},
		{"verify of another row", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) {
			v := c["verify"].(map[string]any)
			v["source_row"] = v["source_row"].(float64) + 1
		}), apierror.CodeEvidenceVerify},
		{"a bogus verify", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["verify"] = map[string]any{"anything": true} }), apierror.CodeEvidenceVerify},
		{"source_view", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) {
			c["source_view"].(map[string]any)["sheets"] = []any{"Operating", "Retired"}
		}), apierror.CodeEvidenceSourceView},
		{"derived", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["derived"] = true }), apierror.CodeEvidenceDerived},
		{"an unknown member", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) { c["trust_me"] = true }), apierror.CodeEvidenceInvalid},
		{"a lineage filter of other rows", "power.capacity", "nameplate_mw", edit(group, func(c map[string]any) {
			lf(c)["filters"].(map[string]any)["state"] = []any{"CA"}
		}), apierror.CodeEvidenceRowsCount},
		{"a lineage filter of another sheet", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["filters"].(map[string]any)["settlement_point"] = []any{"HB_NORTH", "HB_SOUTH"}
		}), apierror.CodeEvidenceRowsCount},
		// Malformed lineage filters, and filters that select no row.
		{"settlement_point [NO_SUCH_POINT]", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["filters"].(map[string]any)["settlement_point"] = []any{"NO_SUCH_POINT"}
		}), apierror.CodeEvidenceLineage},
		{"settlement_point []", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["filters"].(map[string]any)["settlement_point"] = []any{}
		}), apierror.CodeEvidenceLineage},
		{"settlement_point [null]", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["filters"].(map[string]any)["settlement_point"] = []any{nil}
		}), apierror.CodeEvidenceLineage},
		{"reversed date bounds", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["date_ranges"] = map[string]any{"delivery_date": map[string]any{"from": "2024-07-31", "to": "2024-07-01"}}
		}), apierror.CodeEvidenceLineage},
		{"a nonsense date bound", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["date_ranges"] = map[string]any{"delivery_date": map[string]any{"from": "yesterday", "to": ""}}
		}), apierror.CodeEvidenceLineage},
		{"a date that is no day", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["date_ranges"] = map[string]any{"delivery_date": map[string]any{"from": "2024-02-30", "to": "2024-07-31"}}
		}), apierror.CodeEvidenceLineage},
		{"a date range that selects nothing", "power.price_ercot", "median_price", edit(priceGroup, func(c map[string]any) {
			lf(c)["date_ranges"] = map[string]any{"delivery_date": map[string]any{"from": "1990-01-01", "to": "1990-12-31"}}
		}), apierror.CodeEvidenceLineage},
		{"(other) excluding every group", "power.price_ercot", "median_price", edit(priceOther, func(c map[string]any) {
			var ex []any
			for _, r := range allHubs {
				ex = append(ex, r["group"])
			}
			lf(c)["excludes"] = ex
		}), apierror.CodeEvidenceLineage},
		{"(other) excluding a group no row holds", "power.price_ercot", "median_price", edit(priceOther, func(c map[string]any) {
			lf(c)["excludes"] = append(lf(c)["excludes"].([]any), map[string]any{"settlement_point": "LZ_WEST"})
		}), apierror.CodeEvidenceLineage},
		{"(other) excluding a value the snapshot lacks", "power.price_ercot", "median_price", edit(priceOther, func(c map[string]any) {
			lf(c)["excludes"] = []any{map[string]any{"settlement_point": "NO_SUCH_POINT"}}
		}), apierror.CodeEvidenceLineage},
		{"(other) excluding a group twice", "power.price_ercot", "median_price", edit(priceOther, func(c map[string]any) {
			ex := lf(c)["excludes"].([]any)
			lf(c)["excludes"] = append(ex, ex[0])
		}), apierror.CodeEvidenceLineage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]any{"capability": tc.capability, "metric": tc.metric, "citation": tc.citation})
			st, want := rest(t, "POST", srv.URL+service.AggregateEvidencePath, string(args))
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			json.Unmarshal(want, &e)
			if st != 400 || e.Error.Code != tc.code {
				t.Fatalf("REST: %d %s, want 400 %s", st, want, tc.code)
			}
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, true)
			// The same lineage filter posted on its own is judged the same way where the
			// filter itself is at fault.
			if tc.code == apierror.CodeEvidenceLineage {
				args, _ := json.Marshal(map[string]any{"capability": tc.capability, "metric": tc.metric, "lineage_filter": tc.citation["lineage_filter"], "as_of": tc.citation["as_of"]})
				if st, body := rest(t, "POST", srv.URL+service.AggregateEvidencePath, string(args)); st != 400 || !strings.Contains(string(body), tc.code) {
					t.Errorf("lineage_filter alone: %d %s", st, body)
				}
			}
		})
	}
	// The unforged citations verify.
	for _, c := range []struct {
		capability, metric string
		raw                json.RawMessage
	}{{"power.capacity", "nameplate_mw", group}, {"power.price_ercot", "median_price", priceGroup}, {"power.price_ercot", "median_price", priceOther}} {
		args, _ := json.Marshal(map[string]any{"capability": c.capability, "metric": c.metric, "citation": c.raw})
		st, body := rest(t, "POST", srv.URL+service.AggregateEvidencePath, string(args))
		if st != 200 || !strings.Contains(string(body), `"verified":true`) {
			t.Errorf("%s unforged: %d %.300s", c.capability, st, body)
		}
	}
}

// TestAggregateEvidenceCancelled: a verify_aggregate_v1 call the client cancels
// (notifications/cancelled) ends the verification on the server: the context the tool runs
// with is the call's.
func TestAggregateEvidenceCancelled(t *testing.T) {
	svc, srv, cs := sessionWith(t)
	_, body := rest(t, "POST", srv.URL+"/v1/power/capacity/query", `{}`)
	var r struct {
		Citations map[string]json.RawMessage `json:"citations"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	var cite json.RawMessage
	for _, c := range r.Citations {
		cite = c
	}
	admitted, ended := make(chan struct{}), make(chan struct{})
	t.Cleanup(service.HoldAggregateEvidence(svc, func(ctx context.Context) {
		close(admitted)
		<-ctx.Done() // held until the call's context ends
		close(ended)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	args, _ := json.Marshal(map[string]any{"capability": "power.capacity", "metric": "nameplate_mw", "citation": cite})
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.AggregateEvidenceTool, Arguments: json.RawMessage(args)})
		errc <- err
	}()
	select {
	case <-admitted:
	case <-time.After(30 * time.Second):
		t.Fatal("the verification was never admitted")
	}
	cancel()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("cancelling the call did not end the verification's context")
	}
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned no error")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		in, _, _, stopped := svc.AggregateEvidenceStats()
		if in == 0 && stopped == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in flight %d, stopped %d after the call was cancelled", in, stopped)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
)

// TestRulePlanningYearsBefore2024RefusedAtQuery is the contract's rule of section 2.4,
// "planning years before 2024 are refused with a message that says why", over MCP: the query
// tool refuses a planning_year or auction_label before 2024-2025 with the tool error whose text
// is the REST answer, invalid_filter naming the first planning year answered.
func TestRulePlanningYearsBefore2024RefusedAtQuery(t *testing.T) {
	svc, err := service.New(testenv.FixtureData(t, market.MISOAuction{}))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, zerolog.Nop()))
	t.Cleanup(srv.Close)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "citeq-test", Version: "v1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, tc := range []struct {
		name, args string
		isErr      bool
		want       string
	}{
		{"one year", `{"filters":{"planning_year":"2023-2024"}}`, true, "the first planning_year answered is 2024-2025"},
		{"a list that includes one", `{"filters":{"planning_year":["2024-2025","2021-2022"]}}`, true, `\"2021-2022\" is refused`},
		{"auction label", `{"filters":{"auction_label":["2020-2021 PRA"]}}`, true, "the first auction_label answered is 2024-2025 PRA"},
		{"a served year", `{"as_of":"2025-05-29","filters":{"planning_year":"2025-2026"},"group_by":["season"]}`, false, `"planning_year":["2025-2026"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, want := rest(t, "POST", srv.URL+"/v1/power/capacity-market-miso/query", tc.args)
			res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "query_power_capacity_market_miso_v1", Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			compare(t, res, want, tc.isErr)
			text := res.Content[0].(*sdk.TextContent).Text
			if !strings.Contains(text, tc.want) {
				t.Errorf("%s lacks %q", text, tc.want)
			}
			if tc.isErr && (!strings.Contains(text, `"code":"invalid_filter"`) || !strings.Contains(text, "planning years before 2024 are not answered")) {
				t.Errorf("not the refusal that says why: %s", text)
			}
		})
	}
}

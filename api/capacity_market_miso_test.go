package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
)

// TestRulePlanningYearsBefore2024RefusedAtQuery is the contract's rule of section 2.4,
// "planning years before 2024 are refused with a message that says why", at query time over
// REST: a planning_year or auction_label filter that names an earlier year, alone or in a
// list, in every form of the params, is 400 invalid_filter naming 2024-2025 as the first
// planning year answered; a served year answers and an unknown later year gets the generic
// refusal. The capability is served from the fixtures in MISO's posting layout.
func TestRulePlanningYearsBefore2024RefusedAtQuery(t *testing.T) {
	srv := newServer(t, testenv.FixtureData(t, market.MISOAuction{}))
	const path = "/v1/power/capacity-market-miso/query"
	q := url.QueryEscape
	for _, tc := range []struct {
		name, method, target, body string
		status                     int
		want                       []string // in the message
	}{
		{"one year", "POST", path, `{"filters":{"planning_year":"2023-2024"}}`, 400,
			[]string{`filter planning_year "2023-2024" is refused`, "planning years before 2024 are not answered", "the first planning_year answered is 2024-2025"}},
		{"a list that includes one", "POST", path, `{"filters":{"planning_year":["2031-2032","2019-2020"]}}`, 400,
			[]string{`"2019-2020" is refused`, "2024-2025"}},
		{"top level", "POST", path, `{"planning_year":"2022-2023","group_by":["zone"]}`, 400, []string{`"2022-2023" is refused`}},
		{"GET pairs", "GET", path + "?planning_year=2023-2024&planning_year=2025-2026", "", 400, []string{`"2023-2024" is refused`, "2024-2025"}},
		{"GET q", "GET", path + "?q=" + q(`{"filters":{"auction_label":"2023-2024 PRA"}}`), "", 400,
			[]string{`filter auction_label "2023-2024 PRA" is refused`, "the first auction_label answered is 2024-2025 PRA"}},
		{"a served year", "POST", path, `{"as_of":"2025-05-29","filters":{"planning_year":"2025-2026"}}`, 200, nil},
		{"the first year answered", "POST", path, `{"as_of":"2024-04-25","filters":{"planning_year":"2024-2025"}}`, 200, nil},
		{"a later year not served", "POST", path, `{"filters":{"planning_year":"2030-2031"}}`, 400, []string{`"2030-2031" is not a value of filter planning_year`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, tc.method, srv.URL+tc.target, []byte(tc.body))
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if status == http.StatusOK {
				var r response
				if err := json.Unmarshal(body, &r); err != nil || len(r.Rows) == 0 {
					t.Fatalf("%v, %s", err, body)
				}
				return
			}
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatal(err)
			}
			if e.Error.Code != "invalid_filter" {
				t.Errorf("code %s, want invalid_filter", e.Error.Code)
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Error.Message, w) {
					t.Errorf("message %q lacks %q", e.Error.Message, w)
				}
			}
			if tc.name == "a later year not served" && strings.Contains(e.Error.Message, "not answered") {
				t.Errorf("a year after the floor got the floor's refusal: %s", e.Error.Message)
			}
		})
	}
	// The schema states the floor of both filters.
	_, body := get(t, srv, "/v1/power/capacity-market-miso/schema")
	var schema struct {
		Filters []struct {
			Name  string `json:"name"`
			First string `json:"first_value_answered"`
			Why   string `json:"before_first_value"`
		} `json:"filters"`
	}
	if err := json.Unmarshal(body, &schema); err != nil {
		t.Fatal(err)
	}
	floors := map[string]string{}
	for _, f := range schema.Filters {
		if f.First != "" && strings.Contains(f.Why, "before 2024") {
			floors[f.Name] = f.First
		}
	}
	if floors["planning_year"] != "2024-2025" || floors["auction_label"] != "2024-2025 PRA" || len(floors) != 2 {
		t.Errorf("floors in the schema %v", floors)
	}
}

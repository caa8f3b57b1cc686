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

// TestRuleCONEInTheUnitItIsStated is the contract's rule of section 2.4 that CONE is recorded
// as stated and never converted, at query time: MISO states seasonal CONE per MW-day and
// annual CONE per MW-year, so the CONE metric answers each in its own unit (summary.units)
// and is null with a mixed_units note over a set holding both, never a maximum across the
// two units. The figures are those printed in the 2025-2026 fixture posting (its README).
func TestRuleCONEInTheUnitItIsStated(t *testing.T) {
	srv := newServer(t, testenv.FixtureData(t, market.MISOAuction{}))
	const path = "/v1/power/capacity-market-miso/query"
	for _, tc := range []struct {
		name, atom string
		want       *float64
		unit       string
		mixed      bool
	}{
		// A set of several units shows the definition's unit text; the value is null.
		{"seasonal and annual together", "", nil, "USD/MW-day", true},
		{"seasonal", "cone_seasonal", ptr(1415.13), "USD/MW-day", false},
		{"annual", "cone_annual", ptr(136170), "USD/MW-year", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"as_of":"2025-04-28"}`
			if tc.atom != "" {
				body = `{"as_of":"2025-04-28","filters":{"atom_type":"` + tc.atom + `"}}`
			}
			status, raw := do(t, "POST", srv.URL+path, []byte(body))
			if status != http.StatusOK {
				t.Fatalf("status %d: %s", status, raw)
			}
			var r response
			var u struct {
				Summary struct {
					Units map[string]string `json:"units"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &u); err != nil {
				t.Fatal(err)
			}
			got := r.Summary.Totals["cone_usd_mw_day"]
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("cone_usd_mw_day %v, want %v", deref(got), deref(tc.want))
			}
			if u.Summary.Units["cone_usd_mw_day"] != tc.unit {
				t.Errorf("unit %q, want %q", u.Summary.Units["cone_usd_mw_day"], tc.unit)
			}
			mixed := false
			for _, n := range r.Summary.Notes {
				mixed = mixed || n.Code == "mixed_units" && n.Metric == "cone_usd_mw_day"
			}
			if mixed != tc.mixed {
				t.Errorf("mixed_units note %v, want %v: %v", mixed, tc.mixed, r.Summary.Notes)
			}
		})
	}
}

func ptr(v float64) *float64 { return &v }

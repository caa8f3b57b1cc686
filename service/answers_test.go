package service

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"strings"
	"testing"
	"time"
)

// answerNote is a note of an answer as the tests read it.
type answerNote struct {
	Code      string `json:"code"`
	Metric    string `json:"metric"`
	Dimension string `json:"dimension"`
	Values    []struct {
		Value any   `json:"value"`
		Rows  int64 `json:"rows"`
	} `json:"values"`
	DateRange  string `json:"date_range"`
	Count      int64  `json:"count"`
	YearFilter string `json:"year_filter"`
	Message    string `json:"message"`
}

// answer is the part of a query payload these tests read.
type answer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Matched int                 `json:"matched_source_rows"`
		Totals  map[string]*float64 `json:"totals"`
		Units   map[string]string   `json:"units"`
		Notes   []answerNote        `json:"notes"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Notes   []answerNote        `json:"notes"`
	} `json:"rows"`
	Citations map[string]json.RawMessage `json:"citations"`
}

func ask(t *testing.T, s *Service, path, params string) (answer, []byte) {
	t.Helper()
	b, e := s.QueryJSON(context.Background(), path, []byte(params))
	if e != nil {
		t.Fatalf("%s %s: %s", path, params, e.Body())
	}
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func notesWith(notes []answerNote, code string) []answerNote {
	var out []answerNote
	for _, n := range notes {
		if n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// TestPartitionNotes checks that an answer spanning several values of a declared partition
// dimension says so, naming the dimension, its values and how to split, and that an answer
// filtered to one value or grouped by it does not.
func TestPartitionNotes(t *testing.T) {
	s := testService(t)
	cases := []struct {
		name, path, params string
		want               map[string][]string // dimension → values named
	}{
		{"capacity of a state, every lifecycle", "power/capacity", `{"filters":{"state":"TX"}}`,
			map[string][]string{"lifecycle": {"canceled_or_postponed", "operating", "planned", "retired"}}},
		{"capacity, two lifecycles", "power/capacity", `{"filters":{"state":"TX","lifecycle":["operating","planned"]}}`,
			map[string][]string{"lifecycle": {"operating", "planned"}}},
		{"capacity, one lifecycle", "power/capacity", `{"filters":{"state":"TX","lifecycle":"operating"}}`, nil},
		{"capacity grouped by lifecycle", "power/capacity", `{"filters":{"state":"TX"},"group_by":["lifecycle"]}`, nil},
		{"gas prices, every atom", "natural-gas/prices", `{}`,
			map[string][]string{"atom": {"henry_hub_daily_spot", "state_electric_power_monthly", "us_electric_power_monthly"}, "unit": {"USD/MMBtu", "USD/Mcf"}}},
		{"gas prices grouped by atom", "natural-gas/prices", `{"group_by":["atom"]}`,
			map[string][]string{"unit": {"USD/MMBtu", "USD/Mcf"}}},
		{"gas prices, one atom", "natural-gas/prices", `{"filters":{"atom":"henry_hub_daily_spot"}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := ask(t, s, tc.path, tc.params)
			got := notesWith(a.Summary.Notes, NoteMixedPartition)
			if len(got) != len(tc.want) {
				t.Fatalf("%d mixed_partition notes, want %d: %+v", len(got), len(tc.want), got)
			}
			for _, n := range got {
				want, ok := tc.want[n.Dimension]
				if !ok {
					t.Fatalf("note on %s, want none", n.Dimension)
				}
				var rows int64
				var names []string
				for _, v := range n.Values {
					names = append(names, v.Value.(string))
					rows += v.Rows
				}
				if strings.Join(names, ",") != strings.Join(want, ",") {
					t.Errorf("%s values %v, want %v", n.Dimension, names, want)
				}
				if rows != int64(a.Summary.Matched) {
					t.Errorf("%s values cover %d rows, %d matched", n.Dimension, rows, a.Summary.Matched)
				}
				if !strings.Contains(n.Message, "filter "+n.Dimension) || !strings.Contains(n.Message, "group_by") {
					t.Errorf("the message does not say how to split: %s", n.Message)
				}
			}
		})
	}
}

// TestUnplacedDateNotes checks that a date range says how many rows it could not place for
// want of a date, and how to reach them.
func TestUnplacedDateNotes(t *testing.T) {
	s := testService(t)
	matched := func(path, params string) int {
		a, _ := ask(t, s, path, params)
		return a.Summary.Matched
	}
	cases := []struct {
		name, path, base, rng, below, above string
		year                                string // the year filter named, "" for none
		yearsInRange                        string // the years the message names
	}{
		{"planned retirement without a month", "power/capacity", `"filters":{"lifecycle":"operating"}`,
			`"planned_retirement_date_from":"2040","planned_retirement_date_to":"2050"`,
			`"planned_retirement_date_to":"2039-12-31"`, `"planned_retirement_date_from":"2051-01-01"`,
			"planned_retirement_year", "2045"},
		{"operating date", "power/capacity", `"filters":{"state":"TX"}`,
			`"operating_date_from":"2000","operating_date_to":"2010"`,
			`"operating_date_to":"1999-12-31"`, `"operating_date_from":"2011-01-01"`,
			"operating_year", ""},
		{"gas observation dates are all published", "natural-gas/prices", `"filters":{"atom":"henry_hub_daily_spot"}`,
			`"observation_date_from":"2020","observation_date_to":"2021"`,
			`"observation_date_to":"2019-12-31"`, `"observation_date_from":"2022-01-01"`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			all := matched(tc.path, "{"+tc.base+"}")
			a, _ := ask(t, s, tc.path, "{"+tc.base+","+tc.rng+"}")
			// Rows the range cannot place: neither in it, nor before it, nor after it.
			want := all - a.Summary.Matched - matched(tc.path, "{"+tc.base+","+tc.below+"}") - matched(tc.path, "{"+tc.base+","+tc.above+"}")
			notes := notesWith(a.Summary.Notes, NoteDateUnplaced)
			if want == 0 {
				if len(notes) != 0 {
					t.Fatalf("no row lacks the date, yet: %+v", notes)
				}
				return
			}
			if len(notes) != 1 || notes[0].Count != int64(want) {
				t.Fatalf("want one date_unplaced note counting %d rows, got %+v", want, notes)
			}
			if notes[0].YearFilter != tc.year || !strings.Contains(notes[0].Message, tc.year) {
				t.Errorf("year filter %q, want %q: %s", notes[0].YearFilter, tc.year, notes[0].Message)
			}
			if tc.yearsInRange != "" && !strings.Contains(notes[0].Message, `"`+tc.year+`":[`+tc.yearsInRange+`]`) {
				t.Errorf("the message does not show the year filter that reaches them: %s", notes[0].Message)
			}
		})
	}
	// The year filter is derived from the definition: the date column's prefix plus _year.
	for _, tc := range []struct{ path, rng, want string }{
		{"power/capacity", "planned_retirement", "planned_retirement_year"},
		{"power/capacity", "operating", "operating_year"},
		{"natural-gas/prices", "observation", ""},
	} {
		c := capabilityAt(t, tc.path)
		for _, r := range c.DateRanges {
			if r.Name != tc.rng {
				continue
			}
			f, ok := yearFilterOf(c, r)
			if got := map[bool]string{true: f.Name}[ok]; got != tc.want {
				t.Errorf("%s %s: year filter %q, want %q", tc.path, tc.rng, got, tc.want)
			}
		}
	}
}

func capabilityAt(t *testing.T, path string) *capability.Capability {
	t.Helper()
	c := capability.ByPath(path)
	if c == nil {
		t.Fatalf("no capability at %s", path)
	}
	return c
}

// TestEveryNullHasANote checks that every null metric value of an answer, on a group row,
// on the (other) row or in summary.totals, has a note naming its metric where it stands.
func TestEveryNullHasANote(t *testing.T) {
	s := testService(t)
	cases := []struct {
		name, path, params string
		codes              []string // note codes the answer must show
	}{
		{"capacity by state with (other)", "power/capacity",
			`{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":3}`, []string{NoteNotAdditive, "not_published"}},
		{"capacity matching nothing", "power/capacity", `{"operating_date_from":"2100"}`, []string{NoteNoRows}},
		{"gas prices by year with (other)", "natural-gas/prices",
			`{"group_by":["year"],"order_by":"observation_count","top_n":2}`, []string{"mixed_units", NoteNotAdditive}},
		{"gas prices by atom", "natural-gas/prices", `{"group_by":["atom"]}`, []string{"mixed_units"}},
		{"gas prices matching nothing", "natural-gas/prices", `{"observation_date_from":"2100"}`, []string{NoteNoRows}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := ask(t, s, tc.path, tc.params)
			seen := map[string]bool{}
			check := func(where string, metrics map[string]*float64, notes []answerNote) {
				for m, v := range metrics {
					if v != nil {
						continue
					}
					found := false
					for _, n := range notes {
						seen[n.Code] = true
						found = found || n.Metric == m
					}
					if !found {
						t.Errorf("%s: %s is null without a note saying why (notes %+v)", where, m, notes)
					}
				}
			}
			check("summary.totals", a.Summary.Totals, a.Summary.Notes)
			for i, r := range a.Rows {
				check(fmt.Sprintf("row %d %v", i, r.Group), r.Metrics, r.Notes)
			}
			for _, code := range tc.codes {
				if !seen[code] {
					t.Errorf("no %s note in the answer", code)
				}
			}
		})
	}
}

// TestUnitsNameTheMatchedUnit checks that summary.units names the unit of the matched rows
// when they share one, and keeps the definition's unit otherwise.
func TestUnitsNameTheMatchedUnit(t *testing.T) {
	s := testService(t)
	cases := []struct {
		name, path, params, metric string
		fromRecords                bool   // want the unit the records carry
		want                       string // else this
	}{
		{"henry hub", "natural-gas/prices", `{"filters":{"atom":"henry_hub_daily_spot"}}`, "avg_price", true, ""},
		{"electric power", "natural-gas/prices", `{"filters":{"series_id":"N3045US3"}}`, "max_price", true, ""},
		{"both series", "natural-gas/prices", `{}`, "avg_price", false, "unit of the series"},
		{"counts keep their unit", "natural-gas/prices", `{"filters":{"atom":"henry_hub_daily_spot"}}`, "observation_count", false, "count"},
		{"capacity", "power/capacity", `{"filters":{"lifecycle":"operating"}}`, "nameplate_mw", false, "MW"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := ask(t, s, tc.path, tc.params)
			want := tc.want
			if tc.fromRecords {
				b, e := s.QueryJSON(context.Background(), tc.path, []byte(strings.TrimSuffix(tc.params, "}")+`,"include_records":true,"limit":5000}`))
				if e != nil {
					t.Fatal(e)
				}
				var recs struct {
					Records []map[string]any `json:"records"`
				}
				if err := json.Unmarshal(b, &recs); err != nil {
					t.Fatal(err)
				}
				units := map[any]bool{}
				for _, r := range recs.Records {
					units[r["unit"]] = true
				}
				if len(units) != 1 {
					t.Fatalf("the records carry %d units", len(units))
				}
				for u := range units {
					want = u.(string)
				}
				if !strings.HasPrefix(want, "USD/") {
					t.Fatalf("unexpected unit %q in the records", want)
				}
			}
			if got := a.Summary.Units[tc.metric]; got != want {
				t.Errorf("units.%s = %q, want %q", tc.metric, got, want)
			}
		})
	}
}

// TestAsOfOnADate checks the as_of form on:YYYY-MM-DD: the newest snapshot on or before the
// date, stated as the answer's as_of, the very bytes of the query pinned to it, never
// itself pinned; a date before every snapshot is a 400 listing the served dates.
func TestAsOfOnADate(t *testing.T) {
	s := testService(t)
	for _, c := range s.Served() {
		if len(c.Inputs) > 0 {
			continue // derived: refused on the files here; TestCapacityFactorFixtures asks it on:
		}
		t.Run(c.ID, func(t *testing.T) {
			_, dates := s.served(c.ID)
			first, last := dates[0], dates[len(dates)-1]
			dayBefore := func(d string) string {
				tm, err := time.Parse("2006-01-02", d)
				if err != nil {
					t.Fatal(err)
				}
				return tm.AddDate(0, 0, -1).Format("2006-01-02")
			}
			for _, tc := range []struct {
				params, want string
			}{
				{`{"as_of":"on:` + first + `"}`, first},
				{`{"as_of":"on:2999-12-31"}`, last},
				{`{"filters":{"as_of":"on:2999-12-31"}}`, last},
			} {
				q, e := s.Prepare(c.Path, mustRaw(t, tc.params))
				if e != nil {
					t.Fatalf("%s: %s", tc.params, e.Body())
				}
				if q.Pinned() {
					t.Errorf("%s is pinned; a snapshot promoted later may be the one in force", tc.params)
				}
				got, e := s.Run(context.Background(), q)
				if e != nil {
					t.Fatal(e)
				}
				pinned, _ := ask(t, s, c.Path, `{"as_of":"`+tc.want+`"}`)
				_, want := ask(t, s, c.Path, `{"as_of":"`+pinned.AsOf+`"}`)
				if string(got) != string(want) {
					t.Errorf("%s: the answer differs from the one pinned to %s", tc.params, tc.want)
				}
			}
			for _, tc := range []struct{ params, want string }{
				{`{"as_of":"on:` + dayBefore(first) + `"}`, "before every snapshot"},
				{`{"as_of":"on:2017-02-30"}`, "not on:YYYY-MM-DD"},
				{`{"as_of":"on:yesterday"}`, "not on:YYYY-MM-DD"},
			} {
				_, e := s.QueryJSON(context.Background(), c.Path, []byte(tc.params))
				if e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidParameter || !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, first) {
					t.Errorf("%s: got %v, want a 400 saying %q and listing %s", tc.params, e, tc.want, first)
				}
			}
		})
	}
	// power.capacity's only snapshot (May 2016) is the one in force on 2017-01-01;
	// natural_gas.prices has none then.
	if a, _ := ask(t, s, "power/capacity", `{"as_of":"on:2017-01-01"}`); a.AsOf != "2016-05-31" {
		t.Errorf("power.capacity on 2017-01-01 resolves to %s, want 2016-05-31", a.AsOf)
	}
	if _, e := s.QueryJSON(context.Background(), "natural-gas/prices", []byte(`{"as_of":"on:2017-01-01"}`)); e == nil || !strings.Contains(e.Message, "2024-07-10") {
		t.Errorf("natural_gas.prices on 2017-01-01: got %v, want a 400 listing 2024-07-10", e)
	}
}

func mustRaw(t *testing.T, params string) *Request {
	t.Helper()
	raw, e := ParseBody([]byte(params))
	if e != nil {
		t.Fatal(e)
	}
	return raw
}

// TestSchemaNamesPartitions checks that the describe payload lists the partitions.
func TestSchemaNamesPartitions(t *testing.T) {
	s := testService(t)
	for path, want := range map[string]string{"power/capacity": "lifecycle", "natural-gas/prices": "atom,unit"} {
		b, e := s.Schema(path)
		if e != nil {
			t.Fatal(e)
		}
		var doc struct {
			Partitions []string `json:"partitions"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(doc.Partitions, ","); got != want {
			t.Errorf("%s partitions %q, want %q", path, got, want)
		}
	}
}

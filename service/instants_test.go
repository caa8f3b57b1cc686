package service

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/citeq/citeq/apierror"
)

// TestInstantBounds checks date-range bounds given as RFC 3339 timestamps on the two
// capabilities whose ranges are over instants (power.demand: hour_ending_utc; the rollup:
// the first and last hour of each period), driven by the definitions: the canonical echo is
// the UTC instant, a whole UTC day asked as its first and last hour ending equals the day
// asked as a date, and the forms a range cannot take are refused with what to send instead.
func TestInstantBounds(t *testing.T) {
	s := testService(t)

	type echo struct {
		Query map[string]any `json:"query"`
	}
	t.Run("echo in UTC", func(t *testing.T) {
		_, b := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-18t17:00-08:00","utc_date_to":"2022-02-19T09:30:00.25Z"}`)
		var e echo
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		if e.Query["utc_date_from"] != "2022-02-19T01:00:00Z" || e.Query["utc_date_to"] != "2022-02-19T09:30:00Z" {
			t.Errorf("echo %v %v", e.Query["utc_date_from"], e.Query["utc_date_to"])
		}
	})

	t.Run("a UTC day as a date and as its hours ending", func(t *testing.T) {
		day, _ := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-18","utc_date_to":"2022-02-18"}`)
		inst, _ := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-18T01:00:00Z","utc_date_to":"2022-02-19T00:00:00Z"}`)
		for _, m := range []string{"demand_mwh", "hours_present", "peak_demand_mwh"} {
			if day.Summary.Totals[m] == nil || inst.Summary.Totals[m] == nil || *day.Summary.Totals[m] != *inst.Summary.Totals[m] {
				t.Errorf("%s: by date %v, by timestamps %v", m, day.Summary.Totals[m], inst.Summary.Totals[m])
			}
		}
		if *inst.Summary.Totals["hours_present"] != 24 {
			t.Errorf("%v hours", *inst.Summary.Totals["hours_present"])
		}
	})

	t.Run("the same instant in the utc and the local range", func(t *testing.T) {
		u, _ := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-19T02:00:00-08:00"}`)
		l, _ := ask(t, s, "power/demand", `{"local_date_from":"2022-02-19T10:00:00Z"}`)
		if *u.Summary.Totals["demand_mwh"] != *l.Summary.Totals["demand_mwh"] || *u.Summary.Totals["hours_present"] != 10 {
			t.Errorf("utc %v, local %v", *u.Summary.Totals["demand_mwh"], *l.Summary.Totals["demand_mwh"])
		}
	})

	t.Run("a + lost to URL decoding", func(t *testing.T) {
		raw, e := ParseRawQuery("utc_date_from=2022-02-19T18:00:00+08:00")
		if e != nil {
			t.Fatal(e.Body())
		}
		b, e := s.QueryRequest(context.Background(), "power/demand", raw)
		if e != nil {
			t.Fatal(e.Body())
		}
		var echo struct {
			Query map[string]any `json:"query"`
		}
		json.Unmarshal(b, &echo)
		if echo.Query["utc_date_from"] != "2022-02-19T10:00:00Z" {
			t.Errorf("echo %v", echo.Query["utc_date_from"])
		}
	})

	t.Run("GET pairs", func(t *testing.T) {
		q := url.Values{"utc_date_from": {"2022-02-19T02:00:00-08:00"}}
		raw, e := ParseRawQuery(q.Encode())
		if e != nil {
			t.Fatal(e.Body())
		}
		b, e := s.QueryRequest(context.Background(), "power/demand", raw)
		if e != nil {
			t.Fatal(e.Body())
		}
		post, _ := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-19T10:00:00Z"}`)
		var a answer
		json.Unmarshal(b, &a)
		if *a.Summary.Totals["demand_mwh"] != *post.Summary.Totals["demand_mwh"] {
			t.Errorf("GET %v, POST %v", *a.Summary.Totals["demand_mwh"], *post.Summary.Totals["demand_mwh"])
		}
	})

	t.Run("the rollup keeps whole periods", func(t *testing.T) {
		a, b := ask(t, s, "power/demand-rollup", `{"filters":{"rollup_basis":"day UTC"},"period_date_from":"2022-02-01T00:00:00Z","period_date_to":"2022-02-10T00:00:00Z","group_by":["period"]}`)
		if len(a.Rows) != 9 || a.Rows[0].Group["period"] != "2022-02-01" || a.Rows[8].Group["period"] != "2022-02-09" {
			t.Errorf("%d periods: %.300s", len(a.Rows), b)
		}
		// The citations' lineage filters name the instant fields the bounds compare.
		var cited citedAnswer
		json.Unmarshal(b, &cited)
		for _, raw := range cited.Citations {
			var c struct {
				LF struct {
					DateRanges map[string]struct{ From, To string } `json:"date_ranges"`
				} `json:"lineage_filter"`
			}
			json.Unmarshal(raw, &c)
			if c.LF.DateRanges["first_hour_ending_utc"].From != "2022-02-01T00:00:00Z" || c.LF.DateRanges["last_hour_ending_utc"].To != "2022-02-10T00:00:00Z" {
				t.Errorf("lineage date_ranges %+v", c.LF.DateRanges)
			}
		}
	})

	t.Run("aggregate evidence over instant bounds", func(t *testing.T) {
		_, b := ask(t, s, "power/demand", `{"utc_date_from":"2022-02-19T10:00:00Z"}`)
		var cited citedAnswer
		json.Unmarshal(b, &cited)
		for _, ref := range cited.Summary.Refs {
			v, e := verifyAggregate(t, s, map[string]any{"capability": "power.demand", "metric": "demand_mwh", "citation": cited.Citations[ref]})
			if e != nil {
				t.Fatal(e.Body())
			}
			if !v.Verified || !v.Equal || v.Rows != 10 || v.Recomputed == nil || *v.Recomputed != *cited.Summary.Totals["demand_mwh"] {
				t.Errorf("verdict %+v", v)
			}
		}
	})

	for _, tc := range []struct{ name, path, params, want string }{
		{"no time zone", "power/demand", `{"utc_date_from":"2022-02-19T10:00:00"}`, "no time zone"},
		{"not a timestamp", "power/demand", `{"utc_date_to":"2022-02-19T25:00:00Z"}`, "not an RFC 3339 timestamp"},
		{"garbage", "power/demand", `{"utc_date_to":"yesterday"}`, "RFC 3339 timestamp such as"},
		{"from after to", "power/demand", `{"utc_date_from":"2022-02-19T10:00:00Z","utc_date_to":"2022-02-19T09:00:00Z"}`, "is after"},
		{"a range over dates only", "power/capacity", `{"operating_date_from":"2010-01-01T00:00:00Z"}`, "compares dates only"},
		{"dates only, the forms", "natural-gas/prices", `{"observation_date_to":"2020-01"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := s.QueryJSON(context.Background(), tc.path, []byte(tc.params))
			if tc.want == "" {
				if e != nil {
					t.Fatal(e.Body())
				}
				return
			}
			if e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidParameter || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("got %v, want a 400 invalid_parameter saying %q", e, tc.want)
			}
		})
	}

	t.Run("the schema states the zone and the convention", func(t *testing.T) {
		for _, p := range []string{"power/demand", "power/demand-rollup"} {
			b, e := s.Schema(p)
			if e != nil {
				t.Fatal(e.Body())
			}
			var doc struct {
				DateRanges []struct {
					Format   string `json:"format"`
					Instants struct {
						From, To   string
						TimeZone   string `json:"time_zone"`
						Convention string `json:"convention"`
					} `json:"instants"`
				} `json:"date_ranges"`
			}
			json.Unmarshal(b, &doc)
			for _, r := range doc.DateRanges {
				if r.Instants.TimeZone != "UTC" || !strings.Contains(r.Instants.Convention, "hour ending") && !strings.Contains(r.Instants.Convention, "hour") ||
					!strings.Contains(r.Format, "RFC 3339") || !strings.Contains(r.Format, "inclusive") {
					t.Errorf("%s: %+v", p, r)
				}
			}
		}
	})
}

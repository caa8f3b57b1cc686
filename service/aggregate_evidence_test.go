package service

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// aggregateVerdict is the part of an aggregate evidence answer the tests read.
type aggregateVerdict struct {
	Verified   bool     `json:"verified"`
	Equal      bool     `json:"equal"`
	Recomputed *float64 `json:"recomputed"`
	Served     *float64 `json:"served"`
	Rows       int64    `json:"rows"`
	CellsRead  int      `json:"cells_read"`
	Computed   string   `json:"computed_sha256"`
	Unit       string   `json:"unit"`
}

type citedAnswer struct {
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Lineage struct {
			Ref  string   `json:"citation_ref"`
			Refs []string `json:"citation_refs"`
		} `json:"lineage"`
	} `json:"rows"`
	Summary struct {
		Totals map[string]*float64 `json:"totals"`
		Refs   []string            `json:"citation_refs"`
	} `json:"summary"`
	Citations map[string]json.RawMessage `json:"citations"`
}

func verifyAggregate(t *testing.T, s *Service, body any) (aggregateVerdict, *Error) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	out, e := s.AggregateEvidenceJSON(b)
	if e != nil {
		return aggregateVerdict{}, e
	}
	var v aggregateVerdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v, nil
}

// TestAggregateEvidence recomputes every metric of every cited group — (other) and the
// whole matched set included — from the literal cells of the raw files, and checks that
// it equals the figure served, that the lineage filter selects exactly the cited rows, and
// that a group cited by one file has the figure its row shows.
func TestAggregateEvidence(t *testing.T) {
	s := openAPIService(t)
	cases := []struct{ path, params string }{
		{"power/capacity", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":3}`},
		{"power/capacity", `{"group_by":["lifecycle"]}`},
		{"power/capacity", `{"filters":{"state":["TX","RI"]},"group_by":["planned_retirement_year"],"planned_retirement_date_from":"2020"}`},
		{"natural-gas/prices", `{"group_by":["atom","year"],"filters":{"year":[2008,2009,2010],"atom":["henry_hub_daily_spot","us_electric_power_monthly"]},"order_by":"avg_price","top_n":2}`},
		{"natural-gas/prices", `{"filters":{"atom":"us_electric_power_monthly"},"observation_date_from":"2015","observation_date_to":"2016"}`},
		// Medians and percentiles, recomputed from the cells of every cited group.
		{"power/price-ercot", `{"as_of":"2024-12-31","filters":{"month":"2024-07","settlement_point_type":"hub"},"group_by":["settlement_point"],"order_by":"median_price","top_n":2}`},
		{"power/interconnection-queue", `{"as_of":"2025-05-09","group_by":["status"],"order_by":"median_requested_mw","top_n":2}`},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.params, func(t *testing.T) {
			c := capabilityAt(t, tc.path)
			b, e := s.QueryJSON(tc.path, []byte(tc.params))
			if e != nil {
				t.Fatal(e)
			}
			var a citedAnswer
			if err := json.Unmarshal(b, &a); err != nil {
				t.Fatal(err)
			}
			// Each citation: every metric recomputed from its cells equals the served figure.
			rowsOf := map[string]int64{}
			for id, cite := range a.Citations {
				var head struct {
					Rows   int64           `json:"source_rows_count"`
					LF     json.RawMessage `json:"lineage_filter"`
					AsOf   string          `json:"as_of"`
					Verify json.RawMessage `json:"verify"`
				}
				if err := json.Unmarshal(cite, &head); err != nil {
					t.Fatal(err)
				}
				for _, m := range c.MetricNames() {
					v, e := verifyAggregate(t, s, map[string]any{"capability": c.ID, "metric": m, "citation": cite})
					if e != nil {
						t.Fatalf("%s %s: %s", id, m, e.Body())
					}
					if !v.Verified || !v.Equal {
						t.Errorf("%s %s: recomputed %v, served %v", id, m, deref(v.Recomputed), deref(v.Served))
					}
					if v.Rows != head.Rows {
						t.Errorf("%s %s: the lineage filter selects %d rows, the citation cites %d", id, m, v.Rows, head.Rows)
					}
					rowsOf[id] = v.Rows
				}
				// The lineage_filter with as_of is the same request.
				v, e := verifyAggregate(t, s, map[string]any{"capability": c.Path, "metric": c.Metrics[0].Name, "lineage_filter": head.LF, "as_of": head.AsOf})
				if e != nil || v.Rows != head.Rows {
					t.Errorf("%s by lineage_filter: %v, %d rows", id, e, v.Rows)
				}
			}
			// A row cited by one file has exactly the recomputed figures.
			for _, r := range a.Rows {
				if len(r.Lineage.Refs) > 1 || r.Lineage.Ref == "" {
					continue
				}
				other := false
				for _, v := range r.Group {
					other = other || v == OtherGroup
				}
				for _, m := range c.MetricNames() {
					if mm, _ := c.Metric(m); !mm.Additive && other {
						continue // (other) shows null for it: its groups' values do not add
					}
					v, e := verifyAggregate(t, s, map[string]any{"capability": c.ID, "metric": m, "citation": a.Citations[r.Lineage.Ref]})
					if e != nil {
						t.Fatal(e)
					}
					want := r.Metrics[m]
					if (want == nil) != (v.Recomputed == nil) || (want != nil && !sameFigure(Num{V: *want, Valid: true}, Num{V: *v.Recomputed, Valid: true})) {
						t.Errorf("row %v %s: shows %v, recomputed %v", r.Group, m, deref(want), deref(v.Recomputed))
					}
				}
			}
		})
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// oneColumnQuery selects, per capability, rows of files whose values sit one column per
// field (the state electric-power workbook of natural_gas.prices holds one column per state,
// so its prices record no single column and cannot be recomputed).
var oneColumnQuery = map[string]string{
	"power/capacity":     `{}`,
	"natural-gas/prices": `{"filters":{"atom":["henry_hub_daily_spot","us_electric_power_monthly"]}}`,
}

// TestAggregateEvidenceRefusals checks the structured errors of the aggregate evidence, over
// both served capabilities.
func TestAggregateEvidenceRefusals(t *testing.T) {
	s := openAPIService(t)
	for _, path := range []string{"power/capacity", "natural-gas/prices"} {
		c := capabilityAt(t, path)
		b, e := s.QueryJSON(path, []byte(oneColumnQuery[path]))
		if e != nil {
			t.Fatal(e)
		}
		var a citedAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		cite := a.Citations[a.Summary.Refs[0]]
		var lf map[string]any
		var head struct {
			LF   json.RawMessage `json:"lineage_filter"`
			AsOf string          `json:"as_of"`
		}
		if err := json.Unmarshal(cite, &head); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(head.LF, &lf); err != nil {
			t.Fatal(err)
		}
		withLF := func(edit func(map[string]any)) map[string]any {
			cp := map[string]any{}
			for k, v := range lf {
				cp[k] = v
			}
			edit(cp)
			return map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "lineage_filter": cp, "as_of": head.AsOf}
		}
		cases := []struct {
			name string
			body any
			code string
		}{
			{"no citation", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name}, CodeInvalidRequest},
			{"unknown capability", map[string]any{"capability": "power.nothing", "metric": "x", "citation": cite}, CodeInvalidRequest},
			{"unknown metric", map[string]any{"capability": c.ID, "metric": "megawatts", "citation": cite}, CodeInvalidParameter},
			{"unknown member", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "citation": cite, "metrics": "x"}, CodeInvalidRequest},
			{"as_of not served", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "lineage_filter": head.LF, "as_of": "1999-01-01"}, CodeInvalidParameter},
			{"other file", withLF(func(m map[string]any) { m["raw_file_sha256"] = strings.Repeat("0", 64) }), CodeEvidenceLineage},
			{"not a dimension", withLF(func(m map[string]any) { m["filters"] = map[string]any{"plant_name": []any{"x"}} }), CodeEvidenceLineage},
			{"not a date range", withLF(func(m map[string]any) {
				m["date_ranges"] = map[string]any{"as_of": map[string]any{"from": "", "to": ""}}
			}), CodeEvidenceLineage},
		}
		for _, tc := range cases {
			t.Run(path+" "+tc.name, func(t *testing.T) {
				_, e := verifyAggregate(t, s, tc.body)
				if e == nil || e.Status != 400 || e.Code != tc.code {
					t.Fatalf("got %v, want a 400 %s", e, tc.code)
				}
			})
		}
	}

	// A raw file changed on disk since ingest is refused, as is a snapshot that does not
	// record its cells' columns.
	dir := testenv.CopyDir(t, testenv.Data(t))
	broken, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"power/capacity", "natural-gas/prices"} {
		c := capabilityAt(t, path)
		b, e := broken.QueryJSON(path, []byte(oneColumnQuery[path]))
		if e != nil {
			t.Fatal(e)
		}
		var a citedAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatal(err)
		}
		cite := a.Citations[a.Summary.Refs[0]]
		var head struct {
			SHA  string `json:"raw_file_sha256"`
			File string `json:"source_file"`
		}
		if err := json.Unmarshal(cite, &head); err != nil {
			t.Fatal(err)
		}
		raw := broken.Store().Raw().Find(head.SHA)
		f, err := os.OpenFile(raw, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte{0}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, e := verifyAggregate(t, broken, map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "citation": cite}); e == nil || e.Code != CodeEvidenceHash {
			t.Errorf("%s: a changed raw file gives %v, want %s", path, e, CodeEvidenceHash)
		}
		// The snapshot without its cells' columns.
		snap, _ := broken.snapshot(c, "latest")
		for name, src := range snap.sources {
			src.Cells, src.ColumnsBy = nil, nil
			snap.sources[name] = src
		}
		_, e = verifyAggregate(t, broken, map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "citation": cite})
		if e == nil || e.Code != CodeEvidenceCellsUnknown || !strings.Contains(e.Message, filepath.Join("snapshots", c.ID)) && !strings.Contains(e.Message, "citeq ingest") {
			t.Errorf("%s: a snapshot without cells gives %v, want %s", path, e, CodeEvidenceCellsUnknown)
		}
	}
}

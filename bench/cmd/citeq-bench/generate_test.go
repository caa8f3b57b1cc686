package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// TestGeneratedQueries: the real data directory yields one dataset per served capability,
// the two existing ones with the six kinds of question, all with bodies that validate, whose SQL reads columns of its
// fact table and selects what the comparison expects; the citeq engine path and the service
// answer each alike (the check every benchmark run makes before reporting a time).
func TestGeneratedQueries(t *testing.T) {
	data := testenv.Data(t)
	datasets, err := realDatasets(data)
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, ds := range datasets {
		caps = append(caps, ds.Capability)
	}
	for _, want := range []string{capability.PowerCapacity.ID, capability.NaturalGasPrices.ID} {
		if !slices.Contains(caps, want) {
			t.Fatalf("datasets %q lack %s", caps, want)
		}
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range datasets {
		c := capability.ByID(ds.Capability)
		var gen []Query
		for _, q := range ds.queries {
			if strings.HasPrefix(q.Name, c.ToolName()+"/") {
				gen = append(gen, q)
			}
		}
		// Both capabilities have dimensions and filters, so they get every kind of question (a
		// capability without them gets the total and the records only).
		kinds := []string{"/total", "/records_limit"}
		if c == capability.PowerCapacity || c == capability.NaturalGasPrices {
			kinds = append(kinds, "/by_", "/top", "_eq")
			if n := len(gen); n != 6 {
				t.Errorf("%s: %d generated questions %v, want 6", c.ID, n, names(gen))
			}
		}
		for _, k := range kinds {
			if !slices.ContainsFunc(gen, func(q Query) bool { return strings.Contains(q.Name, k) }) {
				t.Errorf("%s: no %s question among %v", c.ID, k, names(gen))
			}
		}
		for _, q := range gen {
			t.Run(q.Name, func(t *testing.T) {
				_, p, _, err := validate(svc, q)
				if err != nil {
					t.Fatalf("body %s: %v", q.Body, err)
				}
				if cols := tableColumns([]Query{q}, snapshots.Columns(c)); len(cols) == 0 {
					t.Errorf("SQL names no column of %s: %s", c.ID, q.SQL)
				}
				for _, k := range p.GroupBy {
					if !strings.Contains(q.SQL, quoteIdent(k)) {
						t.Errorf("SQL does not group by %s: %s", k, q.SQL)
					}
				}
				for _, m := range c.Metrics {
					if !strings.Contains(q.SQL+q.SummarySQL, sqlGen{c}.metric(m)) {
						t.Errorf("SQL lacks metric %s: %s", m.Name, q.SQL)
					}
				}
				if q.Records && (q.SummarySQL == "" || q.RecordKey != capability.FieldRecordKey) {
					t.Errorf("records question without summary or record key: %+v", q)
				}
			})
		}
	}
	// The question sets are deterministic.
	again, err := realDatasets(data)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(allQueries(datasets))
	b, _ := json.Marshal(allQueries(again))
	if string(a) != string(b) {
		t.Error("two generations differ")
	}
	// Every citeq path answers every question alike (measureDataset fails otherwise); with
	// the DuckDB runner built (make bench builds it into bench/.cache), DuckDB answers alike too.
	duck := filepath.Join(testenv.RepoRoot(t), "bench", ".cache", "duckdb-bench")
	if _, err := os.Stat(duck); err != nil {
		duck = ""
	}
	for _, ds := range datasets {
		run, err := measureDataset(ds, 0, 1, "")
		if err != nil {
			t.Fatalf("%s: %v", ds.Name, err)
		}
		if duck == "" {
			continue
		}
		set := duckSettings{TempDirectory: t.TempDir(), TableStorage: "memory"}
		if _, err := measureDuckDB(duck, ds, run, 0, 1, false, set); err != nil {
			t.Errorf("%s: %v", ds.Name, err)
		}
	}
	if duck == "" {
		t.Log("bench/.cache/duckdb-bench not built: DuckDB's answers not checked (make bench builds it)")
	}
}

func names(qs []Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Name
	}
	return out
}

// TestMetricSQL: each aggregation's SQL, the unit-column rule where the engine applies it,
// and the declarations that withhold a value (one period, shares).
func TestMetricSQL(t *testing.T) {
	c := &capability.Capability{Fields: []capability.Field{
		{Name: "price", Type: capability.Number}, {Name: "n", Type: capability.Integer}, {Name: "unit", Type: capability.String}, {Name: "name", Type: capability.String}}}
	g := sqlGen{c}
	for _, tc := range []struct {
		m    capability.Metric
		want string
	}{
		{capability.Metric{Agg: capability.Count}, `count(*)`},
		{capability.Metric{Agg: capability.CountNonNull, Column: "name", UnitColumn: "unit"}, `count("name")`},
		{capability.Metric{Agg: capability.CountDistinct, Column: "name"}, `count(DISTINCT "name")`},
		{capability.Metric{Agg: capability.Sum, Column: "n"}, `sum("n")::DOUBLE`},
		{capability.Metric{Agg: capability.Ratio, Column: "price", Denominator: "n"}, `(sum("price")::DOUBLE / nullif(sum("n")::DOUBLE, 0))`},
		{capability.Metric{Agg: capability.Avg, Column: "price", UnitColumn: "unit"},
			`CASE WHEN count(DISTINCT "unit") FILTER (WHERE "price" IS NOT NULL) + coalesce(bool_or("unit" IS NULL) FILTER (WHERE "price" IS NOT NULL), false)::INT > 1 THEN NULL ELSE avg("price")::DOUBLE END`},
		{capability.Metric{Agg: capability.CountNonNull, Column: "price", UnitColumn: "unit"},
			`CASE WHEN count(DISTINCT "unit") FILTER (WHERE "price" IS NOT NULL) + coalesce(bool_or("unit" IS NULL) FILTER (WHERE "price" IS NOT NULL), false)::INT > 1 THEN NULL ELSE count("price") END`},
	} {
		if got := g.metric(tc.m); got != tc.want {
			t.Errorf("%s(%s):\n got %s\nwant %s", tc.m.Agg, tc.m.Column, got, tc.want)
		}
	}
	// The declarations withhold a value as the service does.
	c.Fields = append(c.Fields, capability.Field{Name: "period", Type: capability.Date})
	c.Periods = &capability.Periods{Field: "period", Value: "price"}
	for _, tc := range []struct {
		m    capability.Metric
		want string
	}{
		{capability.Metric{Agg: capability.Sum, Column: "price", OnePeriod: &capability.Why{}},
			`CASE WHEN count(DISTINCT "period") FILTER (WHERE "price" IS NOT NULL) > 1 THEN NULL ELSE sum("price")::DOUBLE END`},
		{capability.Metric{Agg: capability.Avg, Column: "price", UnitColumn: "unit", Shares: &capability.Shares{Units: []string{"percent", "it's"}}},
			`CASE WHEN count(*) FILTER (WHERE "unit" IN ('percent', 'it''s') AND "price" IS NOT NULL) > 1 THEN NULL ELSE ` +
				`CASE WHEN count(DISTINCT "unit") FILTER (WHERE "price" IS NOT NULL) + coalesce(bool_or("unit" IS NULL) FILTER (WHERE "price" IS NOT NULL), false)::INT > 1 THEN NULL ELSE avg("price")::DOUBLE END END`},
	} {
		if got := g.metric(tc.m); got != tc.want {
			t.Errorf("%s(%s) declared:\n got %s\nwant %s", tc.m.Agg, tc.m.Column, got, tc.want)
		}
	}
	if literal(capability.String, "O'Brien") != `'O''Brien'` || literal(capability.Integer, "2020") != "2020" || literal(capability.Boolean, "true") != "true" {
		t.Error("literal")
	}
}

package api_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/capability/captest"
	"github.com/citeq/citeq/snapshots"
)

// numericCap is a test capability whose measures are also dimensions: households is an
// Integer that filters and groups (held as dictionary codes) and is summed; price is a Number
// that filters and groups and is averaged; persons is an Integer measure only, land a Number
// measure only; a ratio divides two integer columns.
func numericCap() *capability.Capability {
	return &capability.Capability{
		ID: "testonly.numeric", Path: "testonly/numeric", Title: "numeric test", Description: "integer and number measures that also group",
		Grain: "one row", Cadence: capability.Annual, Publisher: "test", AsOfRule: "fixed",
		Documents:  capability.Documents{Relation: capability.Restate, Document: "one synthetic table"},
		NaturalKey: []string{"row_id"},
		Fields: []capability.Field{
			{Name: "row_id", Type: capability.Integer, Description: "row id"},
			{Name: "region", Type: capability.String, Filter: true, GroupBy: true, Description: "region"},
			{Name: "households", Type: capability.Integer, Filter: true, GroupBy: true, Description: "households"},
			{Name: "price", Type: capability.Number, Filter: true, GroupBy: true, Description: "price"},
			{Name: "persons", Type: capability.Integer, Description: "persons"},
			{Name: "land", Type: capability.Number, Description: "land area"},
		},
		Metrics: []capability.Metric{
			{Name: "sum_households", Unit: "count", Agg: capability.Sum, Column: "households", Additive: true, Description: "d"},
			{Name: "avg_households", Unit: "count", Agg: capability.Avg, Column: "households", Description: "d"},
			{Name: "min_households", Unit: "count", Agg: capability.Min, Column: "households", Description: "d"},
			{Name: "max_households", Unit: "count", Agg: capability.Max, Column: "households", Description: "d"},
			{Name: "avg_price", Unit: "USD", Agg: capability.Avg, Column: "price", Description: "d"},
			{Name: "sum_price", Unit: "USD", Agg: capability.Sum, Column: "price", Additive: true, Description: "d"},
			{Name: "min_price", Unit: "USD", Agg: capability.Min, Column: "price", Description: "d"},
			{Name: "max_price", Unit: "USD", Agg: capability.Max, Column: "price", Description: "d"},
			{Name: "sum_persons", Unit: "count", Agg: capability.Sum, Column: "persons", Additive: true, Description: "d"},
			{Name: "min_persons", Unit: "count", Agg: capability.Min, Column: "persons", Description: "d"},
			{Name: "avg_land", Unit: "km2", Agg: capability.Avg, Column: "land", Description: "d"},
			{Name: "max_land", Unit: "km2", Agg: capability.Max, Column: "land", Description: "d"},
			{Name: "persons_per_household", Unit: "ratio", Agg: capability.Ratio, Column: "persons", Denominator: "households", Description: "d"},
			{Name: "priced_rows", Unit: "count", Agg: capability.CountNonNull, Column: "price", Additive: true, Description: "d"},
			{Name: "rows", Unit: "count", Agg: capability.Count, Additive: true, Description: "d"},
		},
	}
}

// numRow is one test row; nil pointers are nulls.
type numRow struct {
	region              string
	households, persons *int64
	price, land         *float64
}

// writeNumeric writes rows as a promoted snapshot of c in a new data directory.
func writeNumeric(t *testing.T, c *capability.Capability, rows []numRow) string {
	t.Helper()
	const asOf, file, sha = "2024-01-01", "numeric.csv", "0000000000000000000000000000000000000000000000000000000000000001"
	data := t.TempDir()
	store := &snapshots.Store{Dir: data}
	m := &snapshots.Manifest{Capability: c.ID, AsOf: asOf, Fingerprint: "f1", SchemaVersion: snapshots.SchemaVersion,
		Status: snapshots.Promoted, Rows: len(rows), Gates: []snapshots.Gate{{Name: "test", Passed: true}},
		Sources: []snapshots.Source{{SourceID: "test", Publisher: "test", URL: "https://example.org/numeric.csv", File: file, SHA256: sha, Role: "data"}}}
	m.Dir = store.SnapshotDir(c.ID, asOf, m.Fingerprint)
	cols := snapshots.Columns(c)
	var facts []snapshots.Row
	for i, r := range rows {
		vals := map[string]any{
			"row_id": int64(i), "region": r.region, "source_id": "test", "as_of": asOf,
			"source_record_key": strconv.Itoa(i), "source_row_number": int64(i + 2), "raw_file_sha256": sha,
			capability.ColSourceID: "test", capability.ColSourceFile: file, capability.ColSheet: "",
			capability.ColSourceRow: int64(i + 2), capability.ColRawSHA256: sha,
		}
		if r.households != nil {
			vals["households"] = *r.households
		}
		if r.persons != nil {
			vals["persons"] = *r.persons
		}
		if r.price != nil {
			vals["price"] = *r.price
		}
		if r.land != nil {
			vals["land"] = *r.land
		}
		row := make(snapshots.Row, len(cols))
		for j, f := range cols {
			row[j] = vals[f.Name]
		}
		facts = append(facts, row)
	}
	if err := os.MkdirAll(m.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := snapshots.WriteFacts(m.FactsPath(), cols, facts); err != nil {
		t.Fatal(err)
	}
	if err := snapshots.WriteJSONAtomic(filepath.Join(m.Dir, snapshots.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	if err := store.Promote(m); err != nil {
		t.Fatal(err)
	}
	return data
}

// numericRows are deterministic rows with nulls in every measure, repeated measure values
// (so they group), large integers and prices whose text is not their shortest decimal.
func numericRows() []numRow {
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	regions := []string{"north", "south", "east"}
	households := []int64{0, 7, 12, 1 << 40, 250000, -3}
	prices := []float64{2.5, 0.1, 3.75, 1e6 + 0.25, 0.3, 2.5}
	var rows []numRow
	for i := range 300 {
		r := numRow{region: regions[i%len(regions)]}
		if i%11 != 0 {
			r.households = i64(households[(i*7)%len(households)])
		}
		if i%5 != 0 {
			r.persons = i64(int64(i*13%97) + 1)
		}
		if i%7 != 0 {
			r.price = f64(prices[(i*5)%len(prices)] * float64(1+i%2))
		}
		if i%4 != 1 {
			r.land = f64(float64(i*37%101) / 8)
		}
		rows = append(rows, r)
	}
	return rows
}

// refStats are the metrics of a set of rows, computed directly from them.
type refStats struct {
	rows, hhN, priceN, personsN int
	hhSum, personsSum, priceSum float64
	hhMin, hhMax                int64
	priceMin, priceMax          float64
	personsMin                  int64
	landN                       int
	landSum, landMax            float64
}

func (st *refStats) add(r numRow) {
	st.rows++
	if r.households != nil {
		h := *r.households
		if st.hhN == 0 || h < st.hhMin {
			st.hhMin = h
		}
		if st.hhN == 0 || h > st.hhMax {
			st.hhMax = h
		}
		st.hhN++
		st.hhSum += float64(h)
	}
	if r.price != nil {
		p := *r.price
		if st.priceN == 0 || p < st.priceMin {
			st.priceMin = p
		}
		if st.priceN == 0 || p > st.priceMax {
			st.priceMax = p
		}
		st.priceN++
		st.priceSum += p
	}
	if r.persons != nil {
		if st.personsN == 0 || *r.persons < st.personsMin {
			st.personsMin = *r.persons
		}
		st.personsN++
		st.personsSum += float64(*r.persons)
	}
	if r.land != nil {
		if st.landN == 0 || *r.land > st.landMax {
			st.landMax = *r.land
		}
		st.landN++
		st.landSum += *r.land
	}
}

// want is the expected value of each metric (nil: null).
func (st *refStats) want() map[string]*float64 {
	v := func(x float64) *float64 { return &x }
	out := map[string]*float64{"rows": v(float64(st.rows)), "priced_rows": v(float64(st.priceN))}
	if st.hhN > 0 {
		out["sum_households"] = v(st.hhSum)
		out["avg_households"] = v(st.hhSum / float64(st.hhN))
		out["min_households"] = v(float64(st.hhMin))
		out["max_households"] = v(float64(st.hhMax))
	}
	if st.priceN > 0 {
		out["avg_price"] = v(st.priceSum / float64(st.priceN))
		out["sum_price"] = v(st.priceSum)
		out["min_price"] = v(st.priceMin)
		out["max_price"] = v(st.priceMax)
	}
	if st.personsN > 0 {
		out["sum_persons"] = v(st.personsSum)
		out["min_persons"] = v(float64(st.personsMin))
	}
	if st.landN > 0 {
		out["avg_land"] = v(st.landSum / float64(st.landN))
		out["max_land"] = v(st.landMax)
	}
	if st.personsN > 0 && st.hhN > 0 && st.hhSum != 0 {
		out["persons_per_household"] = v(st.personsSum / st.hhSum)
	}
	return out
}

func checkMetrics(t *testing.T, what string, got, want map[string]*float64) {
	t.Helper()
	for _, m := range numericCap().Metrics {
		g, w := got[m.Name], want[m.Name]
		switch {
		case w == nil && g != nil:
			t.Errorf("%s: %s = %v, want null", what, m.Name, *g)
		case w != nil && g == nil:
			t.Errorf("%s: %s = null, want %v", what, m.Name, *w)
		case w != nil && !near(*g, *w):
			t.Errorf("%s: %s = %v, want %v", what, m.Name, *g, *w)
		}
	}
}

// TestNumericMeasuresOverHTTP: sum, avg, min, max and ratio over an Integer column that also
// filters and groups, over a Number column that also filters and groups, and over plain
// Integer and Number columns, answer over HTTP what the rows written give, per group and in
// total; the Number and Integer dimensions filter and group.
func TestNumericMeasuresOverHTTP(t *testing.T) {
	c := captest.RegisterForTest(t, numericCap())
	rows := numericRows()
	srv := newServer(t, writeNumeric(t, c, rows))
	query := "/v1/" + c.Path + "/query"

	keyOf := func(r numRow, dim string) (string, bool) {
		switch dim {
		case "region":
			return r.region, true
		case "households":
			if r.households == nil {
				return "", false
			}
			return strconv.FormatInt(*r.households, 10), true
		case "price":
			if r.price == nil {
				return "", false
			}
			return strconv.FormatFloat(*r.price, 'g', -1, 64), true
		}
		panic(dim)
	}
	cases := []struct {
		name  string
		body  map[string]any
		keep  func(numRow) bool
		group string
	}{
		{"total", map[string]any{}, func(numRow) bool { return true }, ""},
		{"by region", map[string]any{"group_by": []string{"region"}}, func(numRow) bool { return true }, "region"},
		{"by households", map[string]any{"group_by": []string{"households"}}, func(numRow) bool { return true }, "households"},
		{"by price", map[string]any{"group_by": []string{"price"}}, func(numRow) bool { return true }, "price"},
		{"price filter, by region", map[string]any{"filters": map[string]any{"price": []any{2.5, "7.50"}}, "group_by": []string{"region"}},
			func(r numRow) bool { return r.price != nil && (*r.price == 2.5 || *r.price == 7.5) }, "region"},
		{"households filter, by price", map[string]any{"filters": map[string]any{"households": []any{12, 1 << 40}, "region": "north"}, "group_by": []string{"price"}},
			func(r numRow) bool {
				return r.region == "north" && r.households != nil && (*r.households == 12 || *r.households == 1<<40)
			}, "price"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, srv, query, tc.body)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			r := decode[response](t, body)
			total := &refStats{}
			groups := map[string]*refStats{}
			for _, row := range rows {
				if !tc.keep(row) {
					continue
				}
				total.add(row)
				if tc.group != "" {
					k, ok := keyOf(row, tc.group)
					if !ok {
						k = "null"
					}
					if groups[k] == nil {
						groups[k] = &refStats{}
					}
					groups[k].add(row)
				}
			}
			checkMetrics(t, "totals", r.Summary.Totals, total.want())
			if tc.group == "" {
				return
			}
			if len(r.Rows) != len(groups) {
				t.Fatalf("%d rows, want %d groups", len(r.Rows), len(groups))
			}
			var seen []string
			for _, row := range r.Rows {
				k := "null"
				switch v := row.Group[tc.group].(type) {
				case string:
					k = v
				case float64:
					k = strconv.FormatFloat(v, 'g', -1, 64)
					if tc.group == "households" {
						k = strconv.FormatInt(int64(v), 10)
					}
				case nil:
				default:
					t.Fatalf("group value %v (%T)", v, v)
				}
				st := groups[k]
				if st == nil {
					t.Fatalf("group %s=%s is not in the data", tc.group, k)
				}
				checkMetrics(t, fmt.Sprintf("group %s", k), row.Metrics, st.want())
				seen = append(seen, k)
			}
			if tc.group != "region" && !sort.SliceIsSorted(seen[:len(seen)-1], func(i, j int) bool {
				a, _ := strconv.ParseFloat(seen[i], 64)
				b, _ := strconv.ParseFloat(seen[j], 64)
				return a < b
			}) {
				t.Errorf("numeric groups not in numeric order: %v", seen)
			}
		})
	}
	// A number absent from the data matches nothing (as an absent integer does); text is refused.
	status, body := post(t, srv, query, map[string]any{"filters": map[string]any{"price": 9.99}})
	if r := decode[response](t, body); status != 200 || r.Summary.Totals["rows"] == nil || *r.Summary.Totals["rows"] != 0 {
		t.Errorf("price=9.99: status %d: %s", status, body)
	}
	if status, body := post(t, srv, query, map[string]any{"filters": map[string]any{"price": "cheap"}}); status != 400 {
		t.Errorf("price=cheap: status %d: %s", status, body)
	}
}

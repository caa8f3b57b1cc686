package main

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int{"25320": 25320, "1_000_000": 1_000_000, "1M": 1_000_000, "2.5M": 2_500_000, "50k": 50_000, " 10M ": 10_000_000} {
		if got, err := parseCount(in); err != nil || got != want {
			t.Errorf("parseCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "1.5", "1.0000005M", "x", "M"} {
		if got, err := parseCount(in); err == nil {
			t.Errorf("parseCount(%q) = %d, want an error", in, got)
		}
	}
	if got, err := parseScales("1M, 10M,"); err != nil || len(got) != 2 || got[1] != 10_000_000 {
		t.Errorf("parseScales = %v, %v", got, err)
	}
	if got, err := parseScales(""); err != nil || len(got) != 0 {
		t.Errorf("parseScales(\"\") = %v, %v", got, err)
	}
}

func TestFormatting(t *testing.T) {
	for n, want := range map[int]string{1_000_000: "1M", 10_000_000: "10M", 2_500_000: "2.5M", 50_000: "50k", 25_320: "25320", 2_000: "2k"} {
		if got := shortCount(n); got != want {
			t.Errorf("shortCount(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 25320: "25,320", 10_000_000: "10,000,000", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestGrowth(t *testing.T) {
	rep := &Report{Datasets: []*Dataset{{Name: "real-x"}, {Name: "synth-x-1M", Synthetic: true}, {Name: "synth-x-10M", Synthetic: true}}, Results: []*Result{
		{Query: "q", Dataset: "real-x", System: "service", NsPerRow: 200},
		{Query: "q", Dataset: "real-x", System: "engine", NsPerRow: 50},
		{Query: "q", Dataset: "synth-x-1M", System: "service", NsPerRow: 50},
		{Query: "q", Dataset: "synth-x-1M", System: "engine", NsPerRow: 50},
		{Query: "q", Dataset: "synth-x-10M", System: "service", NsPerRow: 100},
		{Query: "q", Dataset: "synth-x-10M", System: "engine", NsPerRow: 75},
	}}
	rep.growth()
	want := [][2]float64{{1, 0}, {1, 0}, {0.25, 0.25}, {1, 1}, {0.5, 2}, {1.5, 1.5}}
	for i, r := range rep.Results {
		if r.NsPerRowGrowth != want[i][0] || r.NsPerRowVsPrevious != want[i][1] {
			t.Errorf("%s %s: growth %v, vs previous %v; want %v", r.Dataset, r.System, r.NsPerRowGrowth, r.NsPerRowVsPrevious, want[i])
		}
	}
}

func TestMeasureMedian(t *testing.T) {
	calls := 0
	run := func() (any, error) { calls++; return calls, nil }
	timings, last, err := measure([]func() (any, error){run, run}, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2*(2+4) || len(timings[0].Runs) != 4 || last[1] != calls {
		t.Fatalf("calls %d, runs %d, last %v", calls, len(timings[0].Runs), last)
	}
	tm := Timing{Runs: []time.Duration{4, 1, 3, 2}}
	tm.summarize()
	if tm.Median != 2 || tm.Min != 1 || tm.Max != 4 {
		t.Errorf("summarize = %+v", tm)
	}
}

func TestSameAnswer(t *testing.T) {
	a := Answer{Matched: 10, Groups: 3, Total: 1167975.9}
	if !sameAnswer(a, Answer{Matched: 10, Groups: 3, Total: 1167975.9000000001}) {
		t.Error("totals differing in the last bit should agree")
	}
	if sameAnswer(a, Answer{Matched: 10, Groups: 3, Total: 1167976}) || sameAnswer(a, Answer{Matched: 11, Groups: 3, Total: a.Total}) {
		t.Error("different answers agree")
	}
}

func TestCompareRows(t *testing.T) {
	nan := math.NaN()
	a := []Row{{Keys: []string{"TX"}, Vals: []float64{1e6, nan}}, {Keys: []string{nullKey}, Vals: []float64{2, 3}}}
	b := []Row{{Keys: []string{nullKey}, Vals: []float64{2, 3}}, {Keys: []string{"TX"}, Vals: []float64{1e6 * (1 + 1e-12), nan}}}
	if err := compareRows(a, b, false); err != nil {
		t.Errorf("equal rows in another order: %v", err)
	}
	if err := compareRows(a, b, true); err == nil {
		t.Error("ordered rows in another order agree")
	}
	for _, bad := range [][]Row{
		b[:1],
		{{Keys: []string{nullKey}, Vals: []float64{2, 3}}, {Keys: []string{"TX"}, Vals: []float64{1e6 * (1 + 1e-8), nan}}},
		{{Keys: []string{nullKey}, Vals: []float64{2, 3}}, {Keys: []string{"TX"}, Vals: []float64{1e6, 0}}},
		{{Keys: []string{"CA"}, Vals: []float64{2, 3}}, {Keys: []string{"TX"}, Vals: []float64{1e6, nan}}},
	} {
		if err := compareRows(a, bad, false); err == nil {
			t.Errorf("%v and %v agree", a, bad)
		}
	}
	if keyText(json.Number("56")) != "56" || keyText(nil) != nullKey || !math.IsNaN(numValue(nil)) || numValue(json.Number("1.5")) != 1.5 {
		t.Error("keyText or numValue")
	}
}

func TestTableColumns(t *testing.T) {
	cols := []capability.Field{{Name: "state"}, {Name: "technology"}, {Name: "nameplate_mw"}, {Name: "eia_plant_id"}, {Name: "lifecycle"}, {Name: "Odd Name"}}
	q := func(sql ...string) Query {
		x := Query{SQL: sql[0]}
		if len(sql) > 1 {
			x.SummarySQL = sql[1]
		}
		return x
	}
	for _, tc := range []struct {
		name string
		qs   []Query
		want []string
	}{
		{"named columns in table order", []Query{q("SELECT sum(nameplate_mw), state FROM {facts} GROUP BY state")}, []string{"state", "nameplate_mw"}},
		{"every statement counts", []Query{q("SELECT state FROM {facts}", "SELECT count(DISTINCT eia_plant_id) FROM {facts}")}, []string{"state", "eia_plant_id"}},
		{"string literals are not columns", []Query{q("SELECT count(*) FROM {facts} WHERE technology = 'state' AND 'it''s lifecycle' <> ''")}, []string{"technology"}},
		{"quoted identifiers and case", []Query{q(`SELECT "Odd Name", STATE FROM {facts}`)}, []string{"state", "Odd Name"}},
		{"select star is every column", []Query{q("SELECT state FROM {facts}"), q("SELECT * FROM {facts} LIMIT 100")}, nil},
		{"count(*) is not select star", []Query{q("SELECT count(*), lifecycle FROM {facts}")}, []string{"lifecycle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tableColumns(tc.qs, cols); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tableColumns = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompareSummary(t *testing.T) {
	nan := math.NaN()
	totals := []float64{1.5e6, 2, nan, 4}
	for _, tc := range []struct {
		name string
		rows [][]any
		ok   bool
	}{
		{"equal", [][]any{{1.5e6 * (1 + 1e-12), json.Number("2"), nil, json.Number("4")}}, true},
		{"a value differs", [][]any{{1.5e6, json.Number("3"), nil, int64(4)}}, false},
		{"null against a value", [][]any{{1.5e6, json.Number("2"), 0.0, int64(4)}}, false},
		{"a value missing", [][]any{{1.5e6, json.Number("2"), nil}}, false},
		{"no row", nil, false},
		{"two rows", [][]any{{1.5e6, 2, nil, 4}, {1.5e6, 2, nil, 4}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := compareSummary(totals, tc.rows); (err == nil) != tc.ok {
				t.Errorf("compareSummary = %v, want ok %v", err, tc.ok)
			}
		})
	}
}

func TestMain(m *testing.M) { testenv.Main(m) }

// TestAutoStorage: a small table stays in memory, one larger than any machine's memory goes
// to a file.
func TestAutoStorage(t *testing.T) {
	for _, c := range []struct {
		rows int
		want string
	}{{1000, "memory"}, {1 << 40, "file"}} {
		if procKB("/proc/meminfo", "MemAvailable") <= 0 {
			t.Skip("no /proc/meminfo")
		}
		if got := autoStorage(c.rows); got != c.want {
			t.Errorf("autoStorage(%d) = %s, want %s", c.rows, got, c.want)
		}
	}
}

// TestResolveScaleCaps: ids and prefixes resolve to served capabilities, a prefix to the
// one with the most rows; @counts give a capability row counts of its own.
func TestResolveScaleCaps(t *testing.T) {
	real := []*Dataset{{Capability: "a.prices", Rows: 50}, {Capability: "a.queue_x", Rows: 10}, {Capability: "a.queue_y", Rows: 30},
		{Capability: "a.queue_z", Rows: 30}, {Capability: "b.demand", Rows: 60}}
	for _, tc := range []struct {
		list  string
		want  []string
		extra map[string][]int
	}{
		{"a.prices", []string{"a.prices"}, nil},
		{"a.prices@100M,a.queue*@2k+3M", []string{"a.prices", "a.queue_y"}, map[string][]int{"a.prices": {100_000_000}, "a.queue_y": {2000, 3_000_000}}},
		{"a.prices@", nil, nil},
		{"a.prices@ten", nil, nil},
		{" b.demand , a.queue* ", []string{"b.demand", "a.queue_y"}, nil},
		{"a.queue*,a.queue_y,a.*", []string{"a.queue_y", "a.prices"}, nil},
		{"", nil, nil},
		{"*", []string{"b.demand"}, nil},
		{"a.queue", nil, nil},
		{"c.*", nil, nil},
	} {
		t.Run(tc.list, func(t *testing.T) {
			got, extra, err := resolveScaleCaps(tc.list, real)
			if tc.want == nil && tc.list != "" {
				if err == nil {
					t.Fatalf("resolveScaleCaps = %q, want an error", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("resolveScaleCaps = %q, %v; want %q", got, err, tc.want)
			}
			for id, counts := range extra {
				if len(counts) > 0 && !reflect.DeepEqual(counts, tc.extra[id]) || len(counts) == 0 && tc.extra[id] != nil {
					t.Errorf("%s: own counts %v, want %v", id, counts, tc.extra[id])
				}
			}
			for id := range tc.extra {
				if len(extra[id]) == 0 {
					t.Errorf("%s: no counts of its own, want %v", id, tc.extra[id])
				}
			}
		})
	}
}

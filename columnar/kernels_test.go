package columnar

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// testSizes cross the parallel chunk size (chunkRows) and include the empty table.
var testSizes = []int{0, 1, 1000, 70000, 200000}

type filterCase struct {
	name  string
	preds []predSpec
}

var filterCases = []filterCase{
	{"none", nil},
	{"one/values", []predSpec{values(colRegion, "north", "east", "nowhere")}},
	{"one/absent", []predSpec{values(colRegion, "nowhere", "")}},
	{"one/dup-values", []predSpec{values(colFuel, "gas", "gas", fuelAllNull, "gas")}},
	{"one/bool", []predSpec{values(colActive, "false")}},
	{"one/range-lo", []predSpec{textRange(colPeriod, "2021-01-01", "")}},
	{"one/range-hi", []predSpec{textRange(colPeriod, "", "2020-02-29")}},
	{"one/range-open", []predSpec{textRange(colPeriod, "", "")}},
	{"two/int+range", []predSpec{values(colYear, "9", "10", "2020", "7"), textRange(colPeriod, "2020-03-15", "2021-03-15")}},
	{"three", []predSpec{values(colRegion, "north", "south", "west"), values(colActive, "true"),
		values(colFuel, "gas", "solar", fuelAllNull, fuelMixed, fuelMixedNull)}},
	{"three/empty", []predSpec{values(colRegion, "north"), values(colFuel, "gas"), values(colRegion, "south")}},
}

var keySets = [][]string{nil, {colRegion}, {colYear}, {colFuel}, {colRegion, colYear}, {colFuel, colActive}, {colPlant}, {colH1, colH2, colH3}}

// TestKernels compares Load, Filter, Group, Aggregate and Lineage with the reference on
// random tables of several sizes. Tables above 1000 rows run a subset of the query matrix.
func TestKernels(t *testing.T) {
	for _, n := range testSizes {
		t.Run(fmt.Sprintf("rows=%d", n), func(t *testing.T) {
			fx := newFixture(t, genRows(int64(1000+n), n))
			t.Run("Load", func(t *testing.T) { checkLoad(t, fx) })
			t.Run("LoadPlain", func(t *testing.T) { checkLoadPlain(t, fx) })
			for _, fc := range filterCases {
				for _, keys := range keySets {
					if skipQuery(n, fc.name, keys) {
						continue
					}
					t.Run(fmt.Sprintf("Query/%s/by=%s", fc.name, strings.Join(keys, ",")), func(t *testing.T) {
						checkQuery(t, fx, fc.preds, keys)
					})
				}
			}
			if n >= 1000 {
				t.Run("Paths", func(t *testing.T) { checkPaths(t, fx) })
			}
			t.Run("Determinism", func(t *testing.T) { checkDeterminism(t, fx) })
		})
	}
}

// skipQuery trims the query matrix on large tables to keep the run short: above 1000 rows
// only the unfiltered and the two-predicate queries run with every key set, and every filter
// with region,year; the largest table skips the two costliest unfiltered groupings, whose
// paths (sparse grouping, hash-set count distinct) the 70000-row table already covers.
func skipQuery(n int, filter string, keys []string) bool {
	if n <= 1000 {
		return false
	}
	if filter != "none" && filter != "two/int+range" {
		return !slices.Equal(keys, []string{colRegion, colYear})
	}
	return n > 100000 && filter == "none" && len(keys) > 0 && (keys[0] == colPlant || keys[0] == colH1)
}

func checkLoad(t *testing.T, fx *fixture) {
	tbl := fx.tbl
	if tbl.Rows != fx.n {
		t.Fatalf("Rows = %d, want %d", tbl.Rows, fx.n)
	}
	if tbl.Col("no_such_column") != nil {
		t.Errorf("Col(no_such_column) is not nil")
	}
	for _, s := range dictSpecs() {
		c := tbl.Col(s.Name)
		if c == nil {
			t.Errorf("column %s not loaded", s.Name)
			continue
		}
		if !s.Dict {
			continue
		}
		if c.Kind != Dict {
			t.Errorf("%s: Kind = %d, want Dict", s.Name, c.Kind)
			continue
		}
		want := fx.dict[s.Name]
		if !slices.Equal(c.Values, want) {
			t.Errorf("%s: Values = %q, want %q", s.Name, head(c.Values), head(want))
		}
		if len(c.Codes) != fx.n {
			t.Errorf("%s: %d codes, want %d", s.Name, len(c.Codes), fx.n)
			continue
		}
		if i := firstDiff(c.Codes, fx.codes[s.Name]); i >= 0 {
			t.Errorf("%s: row %d: code %d, want %d (value %v)", s.Name, i, c.Codes[i], fx.codes[s.Name][i], fx.rows[i][fieldPos[s.Name]])
		}
		for code, v := range want {
			if got := c.Lookup(v); got != int32(code) {
				t.Errorf("%s: Lookup(%q) = %d, want %d", s.Name, v, got, code)
			}
		}
		for _, absent := range []string{"", "no such value", "09", "+9", "TRUE"} {
			if !slices.Contains(want, absent) && c.Lookup(absent) != -1 {
				t.Errorf("%s: Lookup(%q) = %d, want -1", s.Name, absent, c.Lookup(absent))
			}
		}
		checkText(t, fx, c)
	}
	// The integer dictionary is in numeric order.
	years := tbl.Col(colYear).Values
	for i := 1; i < len(years); i++ {
		a, _ := strconv.ParseInt(years[i-1], 10, 64)
		b, _ := strconv.ParseInt(years[i], 10, 64)
		if a >= b {
			t.Errorf("year Values not in numeric order: %q", years)
			break
		}
	}
	// The measure is a Float column with nulls.
	c := tbl.Col(colCap)
	if c.Kind != Float || c.Floats == nil {
		t.Fatalf("capacity: Kind = %d, want Float", c.Kind)
	}
	if c.Floats.Len() != fx.n {
		t.Fatalf("capacity: %d values, want %d", c.Floats.Len(), fx.n)
	}
	for i, r := range fx.rows {
		v, ok := r[iCap].(float64)
		if c.Floats.IsNull(i) == ok || (ok && c.Floats.Value(i) != v) {
			t.Errorf("capacity row %d: null=%v value=%v, want %v", i, c.Floats.IsNull(i), c.Floats.Value(i), r[iCap])
			break
		}
	}
	checkText(t, fx, c)
}

// checkLoadPlain loads columns without dictionary encoding and checks kinds and Text.
func checkLoadPlain(t *testing.T, fx *fixture) {
	tbl, err := Load(fx.path, plainSpecs())
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Rows != fx.n {
		t.Fatalf("Rows = %d, want %d", tbl.Rows, fx.n)
	}
	kinds := map[string]Kind{colRegion: Str, colYear: Int, colCap: Float, colActive: Bool, colPlant: Str}
	for _, s := range plainSpecs() {
		c := tbl.Col(s.Name)
		if c.Kind != kinds[s.Name] {
			t.Errorf("%s: Kind = %d, want %d", s.Name, c.Kind, kinds[s.Name])
			continue
		}
		checkText(t, fx, c)
	}
	if _, err := Load(fx.path, []Spec{{Name: "no_such_column"}}); err == nil {
		t.Errorf("Load of a missing column: no error")
	}
}

func checkText(t *testing.T, fx *fixture, c *Column) {
	t.Helper()
	for i, r := range fx.rows {
		want, wantOK := textOf(r[fieldPos[c.Name]])
		if got, ok := c.Text(i); got != want || ok != wantOK {
			t.Errorf("%s: Text(%d) = %q, %v; want %q, %v", c.Name, i, got, ok, want, wantOK)
			return
		}
	}
}

// checkQuery runs one filter + group-by through the engine and the reference and compares
// the selection, the grouping, every aggregate (with and without the unit column) and the
// lineage.
func checkQuery(tb testing.TB, fx *fixture, preds []predSpec, keys []string) {
	tb.Helper()
	q := fmt.Sprintf("rows=%d where %v by %q", fx.n, preds, keys)
	tbl := fx.tbl
	var eng []Predicate
	for _, p := range preds {
		eng = append(eng, p.engine(tbl))
	}
	var sel Selection
	if !catch(tb, q+": Filter", func() { sel = tbl.Filter(eng) }) {
		return
	}
	refSel := fx.refSelect(preds)
	if len(preds) == 0 && !sel.All {
		tb.Errorf("%s: Filter without predicates: All = false", q)
	}
	if got := selRows(sel); !slices.Equal(got, refSel) {
		tb.Errorf("%s: selection has %d rows %v, want %d %v", q, len(got), head(got), len(refSel), head(refSel))
		return
	}
	var g *Grouping
	if !catch(tb, q+": Group", func() { g = tbl.Group(sel, keys) }) {
		return
	}
	refGID, refCodes := fx.refGroup(refSel, keys)
	if g.N != len(refCodes) || len(g.Codes) != len(refCodes) {
		tb.Errorf("%s: %d groups (%d key tuples), want %d", q, g.N, len(g.Codes), len(refCodes))
		return
	}
	if len(g.Keys) != len(keys) {
		tb.Errorf("%s: %d key columns, want %d", q, len(g.Keys), len(keys))
	}
	for gi, want := range refCodes {
		if !slices.Equal(g.Codes[gi], want) {
			tb.Errorf("%s: group %d has key codes %v, want %v", q, gi, g.Codes[gi], want)
			return
		}
	}
	ids := make([]uint32, len(refSel))
	for i := range ids {
		ids[i] = g.ID(i)
	}
	if len(keys) == 0 && g.GID != nil {
		tb.Errorf("%s: a grouping without keys allocates group ids", q)
	}
	if i := firstDiff(ids, refGID); i >= 0 {
		tb.Errorf("%s: selected row %d (table row %d) in group %d, want %d", q, i, refSel[i], ids[i], refGID[i])
		return
	}

	st := fx.refAgg(refSel, refGID, g.N)
	distinct := map[string]Result{}
	for _, col := range []string{colH1, colPlant, colYear} {
		distinct[col] = fx.refDistinct(refSel, refGID, g.N, col)
	}
	for _, agg := range allAggs {
		for _, unit := range []string{"", colUnit} {
			cols := []string{colCap}
			if agg == AggCountDistinct {
				cols = []string{colH1, colPlant, colYear}
			}
			for _, col := range cols {
				var got Result
				what := fmt.Sprintf("%s: Aggregate(%s, %s, unit=%q)", q, aggNames[agg], col, unit)
				if !catch(tb, what, func() { got = tbl.Aggregate(sel, g, agg, col, unit) }) {
					continue
				}
				want := distinct[col]
				if agg != AggCountDistinct {
					want = st.expect(agg, unit != "")
				}
				if d := diffResult(got, want, agg); d != "" {
					tb.Errorf("%s: %s", what, d)
				}
			}
		}
	}

	refLin := fx.refLineage(refSel, refGID, g.N, 3)
	checkCompute(tb, fx, q, sel, keys, refSel, refGID, refCodes, refLin)
	for _, k := range []int{0, 1, 3} {
		var got [][]Source
		what := fmt.Sprintf("%s: Lineage(k=%d)", q, k)
		if !catch(tb, what, func() { got = tbl.Lineage(sel, g, colFile, colSheet, k) }) {
			continue
		}
		if d := diffLineage(got, truncSamples(refLin, k)); d != "" {
			tb.Errorf("%s: %s", what, d)
		}
	}
}

// checkCompute compares the one-pass Compute (every aggregation at once, with units, count
// distinct over three columns and lineage) with the reference, per group and over the whole
// selection.
func checkCompute(tb testing.TB, fx *fixture, q string, sel Selection, keys []string, refSel []int32, refGID []uint32, refCodes [][]int32, refLin [][]Source) {
	tb.Helper()
	type want struct {
		groups, total Result
	}
	var ops []Op
	var wants []want
	n := len(refCodes)
	whole := make([]uint32, len(refSel)) // every selected row in group 0
	st, stAll := fx.refAgg(refSel, refGID, n), fx.refAgg(refSel, whole, 1)
	for _, agg := range allAggs {
		if agg == AggCountDistinct {
			for _, col := range []string{colH1, colPlant, colYear} {
				ops = append(ops, Op{Agg: agg, Column: col})
				wants = append(wants, want{fx.refDistinct(refSel, refGID, n, col), fx.refDistinct(refSel, whole, 1, col)})
			}
			continue
		}
		for _, unit := range []string{"", colUnit} {
			ops = append(ops, Op{Agg: agg, Column: colCap, Unit: unit})
			wants = append(wants, want{st.expect(agg, unit != ""), stAll.expect(agg, unit != "")})
		}
	}
	var ans *Answer
	if !catch(tb, q+": Compute", func() {
		ans = fx.tbl.Compute(sel, keys, ops, &LineageSpec{FileCol: colFile, SheetCol: colSheet, K: 3})
	}) {
		return
	}
	if ans.Groups.N != n || len(ans.Groups.Codes) != n {
		tb.Errorf("%s: Compute: %d groups, want %d", q, ans.Groups.N, n)
		return
	}
	for gi, w := range refCodes {
		if !slices.Equal(ans.Groups.Codes[gi], w) {
			tb.Errorf("%s: Compute: group %d has key codes %v, want %v", q, gi, ans.Groups.Codes[gi], w)
			return
		}
	}
	for i, op := range ops {
		what := fmt.Sprintf("%s: Compute(%s, %s, unit=%q)", q, aggNames[op.Agg], op.Column, op.Unit)
		if d := diffResult(ans.Results[i], wants[i].groups, op.Agg); d != "" {
			tb.Errorf("%s: %s", what, d)
		}
		if d := diffResult(ans.Totals[i], wants[i].total, op.Agg); d != "" {
			tb.Errorf("%s total: %s", what, d)
		}
	}
	if d := diffLineage(ans.Lineage, refLin); d != "" {
		tb.Errorf("%s: Compute lineage: %s", q, d)
	}
	if d := diffLineage([][]Source{ans.Total}, fx.refLineage(refSel, whole, 1, 3)); d != "" {
		tb.Errorf("%s: Compute total lineage: %s", q, d)
	}
	// The lineage path that updates rows and sheet sets row by row.
	defer func(limit int) { tripLimit = limit }(tripLimit)
	tripLimit = 0
	ans = fx.tbl.Compute(sel, keys, nil, &LineageSpec{FileCol: colFile, SheetCol: colSheet, K: 3})
	if d := diffLineage(ans.Lineage, refLin); d != "" {
		tb.Errorf("%s: Compute lineage row by row: %s", q, d)
	}
}

// checkPaths makes sure the matrix exercises the sparse grouping and the hash-set count
// distinct, not only the dense and bitset paths.
func checkPaths(t *testing.T, fx *fixture) {
	tbl := fx.tbl
	space := func(keys ...string) uint64 {
		s := uint64(1)
		for _, k := range keys {
			s *= uint64(len(tbl.Col(k).Values) + 1)
		}
		return s
	}
	if s := space(colH1, colH2, colH3); s <= denseLimit {
		t.Errorf("h1,h2,h3 key space %d does not exceed denseLimit: the sparse grouping is not tested", s)
	}
	if s := space(colRegion, colYear); s > denseLimit {
		t.Errorf("region,year key space %d exceeds denseLimit", s)
	}
	if fx.n >= 70000 && fx.n <= 100000 {
		g := tbl.Group(Selection{All: true, n: tbl.Rows}, []string{colH1, colH2, colH3})
		if p := uint64(g.N) * uint64(len(tbl.Col(colPlant).Values)); p <= 1<<28 {
			t.Errorf("groups x plant cardinality %d: the hash-set count distinct is not tested", p)
		}
	}
}

type detQuery struct {
	preds []predSpec
	keys  []string
	heavy bool // skipped above 100000 rows
}

var detQueries = []detQuery{
	{nil, nil, false},
	{nil, []string{colRegion, colYear}, false},
	{filterCases[8].preds, []string{colFuel}, false},
	{filterCases[9].preds, []string{colH1, colH2, colH3}, false},
	{nil, []string{colH1, colH2, colH3}, true},
}

// digests hashes the loaded dictionaries and codes and every output of detQueries.
func digests(tb testing.TB, tbl *Table) [][32]byte {
	tb.Helper()
	d := newDigest()
	for _, s := range dictSpecs() {
		if c := tbl.Col(s.Name); s.Dict {
			d.i32s(c.Codes)
			d.text(strings.Join(c.Values, "\x00"))
		}
	}
	out := [][32]byte{d.sum()}
	for qi, q := range detQueries {
		if q.heavy && tbl.Rows > 100000 {
			out = append(out, [32]byte{})
			continue
		}
		d := newDigest()
		var eng []Predicate
		for _, p := range q.preds {
			eng = append(eng, p.engine(tbl))
		}
		var sel Selection
		if !catch(tb, fmt.Sprintf("query %d: Filter", qi), func() { sel = tbl.Filter(eng) }) {
			out = append(out, [32]byte{})
			continue
		}
		d.i32s(selRows(sel))
		g := tbl.Group(sel, q.keys)
		d.ints(int64(g.N))
		for i := range selRows(sel) {
			d.ints(int64(g.ID(i)))
		}
		for _, codes := range g.Codes {
			d.i32s(codes)
		}
		for _, agg := range allAggs {
			col := colCap
			if agg == AggCountDistinct {
				col = colPlant
			}
			d.result(tbl.Aggregate(sel, g, agg, col, ""))
			d.result(tbl.Aggregate(sel, g, agg, col, colUnit))
		}
		for _, srcs := range tbl.Lineage(sel, g, colFile, colSheet, 3) {
			for _, s := range srcs {
				d.ints(int64(s.File), s.Rows)
				d.i32s(s.Sample)
				d.i32s(s.Sheets)
			}
		}
		out = append(out, d.sum())
	}
	return out
}

// checkDeterminism runs the same queries twice and under different GOMAXPROCS, loading the
// table afresh each time, and requires bit-identical outputs.
func checkDeterminism(t *testing.T, fx *fixture) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	load := func() *Table {
		tbl, err := Load(fx.path, dictSpecs())
		if err != nil {
			t.Fatal(err)
		}
		return tbl
	}
	tbl := load()
	base := digests(t, tbl)
	if again := digests(t, tbl); !slices.Equal(again, base) {
		t.Errorf("the same queries twice differ: %s", diffDigests(again, base))
	}
	for _, procs := range []int{2} {
		runtime.GOMAXPROCS(procs)
		if got := digests(t, load()); !slices.Equal(got, base) {
			t.Errorf("GOMAXPROCS(%d) differs from GOMAXPROCS(1): %s", procs, diffDigests(got, base))
		}
	}
}

func diffDigests(got, want [][32]byte) string {
	var out []string
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			if i == 0 {
				out = append(out, "loaded columns")
			} else {
				out = append(out, fmt.Sprintf("query %d %+v", i-1, detQueries[i-1]))
			}
		}
	}
	return strings.Join(out, ", ")
}

// row builds a fact row from column values by index (the rest null).
func row(vals map[int]any) snapshots.Row {
	r := make(snapshots.Row, len(testFields))
	for i, v := range vals {
		r[i] = v
	}
	return r
}

// TestIntegerDictionary checks numeric order of an Integer dimension: "9" < "10", negative
// values first, nulls last when grouping.
func TestIntegerDictionary(t *testing.T) {
	years := []any{int64(10), int64(9), int64(100), nil, int64(-3), int64(9), int64(2), int64(1e12), nil, int64(10)}
	var rows []snapshots.Row
	for _, y := range years {
		rows = append(rows, row(map[int]any{iYear: y, iCap: 1.0}))
	}
	fx := newFixture(t, rows)
	c := fx.tbl.Col(colYear)
	wantValues := []string{"-3", "2", "9", "10", "100", "1000000000000"}
	if !slices.Equal(c.Values, wantValues) {
		t.Fatalf("Values = %q, want %q", c.Values, wantValues)
	}
	if want := []int32{3, 2, 4, -1, 0, 2, 1, 5, -1, 3}; !slices.Equal(c.Codes, want) {
		t.Errorf("Codes = %v, want %v", c.Codes, want)
	}
	sel := fx.tbl.Filter([]Predicate{{Column: colYear, Allow: c.AllowValues([]string{"10", "9", "11"})}})
	if want := []int32{0, 1, 5, 9}; !slices.Equal(selRows(sel), want) {
		t.Errorf("year in (10, 9, 11): rows %v, want %v", selRows(sel), want)
	}
	g := fx.tbl.Group(Selection{All: true, n: fx.n}, []string{colYear})
	var keys []string
	for _, codes := range g.Codes {
		v, ok := "null", codes[0] >= 0
		if ok {
			v = c.Values[codes[0]]
		}
		keys = append(keys, v)
	}
	if want := []string{"-3", "2", "9", "10", "100", "1000000000000", "null"}; !slices.Equal(keys, want) {
		t.Errorf("group keys %q, want %q", keys, want)
	}
	checkQuery(t, fx, nil, []string{colYear})
}

// TestUnitMixing checks the unit argument on hand-made groups.
func TestUnitMixing(t *testing.T) {
	type in struct {
		fuel, unit string
		v          any
	}
	data := []in{
		{"a", "MW", 1.0}, {"a", "MW", 2.0}, // one unit: valid
		{"b", "MW", 1.0}, {"b", "kW", 2.0}, // two units among non-null inputs: mixed
		{"c", "MW", 1.0}, {"c", "kW", nil}, // second unit only on a null input: not mixed
		{"d", "MW", nil}, {"d", "kW", nil}, // no non-null input: null, not mixed
		{"e", "kW", 5.0},
	}
	var rows []snapshots.Row
	for _, d := range data {
		rows = append(rows, row(map[int]any{iFuel: d.fuel, iUnit: d.unit, iCap: d.v}))
	}
	fx := newFixture(t, rows)
	tbl := fx.tbl
	sel := tbl.Filter(nil)
	g := tbl.Group(sel, []string{colFuel})
	total := tbl.Group(sel, nil)
	wantMixed := []bool{false, true, false, false, false}
	for _, agg := range []Agg{AggCountNonNull, AggSum, AggAvg, AggMin, AggMax} {
		res := tbl.Aggregate(sel, g, agg, colCap, colUnit)
		if !slices.Equal(res.Mixed, wantMixed) {
			t.Errorf("%s: Mixed = %v, want %v", aggNames[agg], res.Mixed, wantMixed)
		}
		wantValid := []bool{true, false, true, agg == AggCountNonNull, true}
		if !slices.Equal(res.Valid, wantValid) {
			t.Errorf("%s: Valid = %v, want %v", aggNames[agg], res.Valid, wantValid)
		}
		if want := []int64{0, 0, 1, 2, 0}; !slices.Equal(res.NullRows, want) {
			t.Errorf("%s: NullRows = %v, want %v", aggNames[agg], res.NullRows, want)
		}
		if res := tbl.Aggregate(sel, total, agg, colCap, colUnit); !res.Mixed[0] || res.Valid[0] {
			t.Errorf("%s total: Mixed=%v Valid=%v, want mixed and null", aggNames[agg], res.Mixed[0], res.Valid[0])
		}
		if res := tbl.Aggregate(sel, g, agg, colCap, ""); slices.Contains(res.Mixed, true) {
			t.Errorf("%s without unit: Mixed = %v", aggNames[agg], res.Mixed)
		}
	}
	sum := tbl.Aggregate(sel, g, AggSum, colCap, colUnit)
	if sum.Values[0] != 3 || sum.Values[2] != 1 || sum.Values[4] != 5 {
		t.Errorf("sums %v, want 3, _, 1, _, 5", sum.Values)
	}
	// Counts ignore the unit.
	for _, agg := range []Agg{AggCount, AggCountDistinct} {
		if res := tbl.Aggregate(sel, g, agg, colUnit, colUnit); slices.Contains(res.Mixed, true) || slices.Contains(res.Valid, false) {
			t.Errorf("%s with unit: Mixed = %v, Valid = %v", aggNames[agg], res.Mixed, res.Valid)
		}
	}
	checkQuery(t, fx, nil, []string{colFuel})
}

// TestCompensatedSum: small inputs between huge ones that cancel are not lost.
func TestCompensatedSum(t *testing.T) {
	var rows []snapshots.Row
	add := func(fuel string, v float64) { rows = append(rows, row(map[int]any{iFuel: fuel, iUnit: "MW", iCap: v})) }
	add("a", 1e16)
	add("b", -1e16)
	for range 1000 {
		add("a", 1)
		add("b", 0.25)
	}
	add("a", -1e16)
	add("b", 1e16)
	fx := newFixture(t, rows)
	sel := fx.tbl.Filter(nil)
	for _, c := range []struct {
		keys []string
		want []float64
	}{{nil, []float64{1250}}, {[]string{colFuel}, []float64{1000, 250}}} {
		g := fx.tbl.Group(sel, c.keys)
		sum := fx.tbl.Aggregate(sel, g, AggSum, colCap, colUnit)
		avg := fx.tbl.Aggregate(sel, g, AggAvg, colCap, "")
		for i, want := range c.want {
			if !sameValue(sum.Values[i], want, AggSum) {
				t.Errorf("by %q: sum of group %d = %v, want %v", c.keys, i, sum.Values[i], want)
			}
			n := float64(g.N) // rows per group: 1002 by fuel, 2004 in total
			if wantAvg := want / (2004 / n); !sameValue(avg.Values[i], wantAvg, AggAvg) {
				t.Errorf("by %q: avg of group %d = %v, want %v", c.keys, i, avg.Values[i], wantAvg)
			}
		}
	}
	checkQuery(t, fx, nil, []string{colFuel})
}

// TestFilterEmptyTable filters a table with no rows.
func TestFilterEmptyTable(t *testing.T) {
	fx := newFixture(t, nil)
	c := fx.tbl.Col(colRegion)
	var sel Selection
	if !catch(t, "Filter on an empty table", func() {
		sel = fx.tbl.Filter([]Predicate{{Column: colRegion, Allow: c.AllowValues([]string{"north"})}})
	}) {
		return
	}
	if sel.Len() != 0 {
		t.Errorf("selection has %d rows, want 0", sel.Len())
	}
}

// TestEmptySelection: an empty selection has no groups by key, and one group without keys
// whose counts are 0 and whose sum, avg, min and max are null; no lineage.
func TestEmptySelection(t *testing.T) {
	fx := newFixture(t, genRows(7, 1000))
	tbl := fx.tbl
	sel := tbl.Filter([]Predicate{values(colRegion, "nowhere").engine(tbl)})
	if sel.All || sel.Len() != 0 {
		t.Fatalf("selection: All=%v Len=%d, want empty", sel.All, sel.Len())
	}
	for _, keys := range keySets {
		g := tbl.Group(sel, keys)
		wantN := 0
		if len(keys) == 0 {
			wantN = 1
		}
		if g.N != wantN || len(g.GID) != 0 || len(g.Codes) != wantN {
			t.Errorf("by %q: N=%d GID=%d Codes=%d, want %d groups", keys, g.N, len(g.GID), len(g.Codes), wantN)
			continue
		}
		for _, agg := range allAggs {
			col := colCap
			if agg == AggCountDistinct {
				col = colPlant
			}
			res := tbl.Aggregate(sel, g, agg, col, colUnit)
			if len(res.Values) != wantN {
				t.Errorf("by %q: %s has %d values, want %d", keys, aggNames[agg], len(res.Values), wantN)
				continue
			}
			if wantN == 1 {
				isCount := agg == AggCount || agg == AggCountNonNull || agg == AggCountDistinct
				if res.Valid[0] != isCount || (isCount && res.Values[0] != 0) || res.Mixed[0] || res.NullRows[0] != 0 {
					t.Errorf("total %s over no rows: value %v valid %v mixed %v nulls %d", aggNames[agg], res.Values[0], res.Valid[0], res.Mixed[0], res.NullRows[0])
				}
			}
		}
		l := tbl.Lineage(sel, g, colFile, colSheet, 3)
		if len(l) != wantN || (wantN == 1 && len(l[0]) != 0) {
			t.Errorf("by %q: lineage %v, want %d groups without sources", keys, l, wantN)
		}
	}
}

// fuzzRows derives a small table (1 to 64 rows) from the fuzz input.
func fuzzRows(data []byte) []snapshots.Row {
	at := func(i int) byte {
		if len(data) == 0 {
			return 0
		}
		return data[i%len(data)]
	}
	itoa := func(b byte) string { return strconv.Itoa(int(b)) }
	scales := []float64{1, 0.25, 1e-3, 1e12, 0.1, -7, 1e15, 3}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]snapshots.Row, min(1+len(data)/4, 64))
	for j := range rows {
		b0, b1, b2, b3 := at(4*j), at(4*j+1), at(4*j+2), at(4*j+3)
		r := make(snapshots.Row, len(testFields))
		if b0%4 != 0 {
			r[iRegion] = "r" + itoa(b0%4)
		}
		r[iFuel] = "f" + itoa(b1%3)
		if b1%5 != 0 {
			r[iYear] = []int64{0, 9, 10, 100, -1}[b1%5]
		}
		r[iUnit] = []string{"MW", "kW"}[b2&1]
		if b2%4 != 0 {
			r[iCap] = float64(int8(b3)) * scales[b2>>5]
		}
		if b3%3 != 0 {
			r[iActive] = b3%3 == 1
		}
		if b1%7 != 0 {
			r[iPeriod] = base.AddDate(0, 0, int(b0^b3)%40).Format(time.DateOnly)
		}
		if b3%11 != 0 {
			r[iPlant] = "p" + itoa(b3%5)
		}
		r[iH1], r[iH2], r[iH3] = "h"+itoa(b0%3), "h"+itoa(b1%2), "h"+itoa(b2%3)
		r[iFile] = "file" + itoa(b0>>6)
		if b3 != 255 {
			r[iSheet] = "s" + itoa(b1>>6)
		}
		rows[j] = r
	}
	return rows
}

// FuzzKernels checks filters, groupings, aggregates and lineage of small tables derived
// from the input against the reference.
func FuzzKernels(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4})
	f.Add([]byte{0, 0, 0, 0, 255, 255, 255, 255, 7, 9, 13, 200})
	f.Add([]byte("the quick brown fox jumps over the lazy dog; the quick brown fox"))
	f.Add(bytes.Repeat([]byte{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233}, 22))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx := newFixture(t, fuzzRows(data))
		for _, preds := range [][]predSpec{nil, {values(colRegion, "r1", "r2")}, {textRange(colPeriod, "2020-01-10", ""), values(colYear, "9", "10")}} {
			for _, keys := range [][]string{nil, {colRegion}, {colRegion, colYear}, {colH1, colH2, colH3}} {
				checkQuery(t, fx, preds, keys)
			}
		}
	})
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// head shortens a slice for messages.
func head[T any](s []T) []T {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

// TestWholeColumnSum: the direct path that sums a null-free column over the whole table (no
// filter, no keys) agrees with an exact sum and with the general path over a selection of
// every row, across several chunks.
func TestWholeColumnSum(t *testing.T) {
	fields := []capability.Field{{Name: "k", Type: capability.String}, {Name: "x", Type: capability.Number}}
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 3*chunkRows + 123
	rows := make([]snapshots.Row, n)
	exact := new(big.Float).SetPrec(2000)
	for i := range rows {
		v := (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(12)))
		rows[i] = snapshots.Row{[]string{"a", "b"}[i%2], v}
		exact.Add(exact, big.NewFloat(v))
	}
	path := filepath.Join(t.TempDir(), "facts.parquet")
	if err := snapshots.WriteFacts(path, fields, rows); err != nil {
		t.Fatal(err)
	}
	tbl, err := Load(path, []Spec{{Name: "k", Dict: true}, {Name: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	all := tbl.Filter(nil)
	every := tbl.Filter([]Predicate{{Column: "k", Allow: tbl.Col("k").AllowValues([]string{"a", "b"})}})
	if !all.All || every.All || every.Len() != n {
		t.Fatalf("selections: all %v, every %v with %d rows", all.All, every.All, every.Len())
	}
	want, _ := exact.Float64()
	for _, agg := range []Agg{AggSum, AggAvg, AggCountNonNull} {
		direct := tbl.Aggregate(all, tbl.Group(all, nil), agg, "x", "")
		general := tbl.Aggregate(every, tbl.Group(every, nil), agg, "x", "")
		if !direct.Valid[0] || direct.Values[0] != general.Values[0] && math.Abs(direct.Values[0]-general.Values[0]) > 1e-9*math.Abs(general.Values[0]) {
			t.Errorf("agg %d: direct %v, general %v", agg, direct.Values[0], general.Values[0])
		}
		if agg == AggSum && math.Abs(direct.Values[0]-want) > 1e-12*math.Abs(want) {
			t.Errorf("sum %v, exact %v", direct.Values[0], want)
		}
		if agg == AggCountNonNull && direct.Values[0] != n {
			t.Errorf("count %v, want %d", direct.Values[0], n)
		}
	}
}

// TestFilterReuse: a released selection's storage serves later filters, whose answers stay
// exact.
func TestFilterReuse(t *testing.T) {
	fx := newFixture(t, genRows(77, 70000))
	for i, fc := range filterCases {
		var eng []Predicate
		for _, p := range fc.preds {
			eng = append(eng, p.engine(fx.tbl))
		}
		for range 2 {
			sel := fx.tbl.Filter(eng)
			if got, want := selRows(sel), fx.refSelect(fc.preds); !slices.Equal(got, want) {
				t.Fatalf("filter %d (%s) after reuse: %d rows, want %d", i, fc.name, len(got), len(want))
			}
			sel.Release()
			sel.Release()
		}
	}
}

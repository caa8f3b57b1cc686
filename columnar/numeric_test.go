package columnar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// numericLayouts load the test table's integer column (year) and float column (capacity) in
// each way the engine can hold a number: as dictionary codes (the column also filters or
// groups) or as plain values. Every other column is a dictionary, as in dictSpecs, except the
// plant column, which is plain text in the second layout.
var numericLayouts = []struct {
	name              string
	yearDict, capDict bool
	plantPlain        bool
}{
	{"year=dict,capacity=float", true, false, false},
	{"year=int,capacity=dict", false, true, true},
	{"year=dict,capacity=dict", true, true, false},
	{"year=int,capacity=float", false, false, true},
}

func numericSpecs(yearDict, capDict, plantPlain bool) []Spec {
	var specs []Spec
	for _, f := range testFields {
		dict := true
		switch f.Name {
		case colYear:
			dict = yearDict
		case colCap:
			dict = capDict
		case colPlant:
			dict = !plantPlain
		}
		specs = append(specs, Spec{Name: f.Name, Dict: dict})
	}
	return specs
}

// numericFilters include predicates on the numeric columns themselves when they are
// dictionaries.
func numericFilters(yearDict, capDict bool) []filterCase {
	out := []filterCase{
		{"none", nil},
		{"one/values", []predSpec{values(colRegion, "north", "east")}},
		{"three", filterCases[9].preds},
	}
	if yearDict {
		out = append(out, filterCase{"year", []predSpec{values(colYear, "9", "10", "2020", "-5")}})
	}
	if capDict {
		out = append(out, filterCase{"capacity", []predSpec{values(colCap, "1.5", "100", "-2.25", "0", "0.001")}})
	}
	return out
}

// TestNumericInputs: sum, avg, min, max and count non-null over an integer column and over
// a float column, each held as dictionary codes or as plain values, equal the exact reference,
// per group and over the whole selection, through Aggregate and Compute (with every op at
// once); count non-null over text columns (dictionary and plain) counts their non-null rows;
// numeric dictionaries filter and group in numeric order.
func TestNumericInputs(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 70000} {
		fx := newFixture(t, genRows(int64(2000+n), n))
		for _, lay := range numericLayouts {
			tbl, err := Load(fx.path, numericSpecs(lay.yearDict, lay.capDict, lay.plantPlain))
			if err != nil {
				t.Fatal(err)
			}
			checkNumericLoad(t, fx, tbl, lay.yearDict, lay.capDict)
			keySets := [][]string{nil, {colRegion}, {colFuel, colActive}, {colH1, colH2, colH3}}
			if lay.yearDict {
				keySets = append(keySets, []string{colYear}, []string{colRegion, colYear})
			}
			if lay.capDict {
				keySets = append(keySets, []string{colCap}, []string{colCap, colRegion})
			}
			for _, fc := range numericFilters(lay.yearDict, lay.capDict) {
				for _, keys := range keySets {
					if n > 1000 && (len(keys) == 3 || fc.name == "one/values" || fc.name == "three") {
						continue // the smaller tables run these; the largest crosses chunks on the rest
					}
					name := fmt.Sprintf("rows=%d/%s/%s/by=%s", n, lay.name, fc.name, strings.Join(keys, ","))
					t.Run(name, func(t *testing.T) { checkNumericQuery(t, fx, tbl, fc.preds, keys) })
				}
			}
		}
	}
}

// checkNumericLoad checks a numeric dictionary's order and numbers, and each column's Numbers
// view against the rows.
func checkNumericLoad(t *testing.T, fx *fixture, tbl *Table, yearDict, capDict bool) {
	t.Helper()
	for _, col := range []string{colYear, colCap} {
		c := tbl.Col(col)
		if !c.Numeric() {
			t.Fatalf("%s: not Numeric (kind %d)", col, c.Kind)
		}
		if (col == colYear && yearDict) || (col == colCap && capDict) {
			if c.Kind != Dict || len(c.Nums) != len(c.Values) {
				t.Fatalf("%s: kind %d with %d numbers for %d values", col, c.Kind, len(c.Nums), len(c.Values))
			}
			if want := refNumDict(fx, fieldPos[col]); !slices.Equal(c.Values, want) {
				t.Fatalf("%s: dictionary %q, want %q", col, head(c.Values), head(want))
			}
			for i, v := range c.Values {
				if x, err := strconv.ParseFloat(v, 64); err != nil || x != c.Nums[i] {
					t.Fatalf("%s: value %d %q has number %v", col, i, v, c.Nums[i])
				}
			}
		}
		nv := c.Numbers()
		nulls := 0
		for r, row := range fx.rows {
			valid := nv.Bitmap != nil && nv.Bitmap[(nv.Off+r)>>3]&(1<<((nv.Off+r)&7)) != 0 || nv.Nulls == 0
			var want float64
			switch x := row[fieldPos[col]].(type) {
			case nil:
				nulls++
				if valid {
					t.Fatalf("%s row %d: null row valid in Numbers", col, r)
				}
				continue
			case int64:
				want = float64(x)
			case float64:
				want = x
			}
			if !valid || nv.Vals[r] != want {
				t.Fatalf("%s row %d: Numbers gives %v (valid %v), want %v", col, r, nv.Vals[r], valid, want)
			}
		}
		if nv.Nulls != nulls {
			t.Errorf("%s: Numbers has %d nulls, want %d", col, nv.Nulls, nulls)
		}
	}
	if c := tbl.Col(colRegion); c.Numeric() || c.Numbers() != nil {
		t.Errorf("a text dictionary is Numeric")
	}
}

func checkNumericQuery(t *testing.T, fx *fixture, tbl *Table, preds []predSpec, keys []string) {
	var eng []Predicate
	for _, p := range preds {
		eng = append(eng, p.engine(tbl))
	}
	sel := tbl.Filter(eng)
	refSel := fx.refSelect(preds)
	if got := selRows(sel); !slices.Equal(got, refSel) {
		t.Fatalf("selection has %d rows, want %d", len(got), len(refSel))
	}
	refGID, refCodes := numericGroups(fx, refSel, keys)
	n := len(refCodes)
	g := tbl.Group(sel, keys)
	if g.N != n {
		t.Fatalf("%d groups, want %d", g.N, n)
	}
	for gi := range refCodes {
		if !slices.Equal(g.Codes[gi], refCodes[gi]) {
			t.Fatalf("group %d has codes %v, want %v", gi, g.Codes[gi], refCodes[gi])
		}
	}
	whole := make([]uint32, len(refSel))
	type want struct{ groups, total Result }
	var ops []Op
	var wants []want
	for _, col := range []string{colYear, colCap, colRegion, colPlant} {
		st, stAll := fx.refAggOf(refSel, refGID, n, fieldPos[col]), fx.refAggOf(refSel, whole, 1, fieldPos[col])
		aggs := []Agg{AggCountNonNull}
		if col == colYear || col == colCap {
			aggs = []Agg{AggCountNonNull, AggSum, AggAvg, AggMin, AggMax}
		}
		for _, agg := range aggs {
			units := []string{""}
			if agg != AggCountNonNull {
				units = append(units, colUnit)
			}
			for _, unit := range units {
				op := Op{Agg: agg, Column: col, Unit: unit}
				w := want{st.expect(agg, unit != ""), stAll.expect(agg, unit != "")}
				ops, wants = append(ops, op), append(wants, w)
				var got Result
				what := fmt.Sprintf("Aggregate(%s, %s, unit=%q)", aggNames[agg], col, unit)
				if !catch(t, what, func() { got = tbl.Aggregate(sel, g, agg, col, unit) }) {
					continue
				}
				if d := diffResult(got, w.groups, agg); d != "" {
					t.Errorf("%s: %s", what, d)
				}
			}
		}
	}
	var ans *Answer
	if !catch(t, "Compute", func() { ans = tbl.Compute(sel, keys, ops, nil) }) {
		return
	}
	for i, op := range ops {
		what := fmt.Sprintf("Compute(%s, %s, unit=%q)", aggNames[op.Agg], op.Column, op.Unit)
		if d := diffResult(ans.Results[i], wants[i].groups, op.Agg); d != "" {
			t.Errorf("%s: %s", what, d)
		}
		if d := diffResult(ans.Totals[i], wants[i].total, op.Agg); d != "" {
			t.Errorf("%s total: %s", what, d)
		}
	}
}

// refNumDict is the reference dictionary of numeric column c: its distinct values as text,
// in numeric order (values equal as numbers, 0 and -0, in text order).
func refNumDict(fx *fixture, c int) []string {
	seen := map[string]bool{}
	var vals []string
	for _, row := range fx.rows {
		if s, ok := textOf(row[c]); ok && !seen[s] {
			seen[s] = true
			vals = append(vals, s)
		}
	}
	slices.SortFunc(vals, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return vals
}

// numericGroups is refGroup with the capacity column coded against its reference numeric
// dictionary (the fixture codes every other column already).
func numericGroups(fx *fixture, sel []int32, keys []string) ([]uint32, [][]int32) {
	if slices.Contains(keys, colCap) {
		saved := fx.codes[colCap]
		defer func() { fx.codes[colCap] = saved }()
		index := map[string]int32{}
		for i, v := range refNumDict(fx, iCap) {
			index[v] = int32(i)
		}
		codes := make([]int32, fx.n)
		for r, row := range fx.rows {
			codes[r] = -1
			if s, ok := textOf(row[iCap]); ok {
				codes[r] = index[s]
			}
		}
		fx.codes[colCap] = codes
	}
	return fx.refGroup(sel, keys)
}

package columnar

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/citeq/citeq/snapshots"
)

// testPercentiles cross the ends, the median, and percentiles whose h falls between values.
var testPercentiles = []float64{0, 5, 10, 25, 50, 75, 90, 95, 100, 33.3}

// refQuantile is the linear (type 7) percentile of vals computed another way: the values
// sorted by sort.Float64s and the interpolation done in exact rational arithmetic, rounded
// once at the end. It is false for no values.
func refQuantile(vals []float64, p float64) (float64, bool) {
	v, _, ok := refQuantileScale(vals, p)
	return v, ok
}

// refQuantileScale is refQuantile and the larger magnitude of the two values interpolated
// between (the scale of the one rounding the kernel may make).
func refQuantileScale(vals []float64, p float64) (float64, float64, bool) {
	if len(vals) == 0 {
		return 0, 0, false
	}
	xs := slices.Clone(vals)
	sort.Float64s(xs)
	pr := new(big.Rat).SetFloat64(p)
	h := new(big.Rat).Mul(big.NewRat(int64(len(xs)-1), 100), pr) // (n-1)·p/100
	j := new(big.Int).Quo(h.Num(), h.Denom())                    // ⌊h⌋ (h >= 0)
	lo := int(j.Int64())
	if lo >= len(xs)-1 {
		return xs[len(xs)-1], 0, true
	}
	frac := new(big.Rat).Sub(h, new(big.Rat).SetInt(j))
	a, b := new(big.Rat).SetFloat64(xs[lo]), new(big.Rat).SetFloat64(xs[lo+1])
	v := new(big.Rat).Add(a, new(big.Rat).Mul(frac, new(big.Rat).Sub(b, a)))
	f, _ := v.Float64()
	if frac.Sign() == 0 {
		return f, 0, true
	}
	return f, max(math.Abs(xs[lo]), math.Abs(xs[lo+1])), true
}

// refQuantiles is refQuantile of the measure per reference group, with the null rows and
// unit mixing of each group, and each value's rounding scale (0: exact).
func (fx *fixture) refQuantiles(sel []int32, gid []uint32, n int, p float64, withUnit bool) (Result, []float64) {
	res := Result{Values: make([]float64, n), Valid: make([]bool, n), NullRows: make([]int64, n), Mixed: make([]bool, n)}
	scale := make([]float64, n)
	vals := make([][]float64, n)
	st := fx.refAgg(sel, gid, n)
	for i, r := range sel {
		if v, ok := fx.rows[r][iCap].(float64); ok {
			vals[gid[i]] = append(vals[gid[i]], v)
		}
	}
	for g := range n {
		res.NullRows[g] = st.nullRows[g]
		if withUnit && st.mixed[g] {
			res.Mixed[g] = true
			continue
		}
		res.Values[g], scale[g], res.Valid[g] = refQuantileScale(vals[g], p)
	}
	return res, scale
}

// diffQuantile is diffResult for percentiles: flags and counts exact, a value exact where h
// falls on a value, else within the rounding of one interpolation step (a few units in the
// last place of the larger of the two values interpolated between).
func diffQuantile(got, want Result, scale []float64) string {
	if d := diffResult(got, want, AggMin); d == "" || len(got.Values) != len(want.Values) {
		return d
	}
	var out []string
	for g := range want.Values {
		switch {
		case got.Valid[g] != want.Valid[g] || got.Mixed[g] != want.Mixed[g] || got.NullRows[g] != want.NullRows[g]:
			out = append(out, fmt.Sprintf("group %d: Valid %v Mixed %v NullRows %d, want %v %v %d", g, got.Valid[g], got.Mixed[g], got.NullRows[g], want.Valid[g], want.Mixed[g], want.NullRows[g]))
		case want.Valid[g] && math.Abs(got.Values[g]-want.Values[g]) > 4*scale[g]*0x1p-52:
			out = append(out, fmt.Sprintf("group %d: value %v want %v", g, got.Values[g], want.Values[g]))
		}
	}
	return strings.Join(out, "; ")
}

// TestQuantileKernel compares Compute's percentiles with the reference on random tables,
// filtered and grouped every way checkQuery does, with and without the unit column, per group
// and over the whole selection, beside the other aggregations of the same pass.
func TestQuantileKernel(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 70000} {
		fx := newFixture(t, genRows(int64(3000+n), n))
		for _, fc := range filterCases {
			for _, keys := range keySets {
				if n > 1000 && fc.name != "none" && fc.name != "two/int+range" {
					continue
				}
				checkQuantiles(t, fx, fc.preds, keys)
			}
		}
	}
}

func checkQuantiles(t *testing.T, fx *fixture, preds []predSpec, keys []string) {
	t.Helper()
	q := fmt.Sprintf("rows=%d where %v by %q", fx.n, preds, keys)
	var eng []Predicate
	for _, p := range preds {
		eng = append(eng, p.engine(fx.tbl))
	}
	sel := fx.tbl.Filter(eng)
	refSel := fx.refSelect(preds)
	refGID, refCodes := fx.refGroup(refSel, keys)
	whole := make([]uint32, len(refSel))
	var ops []Op
	for _, p := range testPercentiles {
		for _, unit := range []string{"", colUnit} {
			ops = append(ops, Op{Agg: AggQuantile, Column: colCap, Unit: unit, Percentile: p})
		}
	}
	ops = append(ops, Op{Agg: AggMin, Column: colCap}, Op{Agg: AggSum, Column: colCap, Unit: colUnit})
	var ans *Answer
	if !catch(t, q+": Compute", func() { ans = fx.tbl.Compute(sel, keys, ops, nil) }) {
		return
	}
	if ans.Groups.N != len(refCodes) {
		t.Fatalf("%s: %d groups, want %d", q, ans.Groups.N, len(refCodes))
	}
	for i, op := range ops {
		if op.Agg != AggQuantile {
			continue
		}
		what := fmt.Sprintf("%s: p%v unit=%q", q, op.Percentile, op.Unit)
		refGroups, groupScale := fx.refQuantiles(refSel, refGID, len(refCodes), op.Percentile, op.Unit != "")
		refTotal, totalScale := fx.refQuantiles(refSel, whole, 1, op.Percentile, op.Unit != "")
		if d := diffQuantile(ans.Results[i], refGroups, groupScale); d != "" {
			t.Errorf("%s: %s", what, d)
		}
		if d := diffQuantile(ans.Totals[i], refTotal, totalScale); d != "" {
			t.Errorf("%s total: %s", what, d)
		}
	}
	// The other aggregations of the same pass are unchanged by the percentiles beside them.
	st, stAll := fx.refAgg(refSel, refGID, len(refCodes)), fx.refAgg(refSel, whole, 1)
	n := len(ops)
	if d := diffResult(ans.Results[n-2], st.expect(AggMin, false), AggMin); d != "" {
		t.Errorf("%s: min beside percentiles: %s", q, d)
	}
	if d := diffResult(ans.Totals[n-1], stAll.expect(AggSum, true), AggSum); d != "" {
		t.Errorf("%s: total sum beside percentiles: %s", q, d)
	}
}

// TestQuantileCases checks hand-made groups with their figures written out: ties, one value,
// all null, even and odd counts, negative values, and mixed units.
func TestQuantileCases(t *testing.T) {
	type in struct {
		fuel, unit string
		v          any
	}
	var data []in
	add := func(fuel, unit string, vs ...any) {
		for _, v := range vs {
			data = append(data, in{fuel, unit, v})
		}
	}
	add("a_even", "MW", 4.0, 1.0, 3.0, 2.0)              // 1 2 3 4
	add("b_odd", "MW", 5.0, nil, 1.0, 3.0)               // 1 3 5, one null
	add("c_ties", "MW", 2.0, 2.0, 2.0, 7.0, 2.0)         // 2 2 2 2 7
	add("d_one", "MW", -3.5, nil)                        // one value
	add("e_null", "MW", nil, nil)                        // all null
	add("f_mixed", "MW", 1.0)                            // units differ among values
	add("f_mixed", "kW", 2.0)                            //
	add("g_neg", "MW", -1.0, -10.0, 0.0, 10.0, 1.0, 0.5) // -10 -1 0 0.5 1 10
	var rows []snapshots.Row
	for _, d := range data {
		rows = append(rows, row(map[int]any{iFuel: d.fuel, iUnit: d.unit, iCap: d.v}))
	}
	fx := newFixture(t, rows)
	null := math.NaN()
	cases := []struct {
		p    float64
		want []float64 // per fuel in order; NaN: null
	}{
		{50, []float64{2.5, 3, 2, -3.5, null, null, 0.25}},
		{0, []float64{1, 1, 2, -3.5, null, null, -10}},
		{100, []float64{4, 5, 7, -3.5, null, null, 10}},
		{25, []float64{1.75, 2, 2, -3.5, null, null, -0.75}},
		{90, []float64{3.7, 4.6, 5, -3.5, null, null, 5.5}},
		{10, []float64{1.3, 1.4, 2, -3.5, null, null, -5.5}},
	}
	sel := fx.tbl.Filter(nil)
	var ops []Op
	for _, c := range cases {
		ops = append(ops, Op{Agg: AggQuantile, Column: colCap, Unit: colUnit, Percentile: c.p})
	}
	ans := fx.tbl.Compute(sel, []string{colFuel}, ops, nil)
	wantNulls := []int64{0, 1, 0, 1, 2, 0, 0}
	for i, c := range cases {
		res := ans.Results[i]
		for g, want := range c.want {
			if math.IsNaN(want) {
				if res.Valid[g] {
					t.Errorf("p%v group %d: %v, want null", c.p, g, res.Values[g])
				}
				continue
			}
			if !res.Valid[g] || math.Abs(res.Values[g]-want) > 1e-12 {
				t.Errorf("p%v group %d: %v (valid %v), want %v", c.p, g, res.Values[g], res.Valid[g], want)
			}
		}
		if !slices.Equal(res.NullRows, wantNulls) {
			t.Errorf("p%v: NullRows %v, want %v", c.p, res.NullRows, wantNulls)
		}
		if want := []bool{false, false, false, false, false, true, false}; !slices.Equal(res.Mixed, want) {
			t.Errorf("p%v: Mixed %v, want %v", c.p, res.Mixed, want)
		}
		if ans.Totals[i].Valid[0] || !ans.Totals[i].Mixed[0] {
			t.Errorf("p%v total over mixed units: valid %v mixed %v, want null and mixed", c.p, ans.Totals[i].Valid[0], ans.Totals[i].Mixed[0])
		}
	}
	// Without the unit check, the whole table's median: 20 values.
	tot := fx.tbl.Compute(sel, nil, []Op{{Agg: AggQuantile, Column: colCap, Percentile: 50}}, nil).Totals[0]
	var all []float64
	for _, d := range data {
		if v, ok := d.v.(float64); ok {
			all = append(all, v)
		}
	}
	if want, _ := refQuantile(all, 50); !tot.Valid[0] || tot.Values[0] != want || tot.NullRows[0] != 4 || want != 2 {
		t.Errorf("total median %v (valid %v, nulls %d), want %v (2) with 4 nulls", tot.Values[0], tot.Valid[0], tot.NullRows[0], want)
	}
	checkQuantiles(t, fx, nil, []string{colFuel})
	checkQuantiles(t, fx, []predSpec{values(colFuel, "a_even", "g_neg")}, nil)
}

// TestQuantileOf checks Quantile itself at the edges.
func TestQuantileOf(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		p    float64
		want float64
		ok   bool
	}{
		{nil, 50, 0, false},
		{[]float64{7}, 0, 7, true},
		{[]float64{7}, 50, 7, true},
		{[]float64{7}, 100, 7, true},
		{[]float64{1, 2}, 50, 1.5, true},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 10, 2, true}, // h = 1 exactly
		{[]float64{-math.MaxFloat64, math.MaxFloat64}, 50, 0, true}, // no overflow
		{[]float64{0.1, 0.2, 0.3}, 75, 0.25, true},
	} {
		got, ok := Quantile(c.xs, c.p)
		if ok != c.ok || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Quantile(%v, %v) = %v, %v; want %v, %v", c.xs, c.p, got, ok, c.want, c.ok)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a percentile above 100 did not panic")
		}
	}()
	fx := newFixture(t, genRows(1, 10))
	fx.tbl.Compute(fx.tbl.Filter(nil), nil, []Op{{Agg: AggQuantile, Column: colCap, Percentile: 101}}, nil)
}

// TestSelectAt: selectAt puts at each asked position the value sorting puts there (zeros of
// either sign being equal), over values with duplicates, NaNs, infinities and signed zeros,
// at sizes around the length it sorts outright and on inputs already in order.
func TestSelectAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e308, -1e308, 5e-324}
	for _, n := range []int{1, 2, 3, 47, 48, 49, 100, 1000, 20000, bracketMin - 1, bracketMin, 200000} {
		for trial := range 20 {
			if n >= bracketMin && trial >= 8 {
				break
			}
			xs := make([]float64, n)
			for i := range xs {
				switch r := rng.IntN(10); {
				case trial == 4: // one value throughout
					xs[i] = 2.5
				case trial == 5 && r < 9: // mostly NaNs
					xs[i] = math.NaN()
				case r == 0:
					xs[i] = specials[rng.IntN(len(specials))]
				case r < 5:
					xs[i] = float64(rng.IntN(7)) // many equal values
				default:
					xs[i] = rng.NormFloat64() * 100
				}
			}
			switch trial % 4 {
			case 1:
				slices.Sort(xs)
			case 2:
				slices.Sort(xs)
				slices.Reverse(xs)
			}
			want := slices.Clone(xs)
			sort.Float64s(want)
			var ps []float64
			for range 1 + rng.IntN(4) {
				ps = append(ps, []float64{0, 10, 50, 90, 100, 33.3, 99.9}[rng.IntN(7)])
			}
			ks := quantilePositions(n, ps)
			same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
			vs := selectValues(slices.Clone(xs), ks)
			got := slices.Clone(xs)
			selectAt(got, ks)
			for i, k := range ks {
				if g, w := got[k], want[k]; !same(g, w) {
					t.Fatalf("n=%d trial %d: position %d holds %v, want %v", n, trial, k, g, w)
				}
				if !same(vs[i], want[k]) {
					t.Fatalf("n=%d trial %d: selectValues at position %d = %v, want %v", n, trial, k, vs[i], want[k])
				}
			}
			r := rankValues(slices.Clone(xs), ps)
			for _, p := range ps {
				g, _ := r.quantile(p)
				w, _ := Quantile(want, p)
				if !same(g, w) {
					t.Fatalf("n=%d trial %d: ranked percentile %v = %v, want %v", n, trial, p, g, w)
				}
			}
			for _, p := range ps {
				g, _ := Quantile(got, p)
				w, _ := Quantile(want, p)
				if g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
					t.Fatalf("n=%d trial %d: percentile %v = %v over the selected values, %v over the sorted ones", n, trial, p, g, w)
				}
			}
			slices.Sort(got)
			slices.Sort(xs)
			if !slices.EqualFunc(got, xs, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
				t.Fatalf("n=%d trial %d: selectAt changed the values", n, trial)
			}
		}
	}
}

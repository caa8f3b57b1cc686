package columnar

import (
	"fmt"
	"math"
	"slices"
)

// Quantile is the p-th percentile (0 <= p <= 100) of xs, which must be sorted ascending, by
// the linear definition (type 7 of Hyndman and Fan; numpy.percentile's default, R's
// quantile, Excel's PERCENTILE.INC): with h = (n-1)·p/100 it is
// x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]). The median is p = 50 (the mean of the two middle
// values of an even count); one value is its own percentile. It is false for no values.
func Quantile(xs []float64, p float64) (float64, bool) {
	n := len(xs)
	if n == 0 {
		return 0, false
	}
	// h·100 = (n-1)·p, held as the rounded product and its exact error, so that h's whole
	// and fractional parts are right for any percentile, not only whole ones.
	num := float64(n-1) * p
	e := math.FMA(float64(n-1), p, -num)
	whole := math.Floor(num / 100)
	rest := (num - 100*whole) + e // h·100 - 100·⌊h⌋, num - 100·whole being exact
	switch {
	case rest < 0:
		whole, rest = whole-1, rest+100
	case rest >= 100:
		whole, rest = whole+1, rest-100
	}
	lo := int(whole)
	switch {
	case lo < 0:
		return xs[0], true
	case lo >= n-1:
		return xs[n-1], true
	}
	frac := rest / 100
	a, b := xs[lo], xs[lo+1]
	if frac == 0 || a == b {
		return a, true
	}
	if d := b - a; !math.IsInf(d, 0) {
		return a + frac*d, true
	}
	return a*(1-frac) + b*frac, true
}

// quantiles computes the AggQuantile ops of a Compute: the exact percentile of each group's
// non-null inputs and of the whole selection's. run has already set their null-row counts
// and unit mixing (a quantile's input is a float input like a sum's); a group with no
// non-null input, or whose inputs mix units, stays null. used are the slots of the groups,
// in group order; whole says whether the totals are separate results (a grouped query).
func (t *Table) quantiles(sel Selection, sl *slotter, used []uint32, ops []Op, ans *Answer, whole bool) {
	var cols []*Column
	for _, op := range ops {
		if op.Agg != AggQuantile {
			continue
		}
		if !(op.Percentile >= 0 && op.Percentile <= 100) {
			panic(fmt.Errorf("columnar: percentile %v of column %s is not between 0 and 100", op.Percentile, op.Column))
		}
		if c := t.mustCol(op.Column); !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return
	}
	group := make([]int32, sl.space)
	for i := range group {
		group[i] = -1
	}
	for g, s := range used {
		group[s] = int32(g)
	}
	for _, c := range cols {
		vals, offs := groupValues(sel, sl, group, len(used), c)
		var all []float64 // every group's values, sorted: the whole selection's
		for i, op := range ops {
			if op.Agg != AggQuantile || t.mustCol(op.Column) != c {
				continue
			}
			res := ans.Results[i]
			for g := range used {
				if v, ok := Quantile(vals[offs[g]:offs[g+1]], op.Percentile); ok && !res.Mixed[g] {
					res.Values[g], res.Valid[g] = v, true
				}
			}
			if !whole {
				continue
			}
			if all == nil {
				all = slices.Clone(vals)
				slices.Sort(all)
			}
			tot := ans.Totals[i]
			if v, ok := Quantile(all, op.Percentile); ok && !tot.Mixed[0] {
				tot.Values[0], tot.Valid[0] = v, true
			}
		}
	}
}

// groupValues gathers the non-null values of column c over the selection by group (group
// maps a slot to its group, or -1): group g's values are vals[offs[g]:offs[g+1]], sorted
// ascending.
func groupValues(sel Selection, sl *slotter, group []int32, groups int, c *Column) (vals []float64, offs []int) {
	nv := c.Numbers()
	if nv == nil {
		panic(fmt.Errorf("columnar: a percentile of column %s, which does not hold numbers", c.Name))
	}
	valid := func(r int) bool {
		if nv.Nulls == 0 {
			return true
		}
		b := nv.Off + r
		return nv.Bitmap[b>>3]&(1<<(b&7)) != 0
	}
	n := sel.Len()
	gid := make([]int32, n) // each selected row's group, -1 when its value is null
	counts := make([]int, groups+1)
	buf := make([]uint32, min(n, chunkRows))
	for lo := 0; lo < n; lo += chunkRows {
		hi := min(n, lo+chunkRows)
		slots := sl.fill(sel, lo, hi, buf)
		for i, s := range slots {
			g := group[s]
			if g < 0 || !valid(sel.Row(lo+i)) {
				gid[lo+i] = -1
				continue
			}
			gid[lo+i] = g
			counts[g+1]++
		}
	}
	offs = counts
	for g := 1; g <= groups; g++ {
		offs[g] += offs[g-1]
	}
	vals = make([]float64, offs[groups])
	next := slices.Clone(offs[:groups])
	for i, g := range gid {
		if g >= 0 {
			vals[next[g]] = nv.Vals[sel.Row(i)]
			next[g]++
		}
	}
	for g := range groups {
		slices.Sort(vals[offs[g]:offs[g+1]])
	}
	return vals, offs
}

package columnar

import (
	"fmt"
	"math"
	bits64 "math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
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
	return quantileOf(n, p, func(k int) float64 { return xs[k] }), true
}

// quantileOf is the p-th percentile of n > 0 values, the value of sorted position k being
// at(k) (Quantile).
func quantileOf(n int, p float64, at func(int) float64) float64 {
	lo, frac := quantileAt(n, p)
	if frac == 0 {
		return at(lo)
	}
	a, b := at(lo), at(lo+1)
	if a == b {
		return a
	}
	if d := b - a; !math.IsInf(d, 0) {
		return a + frac*d
	}
	return a*(1-frac) + b*frac
}

// quantileAt is where the p-th percentile of n > 0 sorted values lies: between the values at
// lo and lo+1, at frac (0 <= frac < 1) of the way; when frac is 0 the value at lo is the
// percentile and lo+1 is not read (it may be n).
func quantileAt(n int, p float64) (int, float64) {
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
		return 0, 0
	case lo >= n-1:
		return n - 1, 0
	}
	return lo, rest / 100
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
		var ps []float64 // the column's percentiles
		for _, op := range ops {
			if op.Agg == AggQuantile && t.mustCol(op.Column) == c {
				ps = append(ps, op.Percentile)
			}
		}
		vals, offs := groupValues(sel, sl, group, len(used), c)
		// Each group's values at the positions its percentiles read, and the whole
		// selection's (every group's values together).
		ranked := make([]rankedValues, len(used))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(used)) {
			wg.Add(1)
			go func() { // the groups on all cores, each group's values on one
				defer wg.Done()
				for g := int(next.Add(1) - 1); g < len(used); g = int(next.Add(1) - 1) {
					ranked[g] = rankValues(vals[offs[g]:offs[g+1]], ps)
				}
			}()
		}
		wg.Wait()
		var all rankedValues
		if whole {
			all = rankValues(vals, ps)
		}
		for i, op := range ops {
			if op.Agg != AggQuantile || t.mustCol(op.Column) != c {
				continue
			}
			res := ans.Results[i]
			for g := range used {
				if v, ok := ranked[g].quantile(op.Percentile); ok && !res.Mixed[g] {
					res.Values[g], res.Valid[g] = v, true
				}
			}
			if !whole {
				continue
			}
			tot := ans.Totals[i]
			if v, ok := all.quantile(op.Percentile); ok && !tot.Mixed[0] {
				tot.Values[0], tot.Valid[0] = v, true
			}
		}
	}
}

// rankedValues are the values some percentiles of n values read: the value of sorted
// position ks[i] is vs[i].
type rankedValues struct {
	n  int
	ks []int
	vs []float64
}

// rankValues finds the values of xs that the percentiles ps read; xs is reordered.
func rankValues(xs []float64, ps []float64) rankedValues {
	ks := quantilePositions(len(xs), ps)
	return rankedValues{n: len(xs), ks: ks, vs: selectValues(xs, ks)}
}

// quantile is the p-th percentile of the values (p among those they were ranked for); false
// for no values.
func (r rankedValues) quantile(p float64) (float64, bool) {
	if r.n == 0 {
		return 0, false
	}
	return quantileOf(r.n, p, func(k int) float64 { return r.vs[sort.SearchInts(r.ks, k)] }), true
}

// groupValues gathers the non-null values of column c over the selection by group (group
// maps a slot to its group, or -1): group g's values are vals[offs[g]:offs[g+1]], in row
// order.
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
	if sl.space == 1 && sel.All && groups == 1 && nv.Off%64 == 0 {
		// One group of every row: the non-null values, a word of validity at a time.
		vals = make([]float64, 0, n-nv.Nulls)
		for w := 0; w < n; w += 64 {
			k := min(64, n-w)
			word := uint64(1)<<k - 1
			if k == 64 {
				word = math.MaxUint64
			}
			if nv.Nulls > 0 {
				word &= validWord(nv.Bitmap, nv.Off+w, k)
			}
			if word == math.MaxUint64 {
				vals = append(vals, nv.Vals[w:w+64]...)
				continue
			}
			for ; word != 0; word &= word - 1 {
				vals = append(vals, nv.Vals[w+bits64.TrailingZeros64(word)])
			}
		}
		return vals, []int{0, len(vals)}
	}
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
	return vals, offs
}

// Bracketing in selectValues: from bracketMin values on, a sample of at most sampleSize
// values (one in 64) brackets each position within ±2·√size+8 ranks of the sample, 4
// standard deviations or more of the sample rank of the position's value.
const (
	sampleSize = 1 << 14
	bracketMin = 1 << 16
)

// selectValues returns, for each of the ascending positions ks of xs sorted (in the order
// of cmp.Less: NaNs first), the value sorting would put there; xs is reordered. Many
// values are not reordered but bracketed (Floyd and Rivest's idea): a sorted sample of them
// gives, around each position, two values that hold it between them with near certainty;
// one pass counts the values below each bracket and gathers those within, and the positions
// are found among the few gathered. A bracket that misses its position, or gathers most of
// the values (a value repeated throughout), falls back to selectAt.
func selectValues(xs []float64, ks []int) []float64 {
	out := make([]float64, len(ks))
	if len(ks) == 0 {
		return out
	}
	n := len(xs)
	if n < bracketMin {
		selectAt(xs, ks)
		for i, k := range ks {
			out[i] = xs[k]
		}
		return out
	}
	nan, aNaN := 0, math.NaN() // the NaNs, and one of them
	for _, v := range xs {
		if v != v {
			nan, aNaN = nan+1, v
		}
	}
	size := min(sampleSize, n/64) // a sample to sort of n^(2/3)/4 or less, at least 1024
	ranks := 2*int(math.Sqrt(float64(size))) + 8
	sample := make([]float64, 0, size)
	for i := range size {
		if v := xs[int(int64(i)*int64(n)/int64(size))]; v == v {
			sample = append(sample, v)
		}
	}
	slices.Sort(sample)
	m, rest := len(sample), n-nan // sampled and non-NaN values
	// One bracket [lo, hi] per position past the NaNs, merged where they overlap.
	type bracket struct {
		lo, hi float64
		less   int
		in     []float64
	}
	var bs []bracket
	of := make([]int, len(ks)) // each position's bracket (-1: a NaN)
	for i, k := range ks {
		if k < nan || m == 0 {
			of[i] = -1
			continue
		}
		at := int(int64(k-nan) * int64(m) / int64(rest))
		lo, hi := math.Inf(-1), math.Inf(1)
		if at-ranks >= 0 {
			lo = sample[at-ranks]
		}
		if at+ranks < m {
			hi = sample[at+ranks]
		}
		if j := len(bs) - 1; j >= 0 && lo <= bs[j].hi {
			bs[j].hi = max(bs[j].hi, hi)
		} else {
			bs = append(bs, bracket{lo: lo, hi: hi})
		}
		of[i] = len(bs) - 1
	}
	// Each chunk of values on its own core: the values below each bracket and those within.
	type part struct {
		less []int
		in   [][]float64
	}
	parts := make([]part, (n+chunkRows-1)/chunkRows)
	parallelFor(n, func(lo, hi int) {
		pt := part{less: make([]int, len(bs)), in: make([][]float64, len(bs))}
		for j := range bs {
			blo, bhi, less, in := bs[j].lo, bs[j].hi, 0, []float64(nil)
			for _, v := range xs[lo:hi] {
				below := 0 // no branch: a value is below a middle bracket about as often as not
				if v < blo {
					below = 1
				}
				less += below
				if v >= blo && v <= bhi {
					in = append(in, v)
				}
			}
			pt.less[j], pt.in[j] = less, in
		}
		parts[lo/chunkRows] = pt
	})
	for _, pt := range parts {
		for j := range bs {
			bs[j].less += pt.less[j]
			bs[j].in = append(bs[j].in, pt.in[j]...)
		}
	}
	fallback := false
	for i, k := range ks {
		if of[i] < 0 {
			continue
		}
		b := &bs[of[i]]
		if r := k - nan - b.less; r < 0 || r >= len(b.in) || 2*len(b.in) > n {
			fallback = true
		}
	}
	if fallback || m == 0 {
		selectAt(xs, ks)
		for i, k := range ks {
			out[i] = xs[k]
		}
		return out
	}
	for j := range bs {
		b := &bs[j]
		var rs []int // the bracket's positions, among its values
		for i, k := range ks {
			if of[i] == j {
				rs = append(rs, k-nan-b.less)
			}
		}
		vs := selectValues(b.in, slices.Compact(rs))
		for i, k := range ks {
			if of[i] == j {
				out[i] = vs[slices.Index(slices.Compact(rs), k-nan-b.less)]
			}
		}
	}
	for i := range ks {
		if of[i] < 0 {
			out[i] = aNaN
		}
	}
	return out
}

// quantilePositions are the ascending, distinct positions among n sorted values that the
// percentiles ps read (Quantile).
func quantilePositions(n int, ps []float64) []int {
	if n == 0 {
		return nil
	}
	var ks []int
	for _, p := range ps {
		lo, frac := quantileAt(n, p)
		ks = append(ks, lo)
		if frac != 0 {
			ks = append(ks, lo+1)
		}
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// selectSmall is the length up to which selectAt sorts a range outright.
const selectSmall = 48

// selectAt reorders xs so that, for each of the ascending positions ks, xs[k] is a value
// slices.Sort would put at k (in the order of cmp.Less: NaNs first), every value before it
// not after it and every value after it not before it. Only the ranges holding a position
// are partitioned further (quickselect around a median of nine: the values below the pivot,
// then, where a position lies beyond them, those equal to it, so that a run of equal values
// ends at once; partitions without branches on the values); a range partitioned too many
// times is sorted, which bounds the work by that of a sort.
func selectAt(xs []float64, ks []int) {
	if len(ks) == 0 {
		return
	}
	// NaNs first, where sorting puts them; the rest is ordered by <.
	nan := 0
	for i, v := range xs {
		if v != v {
			xs[nan], xs[i] = v, xs[nan]
			nan++
		}
	}
	ks = ks[sort.SearchInts(ks, nan):]
	xs = xs[nan:]
	depth := 2 * bits64.Len(uint(len(xs)))
	selectRange(xs, nan, ks, depth)
}

// selectRange is selectAt over xs, which holds no NaN and starts at position base of the
// whole, for the positions ks (absolute, ascending, each within xs).
func selectRange(xs []float64, base int, ks []int, depth int) {
	for len(ks) > 0 {
		if len(xs) <= selectSmall || depth == 0 {
			slices.Sort(xs)
			return
		}
		depth--
		p := pivot(xs)
		// xs[:lt] are less than the pivot; then, where a position lies beyond them, those
		// equal to it, xs[lt:gt], are set apart from the greater ones, xs[gt:].
		lt := partitionBy(xs, func(v float64) bool { return v < p })
		i := sort.SearchInts(ks, base+lt)
		if i > 0 {
			selectRange(xs[:lt], base, ks[:i], depth)
		}
		if i == len(ks) {
			return
		}
		gt := lt + partitionBy(xs[lt:], func(v float64) bool { return v <= p })
		j := sort.SearchInts(ks, base+gt)
		xs, base, ks = xs[gt:], base+gt, ks[j:]
	}
}

// pivot is a median of nine values of xs (no NaN among them), spread over it: the median of
// the medians of three triples.
func pivot(xs []float64) float64 {
	n := len(xs)
	s := n / 8
	return median3(median3(xs[0], xs[s], xs[2*s]), median3(xs[3*s], xs[n/2], xs[5*s]), median3(xs[6*s], xs[7*s], xs[n-1]))
}

// median3 is the middle one of a, b and c (no NaN among them).
func median3(a, b, c float64) float64 {
	if b < a {
		a, b = b, a
	}
	if c < b {
		b = max(a, c)
	}
	return b
}

// partitionBy moves the values of xs for which in holds before the others (in no particular
// order) and returns how many there are. The loop has no branch on the values, so data in
// no order costs no mispredicted branches.
func partitionBy(xs []float64, in func(float64) bool) int {
	n := 0
	for i, v := range xs {
		xs[i] = xs[n]
		xs[n] = v
		if in(v) {
			n++
		}
	}
	return n
}

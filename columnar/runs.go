package columnar

import "sort"

// maxRunShare bounds the runs a Dict column may have for Runs to describe it: at most one
// run per maxRunShare rows on average. Beyond it a chunk would cross too many runs for
// run-by-run work to pay.
const maxRunShare = 64

// Runs returns the first row of each run of equal codes of a Dict column (the first is 0),
// when the column's rows come in runs (a source file's rows follow each other, and so do a
// sheet's): at most one run per maxRunShare rows on average; nil otherwise, or when the
// column is not a Dict column or has no row. It is computed once, on first use.
func (c *Column) Runs() []int32 {
	if c.Kind != Dict {
		return nil
	}
	c.runsOnce.Do(func() {
		n := len(c.Codes)
		if n == 0 {
			return
		}
		limit := n/maxRunShare + 1
		chunks := (n + chunkRows - 1) / chunkRows
		parts := make([][]int32, chunks)
		parallelFor(n, func(lo, hi int) {
			var starts []int32
			prev := c.Codes[max(lo-1, 0)]
			if lo == 0 {
				starts = append(starts, 0)
			}
			for i, code := range c.Codes[lo:hi] {
				if code != prev {
					if len(starts) >= limit {
						starts = nil // too many: the column is not in runs
						parts[lo/chunkRows] = []int32{-1}
						return
					}
					starts = append(starts, int32(lo+i))
					prev = code
				}
			}
			parts[lo/chunkRows] = starts
		})
		var all []int32
		for _, p := range parts {
			if len(p) == 1 && p[0] == -1 {
				return
			}
			all = append(all, p...)
			if len(all) > limit {
				return
			}
		}
		c.runs = all
		c.grow(4 * int64(len(all)))
	})
	return c.runs
}

// runAt is the index of the run of starts (Runs) holding row r.
func runAt(starts []int32, r int) int {
	return sort.Search(len(starts), func(i int) bool { return int(starts[i]) > r }) - 1
}

// runsIn is the number of runs of starts that begin in rows (a, b].
func runsIn(starts []int32, a, b int) int {
	return runAt(starts, b) - runAt(starts, a)
}

// segments calls fn for each stretch of selected rows [lo, hi) (positions in the
// selection) over which both Dict columns x and y keep one code, in order, with the
// stretch's positions relative to lo and its two codes. xs and ys are the columns' Runs.
// It reports false, without calling fn, when the stretches would be too many for the
// chunk: more than one per 8 selected rows.
func segments(sel Selection, lo, hi int, x, y []int32, xs, ys []int32, fn func(a, b int, cx, cy int32)) bool {
	if hi <= lo {
		return true
	}
	rlo, rhi := sel.Row(lo), sel.Row(hi-1)+1 // rows [rlo, rhi) hold the chunk
	if !sel.All && runsIn(xs, rlo, rhi-1)+runsIn(ys, rlo, rhi-1) > (hi-lo)/8 {
		return false
	}
	xi, yi := runAt(xs, rlo), runAt(ys, rlo)
	end := func(starts []int32, i int) int {
		if i+1 < len(starts) {
			return int(starts[i+1])
		}
		return len(x)
	}
	xe, ye := end(xs, xi), end(ys, yi)
	pa := lo
	for a := rlo; a < rhi; {
		b := min(xe, ye, rhi)
		pb := hi
		if sel.All {
			pb = b
		} else if b < rhi {
			idx := sel.Idx
			pb = pa + sort.Search(hi-pa, func(i int) bool { return int(idx[pa+i]) >= b })
		}
		if pb > pa {
			fn(pa-lo, pb-lo, x[a], y[a])
		}
		pa, a = pb, b
		if b == xe {
			xi++
			xe = end(xs, xi)
		}
		if b == ye {
			yi++
			ye = end(ys, yi)
		}
	}
	return true
}

// CountValues returns how many selected rows hold each code of a Dict column (indexed by
// code) and how many are null. Over every row (sel.All) the counts are computed once and
// kept; the slice returned is the caller's to keep.
func (c *Column) CountValues(sel Selection) ([]int64, int64) {
	if sel.All {
		c.countsOnce.Do(func() {
			c.counts, c.countNulls = countCodes(c.Codes, len(c.Values), sel)
			c.grow(8 * int64(len(c.counts)))
		})
		return append([]int64(nil), c.counts...), c.countNulls
	}
	return countCodes(c.Codes, len(c.Values), sel)
}

// countCodes counts the selected rows of each code and the null ones, chunk by chunk on all
// cores.
func countCodes(codes []int32, card int, sel Selection) ([]int64, int64) {
	n := sel.Len()
	parts := make([][]int64, (n+chunkRows-1)/chunkRows)
	parallelFor(n, func(lo, hi int) {
		cnt := make([]int64, card+1) // the last: nulls
		if sel.All {
			for _, code := range codes[lo:hi] {
				cnt[min(uint32(code), uint32(card))]++
			}
		} else {
			for _, r := range sel.Idx[lo:hi] {
				cnt[min(uint32(codes[r]), uint32(card))]++
			}
		}
		parts[lo/chunkRows] = cnt
	})
	out := make([]int64, card+1)
	for _, p := range parts {
		for i, v := range p {
			out[i] += v
		}
	}
	return out[:card], out[card]
}

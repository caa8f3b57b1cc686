package columnar

import (
	"cmp"
	"slices"
	"sort"
	"sync"
)

// Selection is the set of matched rows: all rows, or the ascending row indices in Idx.
type Selection struct {
	All bool
	Idx []int32
	n   int
	buf *[]int32 // Idx's pooled storage, for Release
}

// idxPool recycles the row-index buffers of filters, so a filter over a large table does not
// allocate (and clear) a new one every time.
var idxPool sync.Pool

// Release hands the selection's storage back for reuse by a later Filter; the selection must
// not be used afterwards. Calling it is optional.
func (s *Selection) Release() {
	if s.buf != nil {
		idxPool.Put(s.buf)
		s.buf, s.Idx = nil, nil
	}
}

// Len is the number of selected rows.
func (s Selection) Len() int {
	if s.All {
		return s.n
	}
	return len(s.Idx)
}

// Row returns the table row of the i-th selected row.
func (s Selection) Row(i int) int {
	if s.All {
		return i
	}
	return int(s.Idx[i])
}

// Predicate keeps the rows whose Dict column code is allowed (nulls never match).
type Predicate struct {
	Column string
	Allow  []bool
}

// AllowValues returns the Allow mask of a Dict column for the given values; values absent
// from the dictionary match nothing.
func (c *Column) AllowValues(values []string) []bool {
	allow := make([]bool, len(c.Values))
	for _, v := range values {
		if code := c.Lookup(v); code >= 0 {
			allow[code] = true
		}
	}
	return allow
}

// AllowRange returns the Allow mask of a Dict column for the values v with lo <= v <= hi
// compared as text (ISO dates compare chronologically); an empty bound is open.
func (c *Column) AllowRange(lo, hi string) []bool {
	allow := make([]bool, len(c.Values))
	for i, v := range c.Values {
		allow[i] = (lo == "" || v >= lo) && (hi == "" || v <= hi)
	}
	return allow
}

// Filter applies the predicates (all must hold) and returns the selection.
func (t *Table) Filter(preds []Predicate) Selection {
	if len(preds) == 0 {
		return Selection{All: true, n: t.Rows}
	}
	// The predicate allowing the smallest share of its column's values is tested first (a
	// guess at the most selective); the selection does not depend on the order.
	preds = slices.Clone(preds)
	share := func(p Predicate) float64 {
		n := 0
		for _, a := range p.Allow {
			if a {
				n++
			}
		}
		return float64(n) / float64(max(len(p.Allow), 1))
	}
	slices.SortStableFunc(preds, func(a, b Predicate) int { return cmp.Compare(share(a), share(b)) })
	cols := make([][]int32, len(preds))
	for i, p := range preds {
		cols[i] = t.mustCol(p.Column).Codes
	}
	// Each fixed chunk writes its matches at its own offset of one buffer, on all cores; the
	// chunks' matches are then moved down into place, in order.
	buf, _ := idxPool.Get().(*[]int32)
	if buf == nil || cap(*buf) < t.Rows {
		b := make([]int32, t.Rows)
		buf = &b
	}
	idx := (*buf)[:t.Rows]
	chunks := (t.Rows + chunkRows - 1) / chunkRows
	counts := make([]int, chunks)
	parallelFor(t.Rows, func(lo, hi int) {
		out := idx[lo:hi]
		k := 0
		// Every predicate is tested in the same pass, so only matches are written.
		switch len(preds) {
		case 1:
			a0 := preds[0].Allow
			for i, c := range cols[0][lo:hi] {
				if c >= 0 && a0[c] {
					out[k] = int32(lo + i)
					k++
				}
			}
		case 2:
			a0, a1, c1 := preds[0].Allow, preds[1].Allow, cols[1][lo:hi]
			for i, c := range cols[0][lo:hi] {
				if c >= 0 && a0[c] {
					if d := c1[i]; d >= 0 && a1[d] {
						out[k] = int32(lo + i)
						k++
					}
				}
			}
		default:
		rows:
			for r := lo; r < hi; r++ {
				for p, codes := range cols {
					if c := codes[r]; c < 0 || !preds[p].Allow[c] {
						continue rows
					}
				}
				out[k] = int32(r)
				k++
			}
		}
		counts[lo/chunkRows] = k
	})
	total := 0
	for c, k := range counts {
		copy(idx[total:], idx[c*chunkRows:c*chunkRows+k])
		total += k
	}
	if total < t.Rows/2 {
		idx = append([]int32(nil), idx[:total]...) // a small copy; the buffer goes back
		idxPool.Put(buf)
		buf = nil
	} else {
		idx = idx[:total:total]
	}
	return Selection{Idx: idx, buf: buf}
}

// Grouping assigns each selected row a dense group id; groups are numbered in key order
// (each key's dictionary order, nulls last; the first key is the most significant).
type Grouping struct {
	Keys []*Column
	// GID is the group of each selected row (parallel to the selection); nil when there is a
	// single group for the whole selection (no keys): read it through ID.
	GID []uint32
	// N is the number of groups.
	N int
	// Codes holds each group's key codes (-1 for null), Codes[g][k].
	Codes [][]int32
}

// ID is the group of the i-th selected row.
func (g *Grouping) ID(i int) uint32 {
	if g.GID == nil {
		return 0
	}
	return g.GID[i]
}

// denseLimit bounds the slot space of the dense radix grouping; above it a hash map is used.
const denseLimit = 1 << 22

// Group groups the selection by the Dict columns keys. With no keys every selected row is in
// one group, which exists even when the selection is empty (as SQL aggregates without GROUP
// BY return one row: counts 0, sums null).
func (t *Table) Group(sel Selection, keys []string) *Grouping {
	if len(keys) == 0 {
		return &Grouping{N: 1, Codes: [][]int32{{}}}
	}
	g := &Grouping{GID: make([]uint32, sel.Len())}
	for _, k := range keys {
		g.Keys = append(g.Keys, t.mustCol(k))
	}
	if sl := t.newSlotter(keys); sl.space != 0 {
		// Each row's mixed-radix slot, computed on all cores into GID; then the slots that
		// occur are numbered in key order and GID renumbered in place.
		n := sel.Len()
		parallelFor(n, func(lo, hi int) { sl.fill(sel, lo, hi, g.GID[lo:hi]) })
		used := make([]bool, sl.space)
		for _, s := range g.GID {
			used[s] = true
		}
		id := make([]uint32, sl.space)
		for s, u := range used {
			if u {
				id[s] = uint32(g.N)
				g.Codes = append(g.Codes, g.decode(uint64(s), sl.radix))
				g.N++
			}
		}
		parallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g.GID[i] = id[g.GID[i]]
			}
		})
		return g
	}
	// Sparse: hash the composite key, then number groups in key order.
	ids := map[string]uint32{}
	var keysSeen []string
	buf := make([]byte, 4*len(keys))
	for i := range g.GID {
		r := sel.Row(i)
		for k, col := range g.Keys {
			c := uint32(col.Codes[r])
			if col.Codes[r] < 0 {
				c = uint32(len(col.Values))
			}
			buf[4*k], buf[4*k+1], buf[4*k+2], buf[4*k+3] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
		}
		id, ok := ids[string(buf)]
		if !ok {
			id = uint32(len(keysSeen))
			ids[string(buf)] = id
			keysSeen = append(keysSeen, string(buf))
		}
		g.GID[i] = id
	}
	order := make([]uint32, len(keysSeen))
	for i := range order {
		order[i] = uint32(i)
	}
	sort.Slice(order, func(a, b int) bool { return keysSeen[order[a]] < keysSeen[order[b]] })
	rank := make([]uint32, len(order))
	for newID, old := range order {
		rank[old] = uint32(newID)
		key := keysSeen[old]
		codes := make([]int32, len(keys))
		for k := range codes {
			c := int32(uint32(key[4*k])<<24 | uint32(key[4*k+1])<<16 | uint32(key[4*k+2])<<8 | uint32(key[4*k+3]))
			if int(c) == len(g.Keys[k].Values) {
				c = -1
			}
			codes[k] = c
		}
		g.Codes = append(g.Codes, codes)
	}
	for i, id := range g.GID {
		g.GID[i] = rank[id]
	}
	g.N = len(order)
	return g
}

func (g *Grouping) decode(s uint64, radix []uint64) []int32 {
	codes := make([]int32, len(g.Keys))
	for i, k := range g.Keys {
		c := int32(s / radix[i])
		s %= radix[i]
		if int(c) == len(k.Values) {
			c = -1
		}
		codes[i] = c
	}
	return codes
}

// Agg names an aggregation kernel.
type Agg uint8

// Aggregations.
const (
	AggCount Agg = iota
	AggCountNonNull
	AggSum
	AggAvg
	AggMin
	AggMax
	AggCountDistinct
	// AggQuantile is the exact Op.Percentile-th percentile of the non-null inputs (Quantile);
	// only Compute evaluates it.
	AggQuantile
)

// Result is one aggregate per group. Valid[g] is false where the value is null: a sum, avg,
// min or max over no non-null input, or a unit-mixing set. NullRows counts the rows whose
// input was null; Mixed marks groups whose rows mix units.
type Result struct {
	Values   []float64
	Valid    []bool
	NullRows []int64
	Mixed    []bool
}

// Aggregate computes agg over column col (a Float column, or a Dict column for count
// distinct; unused for counts) for every group of g. When unit names a Dict column, groups
// whose non-null inputs carry more than one unit are null and marked Mixed.
func (t *Table) Aggregate(sel Selection, g *Grouping, agg Agg, col, unit string) Result {
	if agg == AggQuantile {
		panic("columnar: a percentile takes its Op.Percentile: use Compute")
	}
	return t.run(sel, g.slotter(), []Op{{Agg: agg, Column: col, Unit: unit}}, nil).resultOf(0, every(g.N), false)
}

// slotter aggregates by the grouping's ids.
func (g *Grouping) slotter() slotter {
	if g.GID == nil {
		return slotter{space: 1}
	}
	return slotter{space: g.N, gid: g.GID}
}

// every is the slots 0..n-1.
func every(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}

// Source is the lineage of one group within one source file: how many of its rows come from
// the file, the first few of them, and which sheets they lie on.
type Source struct {
	File   int32 // code in the source-file column
	Rows   int64
	Sample []int32 // table rows, in source order
	Sheets []int32 // codes in the sheet column, ascending
}

// Lineage collects each group's sources with up to k sample rows each, from the lineage
// columns fileCol and sheetCol.
func (t *Table) Lineage(sel Selection, g *Grouping, fileCol, sheetCol string, k int) [][]Source {
	return t.run(sel, g.slotter(), nil, &LineageSpec{FileCol: fileCol, SheetCol: sheetCol, K: k}).lineage(every(g.N))
}

func containsCode(list []int32, c int32) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

func insertCode(list []int32, c int32) []int32 {
	i := sort.Search(len(list), func(i int) bool { return list[i] >= c })
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = c
	return list
}

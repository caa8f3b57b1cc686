package columnar

import (
	"math"
	bits64 "math/bits"
	"runtime"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Selection is the set of matched rows: all rows, or the ascending row indices in Idx.
type Selection struct {
	All bool
	Idx []int32
	n   int
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
	first := t.cols[preds[0].Column]
	allow := preds[0].Allow
	// First predicate: scan codes in parallel chunks into per-chunk index lists.
	chunks := (t.Rows + chunkRows - 1) / chunkRows
	parts := make([][]int32, chunks)
	parallelFor(t.Rows, func(lo, hi int) {
		var out []int32
		codes := first.Codes[lo:hi]
		for i, code := range codes {
			if code >= 0 && allow[code] {
				out = append(out, int32(lo+i))
			}
		}
		parts[lo/chunkRows] = out
	})
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	idx := make([]int32, 0, total)
	for _, p := range parts {
		idx = append(idx, p...)
	}
	// Later predicates refine the selection in place.
	for _, p := range preds[1:] {
		codes, allow := t.cols[p.Column].Codes, p.Allow
		k := 0
		for _, r := range idx {
			if code := codes[r]; code >= 0 && allow[code] {
				idx[k] = r
				k++
			}
		}
		idx = idx[:k]
	}
	return Selection{Idx: idx}
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
		g.Keys = append(g.Keys, t.cols[k])
	}
	// Mixed-radix slot of a row: each key's code with null mapped to its cardinality.
	radix := make([]uint64, len(keys))
	space := uint64(1)
	for i := len(g.Keys) - 1; i >= 0; i-- {
		radix[i] = space
		card := uint64(len(g.Keys[i].Values) + 1)
		if space > denseLimit/card {
			space = math.MaxUint64 // beyond the dense limit: use the hash path
			break
		}
		space *= card
	}
	slot := func(r int) uint64 {
		var s uint64
		for i, k := range g.Keys {
			c := k.Codes[r]
			if c < 0 {
				c = int32(len(k.Values))
			}
			s += uint64(c) * radix[i]
		}
		return s
	}
	if space <= denseLimit {
		// Each row's slot, computed on all cores into GID; then the slots that occur are
		// numbered in key order and GID renumbered in place.
		n := sel.Len()
		parallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g.GID[i] = uint32(slot(sel.Row(i)))
			}
		})
		used := make([]bool, space)
		for _, s := range g.GID {
			used[s] = true
		}
		id := make([]uint32, space)
		for s, u := range used {
			if u {
				id[s] = uint32(g.N)
				g.Codes = append(g.Codes, g.decode(uint64(s), radix))
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
	res := Result{Values: make([]float64, g.N), Valid: make([]bool, g.N), NullRows: make([]int64, g.N), Mixed: make([]bool, g.N)}
	switch agg {
	case AggCount:
		counts := countRows(sel, g)
		for i, c := range counts {
			res.Values[i], res.Valid[i] = float64(c), true
		}
		return res
	case AggCountDistinct:
		t.countDistinct(sel, g, t.cols[col], &res)
		return res
	}
	c := t.cols[col]
	acc := accumulate(sel, g, c, agg)
	for gid := range res.Values {
		res.NullRows[gid] = acc.nulls[gid]
		nn := acc.nn[gid]
		switch agg {
		case AggCountNonNull:
			res.Values[gid], res.Valid[gid] = float64(nn), true
		case AggSum:
			res.Values[gid], res.Valid[gid] = acc.sum[gid]+acc.comp[gid], nn > 0
		case AggAvg:
			if nn > 0 {
				res.Values[gid], res.Valid[gid] = (acc.sum[gid]+acc.comp[gid])/float64(nn), true
			}
		case AggMin, AggMax:
			res.Values[gid], res.Valid[gid] = acc.ext[gid], nn > 0
		}
	}
	if unit != "" {
		t.markMixed(sel, g, c, t.cols[unit], &res)
	}
	return res
}

func countRows(sel Selection, g *Grouping) []int64 {
	if g.GID == nil {
		return []int64{int64(sel.Len())}
	}
	chunks := chunksFor(len(g.GID), g.N)
	parts := make([][]int64, chunks)
	parallelChunks(len(g.GID), chunks, func(ci, lo, hi int) {
		counts := make([]int64, g.N)
		for _, gid := range g.GID[lo:hi] {
			counts[gid]++
		}
		parts[ci] = counts
	})
	if chunks == 0 {
		return make([]int64, g.N)
	}
	out := parts[0]
	for _, p := range parts[1:] {
		for gid, n := range p {
			out[gid] += n
		}
	}
	return out
}

// partial is the running state of the float kernels over some rows, per group.
type partial struct {
	sum, comp, ext []float64 // compensated sum (Neumaier) and extreme (min or max)
	nn, nulls      []int64   // non-null and null inputs
}

func newPartial(n int) partial {
	return partial{sum: make([]float64, n), comp: make([]float64, n), ext: make([]float64, n), nn: make([]int64, n), nulls: make([]int64, n)}
}

// add folds one value into group gid.
func (p *partial) add(gid uint32, v float64, agg Agg) {
	switch agg {
	case AggMin:
		if p.nn[gid] == 0 || v < p.ext[gid] {
			p.ext[gid] = v
		}
	case AggMax:
		if p.nn[gid] == 0 || v > p.ext[gid] {
			p.ext[gid] = v
		}
	case AggCountNonNull:
	default:
		s := p.sum[gid]
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			p.comp[gid] += (s - t) + v
		} else {
			p.comp[gid] += (v - t) + s
		}
		p.sum[gid] = t
	}
	p.nn[gid]++
}

// merge folds the partial q (of later rows) into p.
func (p *partial) merge(q partial, agg Agg) {
	for gid := range p.nn {
		if q.nn[gid] > 0 {
			switch agg {
			case AggMin, AggMax:
				if p.nn[gid] == 0 || (agg == AggMin && q.ext[gid] < p.ext[gid]) || (agg == AggMax && q.ext[gid] > p.ext[gid]) {
					p.ext[gid] = q.ext[gid]
				}
			default:
				p.comp[gid] += q.comp[gid]
				p.add(uint32(gid), q.sum[gid], AggSum)
				p.nn[gid]--
			}
			p.nn[gid] += q.nn[gid]
		}
		p.nulls[gid] += q.nulls[gid]
	}
}

// accumulate runs a float kernel over the selection in fixed chunks, in parallel, and merges
// the chunks in order, so the result does not depend on the number of cores.
func accumulate(sel Selection, g *Grouping, c *Column, agg Agg) partial {
	vals := c.Floats.Float64Values()
	bitmap := c.Floats.NullBitmapBytes()
	off := c.Floats.Offset()
	hasNulls := c.Floats.NullN() > 0
	n := sel.Len()
	chunks := chunksFor(n, g.N)
	parts := make([]partial, max(chunks, 1))
	parts[0] = newPartial(g.N)
	parallelChunks(n, chunks, func(ci, lo, hi int) {
		p := parts[ci]
		if ci > 0 || p.nn == nil {
			p = newPartial(g.N)
		}
		gids := g.GID
		if gids == nil {
			gids = zeros(hi - lo) // one group: every row's id is 0
		} else {
			gids = gids[lo:hi]
		}
		isNull := func(r int) bool { return hasNulls && !bitutil.BitIsSet(bitmap, off+r) }
		switch agg {
		case AggMin, AggMax:
			lower := agg == AggMin
			for i, gid := range gids {
				r := sel.Row(lo + i)
				if isNull(r) {
					p.nulls[gid]++
					continue
				}
				v := vals[r]
				if p.nn[gid] == 0 || (lower && v < p.ext[gid]) || (!lower && v > p.ext[gid]) {
					p.ext[gid] = v
				}
				p.nn[gid]++
			}
		case AggCountNonNull:
			for i, gid := range gids {
				if isNull(sel.Row(lo + i)) {
					p.nulls[gid]++
				} else {
					p.nn[gid]++
				}
			}
		default: // sums, compensated (Neumaier)
			if g.GID == nil && sel.All && !hasNulls {
				// The whole table in one group: run down the column itself.
				acc, c := p.sum[0], p.comp[0]
				for _, v := range vals[lo:hi] {
					t := acc + v
					if math.Abs(acc) >= math.Abs(v) {
						c += (acc - t) + v
					} else {
						c += (v - t) + acc
					}
					acc = t
				}
				p.sum[0], p.comp[0] = acc, c
				p.nn[0] += int64(hi - lo)
				break
			}
			sum, comp := p.sum, p.comp
			for i, gid := range gids {
				r := sel.Row(lo + i)
				if isNull(r) {
					p.nulls[gid]++
					continue
				}
				v, acc := vals[r], sum[gid]
				t := acc + v
				if math.Abs(acc) >= math.Abs(v) {
					comp[gid] += (acc - t) + v
				} else {
					comp[gid] += (v - t) + acc
				}
				sum[gid] = t
				p.nn[gid]++
			}
		}
		parts[ci] = p
	})
	out := parts[0]
	for _, p := range parts[1:] {
		out.merge(p, agg)
	}
	return out
}

// zeroIDs are the group ids of a chunk of a single-group grouping.
var zeroIDs = make([]uint32, chunkRows)

func zeros(n int) []uint32 {
	if n <= len(zeroIDs) {
		return zeroIDs[:n]
	}
	return make([]uint32, n)
}

// chunksFor is the number of fixed chunks a kernel over n rows and groups splits into: one
// when the per-chunk state would be large.
func chunksFor(n, groups int) int {
	chunks := (n + chunkRows - 1) / chunkRows
	if chunks > 1 && chunks*groups > 1<<22 {
		return 1
	}
	return chunks
}

// parallelChunks runs fn(chunk index, lo, hi) over the chunks of [0, n) on up to GOMAXPROCS
// goroutines; with one chunk it covers all of [0, n).
func parallelChunks(n, chunks int, fn func(ci, lo, hi int)) {
	if chunks <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	parallelFor(n, func(lo, hi int) { fn(lo/chunkRows, lo, hi) })
}

// markMixed nulls the groups whose non-null inputs carry more than one unit.
func (t *Table) markMixed(sel Selection, g *Grouping, c, unit *Column, res *Result) {
	first := make([]int32, g.N)
	for i := range first {
		first[i] = -2
	}
	for i, n := 0, sel.Len(); i < n; i++ {
		gid := g.ID(i)
		r := sel.Row(i)
		if c.Floats.IsNull(r) {
			continue
		}
		u := unit.Codes[r]
		switch first[gid] {
		case -2:
			first[gid] = u
		case u:
		default:
			res.Mixed[gid] = true
		}
	}
	for gid, m := range res.Mixed {
		if m {
			res.Valid[gid], res.Values[gid] = false, 0
		}
	}
}

// countDistinct counts the distinct non-null codes of a Dict column per group, with a bitset
// per group when groups × cardinality is small and a hash set otherwise.
func (t *Table) countDistinct(sel Selection, g *Grouping, c *Column, res *Result) {
	card := len(c.Values)
	counts := make([]int64, g.N)
	if uint64(g.N)*uint64(card) <= 1<<28 {
		// One bitset per worker over a contiguous part of the selection, OR-merged: a union
		// of sets is exact however the rows are split, so the count never depends on cores.
		words := (card + 63) / 64
		n := sel.Len()
		workers := max(1, min(runtime.GOMAXPROCS(0), n/chunkRows))
		if uint64(workers)*uint64(g.N)*uint64(words) > 1<<25 {
			workers = 1
		}
		bitsets := make([][]uint64, workers)
		nulls := make([][]int64, workers)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				bits, nl := make([]uint64, g.N*words), make([]int64, g.N)
				for i, hi := n*w/workers, n*(w+1)/workers; i < hi; i++ {
					gid := g.ID(i)
					code := c.Codes[sel.Row(i)]
					if code < 0 {
						nl[gid]++
						continue
					}
					bits[int(gid)*words+int(code>>6)] |= uint64(1) << (code & 63)
				}
				bitsets[w], nulls[w] = bits, nl
			}(w)
		}
		wg.Wait()
		bits := bitsets[0]
		for w := 1; w < workers; w++ {
			for i, x := range bitsets[w] {
				bits[i] |= x
			}
		}
		for gid := range counts {
			for _, x := range bits[gid*words : (gid+1)*words] {
				counts[gid] += int64(bits64.OnesCount64(x))
			}
			for w := range nulls {
				res.NullRows[gid] += nulls[w][gid]
			}
		}
	} else {
		seen := map[uint64]struct{}{}
		for i, n := 0, sel.Len(); i < n; i++ {
			gid := g.ID(i)
			code := c.Codes[sel.Row(i)]
			if code < 0 {
				res.NullRows[gid]++
				continue
			}
			k := uint64(gid)<<32 | uint64(code)
			if _, ok := seen[k]; !ok {
				seen[k] = struct{}{}
				counts[gid]++
			}
		}
	}
	for gid, n := range counts {
		res.Values[gid], res.Valid[gid] = float64(n), true
	}
}

// Source is the lineage of one group within one source file: how many of its rows come from
// the file, the first few of them, and which sheets they lie on.
type Source struct {
	File   int32 // code in the source-file column
	Rows   int64
	Sample []int32 // table rows, in source order
	Sheets []int32 // codes in the sheet column, ascending
}

// Lineage collects, in the same pass over the selection, each group's sources with up to k
// sample rows each, from the lineage columns fileCol and sheetCol.
func (t *Table) Lineage(sel Selection, g *Grouping, fileCol, sheetCol string, k int) [][]Source {
	files, sheets := t.cols[fileCol].Codes, t.cols[sheetCol].Codes
	n := sel.Len()
	chunks := chunksFor(n, g.N)
	parts := make([][][]Source, max(chunks, 1))
	// Each fixed chunk collects its own lineage; merged in chunk order, earlier rows come
	// first, so the samples are the same as one pass in row order would take.
	parallelChunks(n, chunks, func(ci, lo, hi int) {
		out := make([][]Source, g.N)
		for i := lo; i < hi; i++ {
			gid := g.ID(i)
			r := sel.Row(i)
			s := sourceOf(&out[gid], files[r])
			s.Rows++
			if len(s.Sample) < k {
				s.Sample = append(s.Sample, int32(r))
			}
			if sh := sheets[r]; !containsCode(s.Sheets, sh) {
				s.Sheets = insertCode(s.Sheets, sh)
			}
		}
		parts[ci] = out
	})
	out := parts[0]
	if out == nil {
		out = make([][]Source, g.N)
	}
	for _, part := range parts[1:] {
		for gid, srcs := range part {
			for _, src := range srcs {
				s := sourceOf(&out[gid], src.File)
				s.Rows += src.Rows
				if room := k - len(s.Sample); room > 0 {
					s.Sample = append(s.Sample, src.Sample[:min(room, len(src.Sample))]...)
				}
				for _, sh := range src.Sheets {
					if !containsCode(s.Sheets, sh) {
						s.Sheets = insertCode(s.Sheets, sh)
					}
				}
			}
		}
	}
	for gid := range out {
		sort.Slice(out[gid], func(a, b int) bool { return out[gid][a].File < out[gid][b].File })
	}
	return out
}

// sourceOf returns the entry of file f in list, adding it when absent.
func sourceOf(list *[]Source, f int32) *Source {
	for j := range *list {
		if (*list)[j].File == f {
			return &(*list)[j]
		}
	}
	*list = append(*list, Source{File: f})
	return &(*list)[len(*list)-1]
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

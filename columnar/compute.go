package columnar

import (
	"encoding/binary"
	"fmt"
	"math"
	bits64 "math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// Op is one aggregation asked of Compute.
type Op struct {
	Agg Agg
	// Column is the input of every aggregation but count: a numeric column (Float, Int or a
	// Dict column of numbers, see Column.Numeric) for sum, avg, min and max; any column for
	// count non-null; a Dict column for count distinct.
	Column string
	// Unit names a Dict column whose values must agree among a group's non-null inputs of a
	// float aggregation: groups mixing units are null and marked Mixed. Empty: no check.
	Unit string
	// Percentile is the percentile of AggQuantile, from 0 to 100 (50: the median).
	Percentile float64
}

// LineageSpec asks Compute for each group's sources: the source-file and sheet columns, and
// how many sample rows to keep per group and file.
type LineageSpec struct {
	FileCol, SheetCol string
	K                 int
}

// Answer is what Compute returns: the groups, one Result per op over the groups and over
// the whole selection, and the lineage of each group and of the whole selection.
type Answer struct {
	Groups *Grouping
	// Results[i] is op i per group; Totals[i] is op i over the whole selection (one value).
	Results, Totals []Result
	// Lineage[g] are group g's sources; Total the whole selection's. Nil without a spec.
	Lineage [][]Source
	Total   []Source
}

// Compute groups the selection by the Dict columns keys and evaluates every op over each
// group and over the whole selection, with the lineage of both, in one pass: each fixed
// chunk of the selection computes its rows' group slots into a small buffer, then every
// op runs a typed loop over that buffer. Chunks run on all cores; their partial sums and
// samples are merged in chunk order, so answers are bit-identical whatever the core count.
//
// With no keys there is one group, present even when the selection is empty. Groups are
// numbered in key order (each key's dictionary order, nulls last).
func (t *Table) Compute(sel Selection, keys []string, ops []Op, lin *LineageSpec) *Answer {
	var sl slotter
	var g *Grouping
	if len(keys) == 0 {
		sl = slotter{space: 1}
	} else {
		sl = t.newSlotter(keys)
		if sl.space == 0 || sl.space > maxSlots {
			// Beyond the dense limit: number the groups first, then aggregate by group id.
			g = t.Group(sel, keys)
			sl = slotter{space: g.N, gid: g.GID}
		}
	}
	r := t.run(sel, sl, ops, lin)
	defer r.recycle()
	// The groups are the slots that occur (every slot of a grouping without keys or with
	// precomputed ids), in slot order, which is key order.
	var used []uint32
	if g != nil || len(keys) == 0 {
		used = every(sl.space)
	} else {
		for s, n := range r.count {
			if n > 0 {
				used = append(used, uint32(s))
			}
		}
	}
	if g == nil {
		g = &Grouping{N: len(used)}
		for _, k := range keys {
			g.Keys = append(g.Keys, t.mustCol(k))
		}
		for _, s := range used {
			if len(keys) == 0 {
				g.Codes = append(g.Codes, []int32{})
			} else {
				g.Codes = append(g.Codes, g.decode(uint64(s), sl.radix))
			}
		}
	}
	ans := &Answer{Groups: g}
	for i := range ops {
		ans.Results = append(ans.Results, r.resultOf(i, used, false))
	}
	if lin != nil {
		ans.Lineage = r.lineage(used)
	}
	if len(keys) == 0 {
		ans.Totals = ans.Results
		if lin != nil {
			ans.Total = ans.Lineage[0]
		}
		t.quantiles(sel, &sl, used, ops, ans, false)
		return ans
	}
	for i := range ops {
		ans.Totals = append(ans.Totals, r.resultOf(i, used, true))
	}
	t.quantiles(sel, &sl, used, ops, ans, true)
	if lin != nil {
		ans.Total = mergeSources(ans.Lineage, lin.K)
	}
	return ans
}

// tripLimit bounds the slot×file×sheet counts a worker keeps per chunk for lineage; beyond
// it rows and sheet sets are updated row by row.
var tripLimit = 1 << 18

// maxSlots bounds the slot space Compute aggregates into directly: every worker holds state
// for each slot. Larger key spaces are grouped first (Group) and aggregated by group id.
const maxSlots = 1 << 16

// slotter maps a selected row to its group slot: a mixed-radix number of the key codes
// (dense), or a precomputed group id.
type slotter struct {
	space int
	keys  [][]int32
	cards []uint32 // each key's cardinality, the slot digit of null
	radix []uint64
	gid   []uint32
}

func (t *Table) newSlotter(keys []string) slotter {
	sl := slotter{keys: make([][]int32, len(keys)), cards: make([]uint32, len(keys)), radix: make([]uint64, len(keys))}
	space := uint64(1)
	for i := len(keys) - 1; i >= 0; i-- {
		c := t.mustCol(keys[i])
		sl.keys[i], sl.cards[i], sl.radix[i] = c.Codes, uint32(len(c.Values)), space
		card := uint64(len(c.Values) + 1)
		if space > denseLimit/card {
			return slotter{}
		}
		space *= card
	}
	sl.space = int(space)
	return sl
}

// fill writes the slots of selected rows [lo, hi) into buf.
func (sl *slotter) fill(sel Selection, lo, hi int, buf []uint32) []uint32 {
	buf = buf[:hi-lo]
	switch {
	case sl.gid != nil:
		copy(buf, sl.gid[lo:hi])
	case len(sl.keys) == 0:
		// Every slot is 0: the buffer was made zeroed and a slotter without keys never
		// writes it.
	case len(sl.keys) == 1 && sel.All:
		card := sl.cards[0]
		for i, c := range sl.keys[0][lo:hi] {
			buf[i] = min(uint32(c), card) // -1 (null) becomes the largest digit
		}
	case len(sl.keys) == 1:
		card, codes := sl.cards[0], sl.keys[0]
		for i, r := range sel.Idx[lo:hi] {
			buf[i] = min(uint32(codes[r]), card)
		}
	case len(sl.keys) == 2:
		k0, k1, c0, c1, r0 := sl.keys[0], sl.keys[1], sl.cards[0], sl.cards[1], uint32(sl.radix[0])
		if sel.All {
			k0, k1 = k0[lo:hi], k1[lo:hi:hi]
			for i := range buf {
				buf[i] = min(uint32(k0[i]), c0)*r0 + min(uint32(k1[i]), c1)
			}
		} else {
			for i, r := range sel.Idx[lo:hi] {
				buf[i] = min(uint32(k0[r]), c0)*r0 + min(uint32(k1[r]), c1)
			}
		}
	default:
		for i := range buf {
			r := sel.Row(lo + i)
			var s uint64
			for k, codes := range sl.keys {
				s += uint64(min(uint32(codes[r]), sl.cards[k])) * sl.radix[k]
			}
			buf[i] = uint32(s)
		}
	}
	return buf
}

// plan is the work of one Compute: the distinct inputs its ops read.
type plan struct {
	sel    Selection
	space  int
	floats []*floatIn
	dists  []*distIn
	lin    *linIn
	ops    []Op
	opIn   []int     // per op: index into floats or dists (-1 for count)
	onDist []bool    // per op: a count non-null read from dists
	units  []*Column // per op: its unit column, or nil
}

type floatIn struct {
	col      *Column
	vals     []float64
	bitmap   []byte
	off      int
	nulls    bool
	min, max bool
	units    []*Column // unit columns checked over this input
}

type distIn struct {
	codes []int32
	words int
	dense bool // bitsets (else hash sets)
	// nullsOnly inputs count null rows only: count non-null over a column that is not
	// numeric.
	nullsOnly bool
}

type linIn struct {
	files, sheets []int32
	// fileRuns and sheetRuns are the columns' Runs: both non-nil, a chunk's lineage is
	// counted stretch by stretch of one file and sheet.
	fileRuns, sheetRuns []int32
	nf, sw, k           int // files, words of a sheet set, samples kept
	sheetCard           int
	// sampled holds, per slot×file, the first chunk found holding k rows of the slot and
	// file (math.MaxInt32: none yet): a later chunk's rows of them are not sampled, since
	// the merged samples are the first k in chunk order.
	sampled []atomic.Int32
}

// run evaluates the plan over the selection and returns the merged state per slot.
func (t *Table) run(sel Selection, sl slotter, ops []Op, lin *LineageSpec) *merged {
	p := &plan{sel: sel, space: sl.space, ops: ops, opIn: make([]int, len(ops)), onDist: make([]bool, len(ops)), units: make([]*Column, len(ops))}
	for i, op := range ops {
		switch op.Agg {
		case AggCount:
			p.opIn[i] = -1
		case AggCountNonNull:
			if c := t.mustCol(op.Column); !c.Numeric() {
				p.opIn[i], p.onDist[i] = len(p.dists), true
				p.dists = append(p.dists, &distIn{codes: c.Presence(), nullsOnly: true})
				continue
			}
			p.opIn[i] = t.floatInput(p, op, i)
		case AggCountDistinct:
			c := t.mustCol(op.Column)
			p.opIn[i] = len(p.dists)
			words := (len(c.Values) + 63) / 64
			p.dists = append(p.dists, &distIn{codes: c.Codes, words: words,
				dense: uint64(sl.space)*uint64(len(c.Values)) <= 1<<28})
		default:
			p.opIn[i] = t.floatInput(p, op, i)
		}
	}
	if lin != nil {
		fc, sc := t.mustCol(lin.FileCol), t.mustCol(lin.SheetCol)
		p.lin = &linIn{files: fc.Codes, sheets: sc.Codes, nf: len(fc.Values) + 1, sheetCard: len(sc.Values) + 1, k: lin.K}
		if fr := fc.Runs(); fr != nil {
			p.lin.fileRuns, p.lin.sheetRuns = fr, sc.Runs()
		}
		p.lin.sw = (p.lin.sheetCard + 63) / 64
		p.lin.sampled = atomPool.get(sl.space * p.lin.nf)
		for i := range p.lin.sampled {
			p.lin.sampled[i].Store(math.MaxInt32)
		}
	}
	m := newMerged(p)
	n := sel.Len()
	chunks := (n + chunkRows - 1) / chunkRows
	workers := max(1, min(runtime.GOMAXPROCS(0), chunks))
	parts := make([]*partial, workers)
	var next atomic.Int64
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	turn := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt := newPartial(p)
			parts[w] = pt
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo, hi := c*chunkRows, min(n, (c+1)*chunkRows)
				pt.chunk(p, &sl, lo, hi)
				mu.Lock()
				for turn != c {
					cond.Wait()
				}
				m.fold(p, pt, c)
				turn++
				cond.Broadcast()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, pt := range parts {
		m.unite(p, pt)
		pt.recycle()
	}
	return m
}

// floatInput adds (or finds) the numeric input of op i in p and returns its index. Float, Int
// and numeric Dict columns all feed the same kernels through their Numbers view; any other
// column is a broken invariant of the caller (definitions allow these aggregations only over
// integer and number fields).
func (t *Table) floatInput(p *plan, op Op, i int) int {
	c := t.mustCol(op.Column)
	fi := slices.IndexFunc(p.floats, func(f *floatIn) bool { return f.col == c })
	if fi < 0 {
		nv := c.Numbers()
		if nv == nil {
			panic(fmt.Errorf("columnar: %s of column %s, which does not hold numbers", aggName(op.Agg), c.Name))
		}
		fi = len(p.floats)
		p.floats = append(p.floats, &floatIn{col: c, vals: nv.Vals, bitmap: nv.Bitmap, off: nv.Off, nulls: nv.Nulls > 0})
	}
	f := p.floats[fi]
	f.min = f.min || op.Agg == AggMin
	f.max = f.max || op.Agg == AggMax
	if op.Unit != "" {
		u := t.mustCol(op.Unit)
		if !slices.Contains(f.units, u) {
			f.units = append(f.units, u)
		}
		p.units[i] = u
	}
	return fi
}

// bufPool recycles scratch slices of a worker's state across queries.
type bufPool[T any] struct{ p sync.Pool }

// get returns a slice of length n; its contents are arbitrary.
func (bp *bufPool[T]) get(n int) []T {
	if v, ok := bp.p.Get().(*[]T); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]T, n)
}

func (bp *bufPool[T]) put(b []T) {
	if cap(b) > 0 {
		bp.p.Put(&b)
	}
}

var (
	f64Pool   bufPool[float64]
	i32Pool   bufPool[int32]
	u32Pool   bufPool[uint32]
	u64Pool   bufPool[uint64]
	i64Pool   bufPool[int64]
	boolPool  bufPool[bool]
	atomPool  bufPool[atomic.Int32]
	sampsPool bufPool[[]int32]
)

// zeroed is a slice of n zero values from bp.
func zeroed[T any](bp *bufPool[T], n int) []T {
	b := bp.get(n)
	clear(b)
	return b
}

// filledWith is a slice of n values v from bp.
func filledWith[T any](bp *bufPool[T], n int, v T) []T {
	b := bp.get(n)
	for i := range b {
		b[i] = v
	}
	return b
}

// recycle hands the worker's buffers back once its state has been merged.
func (pt *partial) recycle() {
	for i := range pt.fl {
		f64Pool.put(pt.fl[i].buf)
		i32Pool.put(pt.fl[i].pos)
		u32Pool.put(pt.fl[i].slots)
		pt.fl[i].buf, pt.fl[i].pos, pt.fl[i].slots = nil, nil, nil
		pt.fl[i].recycle()
	}
	for i := range pt.ds {
		i32Pool.put(pt.ds[i].buf)
		u64Pool.put(pt.ds[i].bits)
		i64Pool.put(pt.ds[i].nulls)
		pt.ds[i] = distPart{}
	}
	i64Pool.put(pt.count)
	u32Pool.put(pt.slots)
	for _, b := range [][]int32{pt.ln.buf, pt.ln.n, pt.ln.skip, pt.ln.sample} {
		i32Pool.put(b)
	}
	i64Pool.put(pt.ln.trip)
	i64Pool.put(pt.ln.rows)
	u64Pool.put(pt.ln.sheets)
	*pt = partial{}
}

// recycle hands the state's per-slot buffers back.
func (fp *floatPart) recycle() {
	for _, b := range [][]float64{fp.sum, fp.comp, fp.ext0, fp.ext1} {
		f64Pool.put(b)
	}
	i64Pool.put(fp.nn)
	for u := range fp.unitFirst {
		i32Pool.put(fp.unitFirst[u])
		boolPool.put(fp.unitMixed[u])
	}
	fp.sum, fp.comp, fp.ext0, fp.ext1, fp.nn, fp.unitFirst, fp.unitMixed = nil, nil, nil, nil, nil, nil, nil
}

// partial is one worker's state. Counts, sums and samples are of the current chunk and are
// folded into the merged state in chunk order; extremes, units, distinct sets and null
// counts of distinct inputs hold over all the worker's chunks (their merge is order-free).
type partial struct {
	slots   []uint32
	touched []uint32
	count   []int64
	fl      []floatPart
	ds      []distPart
	ln      linPart
}

type floatPart struct {
	sum, comp, ext0, ext1 []float64 // ext0 min, ext1 max
	buf                   []float64 // gathered values of a chunk
	pos                   []int32   // and their positions in it
	slots                 []uint32  // and their slots
	nn                    []int64
	unitFirst             [][]int32 // per unit column: -2 before the first input
	unitMixed             [][]bool
}

type distPart struct {
	buf   []int32 // a chunk's codes gathered through the selection
	bits  []uint64
	set   map[uint64]struct{}
	nulls []int64
}

type linPart struct {
	buf    []int32  // a chunk's file and sheet codes gathered through the selection
	trip   []int64  // rows per slot×file×sheet in the chunk, when that space is small
	rows   []int64  // per slot×file
	sheets []uint64 // per slot×file×word
	n      []int32  // samples taken, per slot×file
	skip   []int32  // slot×file pairs not sampled in the chunk (sampleRows)
	sample []int32  // per slot×file×k
}

func newPartial(p *plan) *partial {
	S := p.space
	// Zeroed: a slotter without keys never writes its slots, which are all 0.
	pt := &partial{slots: zeroed(&u32Pool, min(chunkRows, p.sel.Len()))[:0], count: zeroed(&i64Pool, S)}
	for _, f := range p.floats {
		pt.fl = append(pt.fl, newFloatPart(f, S, f.nulls))
	}
	for _, d := range p.dists {
		pt.ds = append(pt.ds, newDistPart(d, S))
	}
	if l := p.lin; l != nil {
		pt.ln = linPart{rows: zeroed(&i64Pool, S*l.nf), sheets: zeroed(&u64Pool, S*l.nf*l.sw), n: zeroed(&i32Pool, S*l.nf),
			sample: zeroed(&i32Pool, S*l.nf*l.k)}
		if S*l.nf*l.sheetCard <= tripLimit {
			// One increment a row; the counts become rows and sheet sets at the chunk's end.
			pt.ln.trip = zeroed(&i64Pool, S*l.nf*l.sheetCard)
		}
	}
	return pt
}

// newFloatPart is the empty state of input f over S slots, counting non-null inputs when nn.
func newFloatPart(f *floatIn, S int, nn bool) floatPart {
	fp := floatPart{sum: zeroed(&f64Pool, S), comp: zeroed(&f64Pool, S)}
	if nn {
		fp.nn = zeroed(&i64Pool, S)
	}
	if f.min {
		fp.ext0 = filledWith(&f64Pool, S, math.Inf(1))
	}
	if f.max {
		fp.ext1 = filledWith(&f64Pool, S, math.Inf(-1))
	}
	for range f.units {
		fp.unitFirst = append(fp.unitFirst, filledWith(&i32Pool, S, -2))
		fp.unitMixed = append(fp.unitMixed, zeroed(&boolPool, S))
	}
	return fp
}

// newDistPart is the empty state of input d over S slots.
func newDistPart(d *distIn, S int) distPart {
	dp := distPart{nulls: zeroed(&i64Pool, S)}
	switch {
	case d.nullsOnly:
	case d.dense:
		dp.bits = zeroed(&u64Pool, S*d.words)
	default:
		dp.set = map[uint64]struct{}{}
	}
	return dp
}

// chunk runs every input's loop over selected rows [lo, hi).
func (pt *partial) chunk(p *plan, sl *slotter, lo, hi int) {
	slots := sl.fill(p.sel, lo, hi, pt.slots)
	count := pt.count
	if p.space == 1 {
		if hi > lo {
			pt.touched = append(pt.touched, 0)
			count[0] += int64(hi - lo)
		}
	} else {
		for _, s := range slots {
			if count[s] == 0 {
				pt.touched = append(pt.touched, s)
			}
			count[s]++
		}
	}
	for fi, f := range p.floats {
		pt.fl[fi].run(p.sel, f, slots, lo, hi)
	}
	for di, d := range p.dists {
		pt.ds[di].run(p.sel, d, slots, lo, hi)
	}
	if p.lin != nil {
		pt.ln.run(p.sel, p.lin, slots, lo, hi, pt.touched, count)
	}
}

func (fp *floatPart) run(sel Selection, f *floatIn, slots []uint32, lo, hi int) {
	vals := f.vals
	sum, comp := fp.sum, fp.comp
	if len(sum) == 1 && len(f.units) == 0 {
		// One group: the chunk's non-null values (the column itself when it has no null
		// and every row is selected), summed in one tight loop, each extreme in its own.
		in := vals[lo:hi]
		if f.nulls || !sel.All {
			in = fp.gather(sel, f, lo, hi, false)
		}
		s, c := sumNeumaier(in)
		sum[0], comp[0] = nadd(sum[0], comp[0]+c, s)
		if fp.nn != nil {
			fp.nn[0] += int64(len(in))
		}
		if fp.ext0 != nil {
			fp.ext0[0] = minOf(fp.ext0[0], in)
		}
		if fp.ext1 != nil {
			fp.ext1[0] = maxOf(fp.ext1[0], in)
		}
		return
	}
	// Several groups: the non-null values and their slots, then one loop per state. Each
	// slot's values are added in row order, whichever loop runs.
	in := vals[lo:hi]
	var changes int // places where a slot differs from the one before it (runs)
	if f.nulls || !sel.All {
		in = fp.gather(sel, f, lo, hi, true)
		pos := fp.pos[:len(in)]
		ss := fp.slotBuf(len(in))
		if len(pos) > 0 {
			prev := slots[pos[0]]
			for i, p := range pos {
				s := slots[p]
				ss[i] = s
				if s != prev {
					changes++
				}
				prev = s
			}
		}
		slots = ss
	} else {
		changes = runs(slots[:len(in)])
	}
	ss := slots[:len(in)]
	if changes <= len(ss)/8 {
		// Rows of a group mostly follow each other (a time-ordered table grouped by year):
		// keep the current group's state in registers while it lasts.
		sumRuns(sum, comp, fp.nn, fp.ext0, fp.ext1, ss, in)
	} else {
		if nn := fp.nn; nn != nil {
			for i, v := range in {
				s := ss[i]
				sum[s], comp[s] = nadd(sum[s], comp[s], v)
				nn[s]++
			}
		} else {
			for i, v := range in {
				s := ss[i]
				sum[s], comp[s] = nadd(sum[s], comp[s], v)
			}
		}
		if ext := fp.ext0; ext != nil {
			for i, v := range in {
				if s := ss[i]; v < ext[s] {
					ext[s] = v
				}
			}
		}
		if ext := fp.ext1; ext != nil {
			for i, v := range in {
				if s := ss[i]; v > ext[s] {
					ext[s] = v
				}
			}
		}
	}
	for u, uc := range f.units {
		first, mixed := fp.unitFirst[u], fp.unitMixed[u]
		for i, s := range ss {
			r := lo + i
			if f.nulls || !sel.All {
				r = lo + int(fp.pos[i])
			}
			first[s], mixed[s] = mixUnit(first[s], mixed[s], uc.Codes[sel.Row(r)], false)
		}
	}
}

// slotBuf is a scratch slice of n slots of the part's.
func (fp *floatPart) slotBuf(n int) []uint32 {
	if cap(fp.slots) < n {
		u32Pool.put(fp.slots)
		fp.slots = u32Pool.get(max(n, chunkRows))
	}
	return fp.slots[:n]
}

// constant reports whether every code of cs is its first.
func constant(cs []int32) bool {
	for _, c := range cs {
		if c != cs[0] {
			return false
		}
	}
	return true
}

// runs counts the places where a slot differs from the one before it.
func runs(ss []uint32) int {
	n := 0
	for i := 1; i < len(ss); i++ {
		if ss[i] != ss[i-1] {
			n++
		}
	}
	return n
}

// sumRuns adds each value to its slot's compensated sum, count and extremes (nil: not
// kept), holding the state of the current run of one slot in registers; a run of 64 values
// or more is summed in four lanes and folded in (a fixed order: answers do not depend on the
// core count).
func sumRuns(sum, comp []float64, nn []int64, ext0, ext1 []float64, ss []uint32, in []float64) {
	for i := 0; i < len(in); {
		s := ss[i]
		j := i + 1
		for j < len(in) && ss[j] == s {
			j++
		}
		if j-i >= 64 {
			// A long run: the four-lane compensated sum, folded in as a chunk's sum is.
			t, c := sumNeumaier(in[i:j])
			sum[s], comp[s] = nadd(sum[s], comp[s]+c, t)
		} else {
			acc, c := sum[s], comp[s]
			for _, v := range in[i:j] {
				acc, c = nadd(acc, c, v)
			}
			sum[s], comp[s] = acc, c
		}
		if nn != nil {
			nn[s] += int64(j - i)
		}
		if ext0 != nil {
			ext0[s] = minOf(ext0[s], in[i:j])
		}
		if ext1 != nil {
			ext1[s] = maxOf(ext1[s], in[i:j])
		}
		i = j
	}
}

// minOf is the least of m and xs, as a loop of v < m comparisons would find it.
func minOf(m float64, xs []float64) float64 {
	for _, v := range xs {
		if v < m {
			m = v
		}
	}
	return m
}

// maxOf is the greatest of m and xs, as a loop of v > m comparisons would find it.
func maxOf(m float64, xs []float64) float64 {
	for _, v := range xs {
		if v > m {
			m = v
		}
	}
	return m
}

// gather returns the non-null values of selected rows [lo, hi), in order, in a buffer of
// the part's, and sets fp.pos to their positions in the chunk (withPos; else fp.pos may
// miss the positions of values without a null among 64).
func (fp *floatPart) gather(sel Selection, f *floatIn, lo, hi int, withPos bool) []float64 {
	if cap(fp.buf) < hi-lo {
		fp.buf, fp.pos = f64Pool.get(hi-lo), i32Pool.get(hi-lo)
	}
	out, pos := fp.buf[:hi-lo], fp.pos[:hi-lo]
	vals, k := f.vals, 0
	switch {
	case !f.nulls && sel.All:
		for i := range out {
			pos[i] = int32(i)
		}
		copy(out, vals[lo:hi])
		k = hi - lo
	case !f.nulls:
		for i, r := range sel.Idx[lo:hi] {
			out[i], pos[i] = vals[r], int32(i)
		}
		k = hi - lo
	case sel.All && (f.off+lo)%64 == 0:
		for w := 0; w < hi-lo; w += 64 {
			word := validWord(f.bitmap, f.off+lo+w, min(64, hi-lo-w))
			if word == math.MaxUint64 {
				// 64 values without a null: copied as they are.
				copy(out[k:k+64], vals[lo+w:lo+w+64])
				if withPos {
					for i := range 64 {
						pos[k+i] = int32(w + i)
					}
				}
				k += 64
				continue
			}
			for ; word != 0; word &= word - 1 {
				i := w + bits64.TrailingZeros64(word)
				out[k], pos[k] = vals[lo+i], int32(i)
				k++
			}
		}
	default:
		bm, off := f.bitmap, f.off
		for i := range hi - lo {
			if r := sel.Row(lo + i); bm[(off+r)>>3]&(1<<((off+r)&7)) != 0 {
				out[k], pos[k] = vals[r], int32(i)
				k++
			}
		}
	}
	return out[:k]
}

// sumNeumaier is the compensated sum of xs, as a sum and its correction: four independent
// lanes (element i in lane i mod 4), combined in a fixed order.
func sumNeumaier(xs []float64) (float64, float64) {
	var s0, s1, s2, s3, c0, c1, c2, c3 float64
	n := len(xs) &^ 3
	for i := 0; i < n; i += 4 {
		x := xs[i : i+4 : i+4]
		s0, c0 = nadd(s0, c0, x[0])
		s1, c1 = nadd(s1, c1, x[1])
		s2, c2 = nadd(s2, c2, x[2])
		s3, c3 = nadd(s3, c3, x[3])
	}
	for _, v := range xs[n:] {
		s0, c0 = nadd(s0, c0, v)
	}
	c := c0 + c1 + c2 + c3
	s, c := nadd(s0, c, s1)
	s, c = nadd(s, c, s2)
	return nadd(s, c, s3)
}

// nadd adds v to the compensated sum (acc, c): Neumaier's step.
func nadd(acc, c, v float64) (float64, float64) {
	t := acc + v
	if math.Abs(acc) >= math.Abs(v) {
		c += (acc - t) + v
	} else {
		c += (v - t) + acc
	}
	return t, c
}

// validWord returns n (at most 64) validity bits starting at bit pos (a multiple of 8).
func validWord(bm []byte, pos, n int) uint64 {
	b := pos >> 3
	var w uint64
	if b+8 <= len(bm) {
		w = binary.LittleEndian.Uint64(bm[b:])
	} else {
		for i := 0; b+i < len(bm) && i < 8; i++ {
			w |= uint64(bm[b+i]) << (8 * i)
		}
	}
	if n < 64 {
		w &= 1<<n - 1
	}
	return w
}

func (dp *distPart) run(sel Selection, d *distIn, slots []uint32, lo, hi int) {
	var codes []int32 // the chunk's codes, in selection order
	if sel.All {
		codes = d.codes[lo:hi]
	} else {
		if cap(dp.buf) < hi-lo {
			dp.buf = i32Pool.get(hi - lo)
		}
		codes = dp.buf[:hi-lo]
		for i, r := range sel.Idx[lo:hi] {
			codes[i] = d.codes[r]
		}
	}
	if d.nullsOnly {
		for i, code := range codes {
			if code < 0 {
				dp.nulls[slots[i]]++
			}
		}
		return
	}
	if !d.dense {
		for i, code := range codes {
			if code < 0 {
				dp.nulls[slots[i]]++
			} else {
				dp.set[uint64(slots[i])<<32|uint64(code)] = struct{}{}
			}
		}
		return
	}
	bits, words := dp.bits, d.words
	for i, code := range codes {
		s := slots[i]
		if code < 0 {
			dp.nulls[s]++
			continue
		}
		bits[int(s)*words+int(code>>6)] |= 1 << (code & 63)
	}
}

func (lp *linPart) run(sel Selection, l *linIn, slots []uint32, lo, hi int, touched []uint32, count []int64) {
	nf1, sc1 := uint32(l.nf-1), uint32(l.sheetCard-1) // the digits of null codes
	at := func(i int) (int, int) {
		r := sel.Row(lo + i)
		return int(min(uint32(l.files[r]), nf1)), int(min(uint32(l.sheets[r]), sc1))
	}
	if l.sheetRuns != nil && lp.segments(sel, l, slots, lo, hi, touched, count) {
		return
	}
	if lp.trip != nil {
		trip, nf, sc := lp.trip, l.nf, l.sheetCard
		var files, sheets []int32 // the chunk's codes, in selection order
		if sel.All {
			files, sheets = l.files[lo:hi], l.sheets[lo:hi:hi]
		} else {
			if cap(lp.buf) < 2*(hi-lo) {
				lp.buf = i32Pool.get(2 * (hi - lo))
			}
			files, sheets = lp.buf[:hi-lo], lp.buf[hi-lo:2*(hi-lo)]
			for i, r := range sel.Idx[lo:hi] {
				files[i], sheets[i] = l.files[r], l.sheets[r]
			}
		}
		if len(files) > 0 && constant(files) && constant(sheets) {
			// One file and sheet over the chunk (the usual case): each group's rows are its
			// count.
			f, sh := int(min(uint32(files[0]), nf1)), int(min(uint32(sheets[0]), sc1))
			for _, s := range touched {
				trip[(int(s)*nf+f)*sc+sh] += count[s]
			}
		} else if runs(slots) <= len(slots)/8 {
			// Rows of a group mostly follow each other: count each run of one slot, file
			// and sheet in a register.
			cur, n := -1, int64(0)
			for i, s := range slots {
				f, sh := min(uint32(files[i]), nf1), min(uint32(sheets[i]), sc1)
				if j := (int(s)*nf+int(f))*sc + int(sh); j != cur {
					if cur >= 0 {
						trip[cur] += n
					}
					cur, n = j, 0
				}
				n++
			}
			if cur >= 0 {
				trip[cur] += n
			}
		} else {
			for i, s := range slots {
				f, sh := min(uint32(files[i]), nf1), min(uint32(sheets[i]), sc1)
				trip[(int(s)*nf+int(f))*sc+int(sh)]++
			}
		}
		lp.settle(l, touched)
	} else {
		for i, s := range slots {
			f, sh := at(i)
			j := int(s)*l.nf + f
			lp.rows[j]++
			lp.sheets[j*l.sw+(sh>>6)] |= 1 << (sh & 63)
		}
	}
	lp.sampleRows(sel, l, slots, lo, touched)
}

// sampleRows takes the samples of selected rows [lo, lo+len(slots)): the first k rows of
// each group and file, so the pass ends as soon as every group and file of the chunk has
// its share.
func (lp *linPart) sampleRows(sel Selection, l *linIn, slots []uint32, lo int, touched []uint32) {
	nf1 := uint32(l.nf - 1)
	k, need := l.k, 0
	c := int32(lo / chunkRows)
	skip := lp.skip[:0] // slot×file pairs an earlier chunk has samples enough of
	for _, s := range touched {
		for f := range l.nf {
			j := int(s)*l.nf + f
			if lp.rows[j] == 0 {
				continue
			}
			if l.sampled[j].Load() < c {
				lp.n[j] = int32(k) // passed over below as if sampled; reset after
				skip = append(skip, int32(j))
				continue
			}
			need += min(k, int(lp.rows[j]))
		}
	}
	lp.skip = skip
	defer func() {
		for _, j := range skip {
			lp.n[j] = 0
		}
		for _, s := range touched {
			for f := range l.nf {
				j := int(s)*l.nf + f
				if int(lp.n[j]) == k {
					l.sampledBy(j, c)
				}
			}
		}
	}()
	full := -1 // a group and file whose samples are taken: its rows are passed over
	for i := 0; need > 0 && i < len(slots); i++ {
		r := sel.Row(lo + i)
		j := int(slots[i])*l.nf + int(min(uint32(l.files[r]), nf1))
		if j == full {
			continue
		}
		if n := int(lp.n[j]); n < k {
			lp.sample[j*k+n] = int32(r)
			lp.n[j]++
			need--
		} else {
			full = j
		}
	}
}

// segments counts the lineage of selected rows [lo, hi) stretch by stretch of one file and
// sheet (segments), and takes the samples of a chunk without groups in the same walk. It
// reports false, having done nothing, when the chunk crosses too many stretches.
func (lp *linPart) segments(sel Selection, l *linIn, slots []uint32, lo, hi int, touched []uint32, count []int64) bool {
	nf1, sc1 := uint32(l.nf-1), uint32(l.sheetCard-1) // the digits of null codes
	one := len(count) == 1
	nf, sc, k := l.nf, l.sheetCard, l.k
	trip, rows, sheets, sw := lp.trip, lp.rows, lp.sheets, l.sw
	ok := segments(sel, lo, hi, l.files, l.sheets, l.fileRuns, l.sheetRuns, func(a, b int, cf, cs int32) {
		f, sh := int(min(uint32(cf), nf1)), int(min(uint32(cs), sc1))
		switch {
		case trip == nil:
			bit := uint64(1) << (sh & 63)
			for _, s := range slots[a:b] {
				j := int(s)*nf + f
				rows[j]++
				sheets[j*sw+sh>>6] |= bit
			}
		case a == 0 && b == hi-lo:
			// One file and sheet over the chunk: each group's rows are its count.
			for _, s := range touched {
				trip[(int(s)*nf+f)*sc+sh] += count[s]
			}
		case one:
			trip[f*sc+sh] += int64(b - a)
		default:
			stride, base := nf*sc, f*sc+sh
			for _, s := range slots[a:b] {
				trip[int(s)*stride+base]++
			}
		}
		if one {
			// The first k rows of the file: those of its first stretches.
			for n := int(lp.n[f]); n < k && a < b; n, a = n+1, a+1 {
				lp.sample[f*k+n] = int32(sel.Row(lo + a))
				lp.n[f]++
			}
		}
	})
	if !ok {
		return false
	}
	lp.settle(l, touched)
	if !one {
		lp.sampleRows(sel, l, slots, lo, touched)
	}
	return true
}

// sampledBy records that chunk c, or the chunks up to it, hold k rows of slot×file j.
func (l *linIn) sampledBy(j int, c int32) {
	for {
		old := l.sampled[j].Load()
		if old <= c || l.sampled[j].CompareAndSwap(old, c) {
			return
		}
	}
}

// settle turns the chunk's slot×file×sheet counts of the touched slots into rows and sheet
// sets, and clears them.
func (lp *linPart) settle(l *linIn, touched []uint32) {
	if lp.trip == nil {
		return
	}
	for _, s := range touched {
		for f := range l.nf {
			j := int(s)*l.nf + f
			for sh, n := range lp.trip[j*l.sheetCard : (j+1)*l.sheetCard] {
				if n > 0 {
					lp.rows[j] += n
					lp.sheets[j*l.sw+(sh>>6)] |= 1 << (sh & 63)
					lp.trip[j*l.sheetCard+sh] = 0
				}
			}
		}
	}
}

// merged is the state of all chunks folded so far, per slot.
type merged struct {
	p     *plan
	count []int64
	fl    []floatPart
	ds    []distPart
	ln    struct {
		rows    []int64
		sheets  []uint64
		samples [][]int32
	}
}

func newMerged(p *plan) *merged {
	S := p.space
	m := &merged{p: p, count: zeroed(&i64Pool, S)}
	for _, f := range p.floats {
		m.fl = append(m.fl, newFloatPart(f, S, true))
	}
	for _, d := range p.dists {
		m.ds = append(m.ds, newDistPart(d, S))
	}
	if l := p.lin; l != nil {
		m.ln.rows = zeroed(&i64Pool, S*l.nf)
		m.ln.sheets = zeroed(&u64Pool, S*l.nf*l.sw)
		m.ln.samples = zeroed(&sampsPool, S*l.nf)
	}
	return m
}

// recycle hands the merged state's per-slot buffers back once its results are out (they
// hold no reference into them: a group's lineage samples are slices of their own, which the
// samples buffer forgets when it is next taken).
func (m *merged) recycle() {
	for i := range m.fl {
		m.fl[i].recycle()
	}
	for i := range m.ds {
		i64Pool.put(m.ds[i].nulls)
		u64Pool.put(m.ds[i].bits)
		m.ds[i] = distPart{}
	}
	i64Pool.put(m.count)
	i64Pool.put(m.ln.rows)
	u64Pool.put(m.ln.sheets)
	sampsPool.put(m.ln.samples)
	if l := m.p.lin; l != nil {
		atomPool.put(l.sampled)
		l.sampled = nil
	}
	m.count, m.ln.rows, m.ln.sheets, m.ln.samples = nil, nil, nil, nil
}

// fold adds the worker's current chunk, chunk c, to m (called in chunk order) and clears
// the chunk state of the slots it touched.
func (m *merged) fold(p *plan, pt *partial, c int) {
	for _, s := range pt.touched {
		c := pt.count[s]
		m.count[s] += c
		pt.count[s] = 0
		for fi := range p.floats {
			fp, mp := &pt.fl[fi], &m.fl[fi]
			if fp.nn != nil {
				mp.nn[s] += fp.nn[s]
				fp.nn[s] = 0
			} else { // a column without nulls: every row is an input
				mp.nn[s] += c
			}
			mp.sum[s], mp.comp[s] = nadd(mp.sum[s], mp.comp[s]+fp.comp[s], fp.sum[s])
			fp.sum[s], fp.comp[s] = 0, 0
		}
		if l := p.lin; l != nil {
			for f := range l.nf {
				j := int(s)*l.nf + f
				if pt.ln.rows[j] == 0 {
					continue
				}
				m.ln.rows[j] += pt.ln.rows[j]
				pt.ln.rows[j] = 0
				for w := range l.sw {
					m.ln.sheets[j*l.sw+w] |= pt.ln.sheets[j*l.sw+w]
					pt.ln.sheets[j*l.sw+w] = 0
				}
				if room := l.k - len(m.ln.samples[j]); room > 0 {
					m.ln.samples[j] = append(m.ln.samples[j], pt.ln.sample[j*l.k:j*l.k+min(room, int(pt.ln.n[j]))]...)
					if len(m.ln.samples[j]) == l.k {
						l.sampledBy(j, int32(c))
					}
				}
				pt.ln.n[j] = 0
			}
		}
	}
	pt.touched = pt.touched[:0]
}

// unite merges the order-free state of a worker: extremes, units, distinct sets.
func (m *merged) unite(p *plan, pt *partial) {
	for fi := range p.floats {
		fp, mp := &pt.fl[fi], &m.fl[fi]
		for s := range mp.sum {
			if mp.ext0 != nil {
				mp.ext0[s] = min(mp.ext0[s], fp.ext0[s])
			}
			if mp.ext1 != nil {
				mp.ext1[s] = max(mp.ext1[s], fp.ext1[s])
			}
		}
		for u := range fp.unitFirst {
			for s, first := range fp.unitFirst[u] {
				mp.unitFirst[u][s], mp.unitMixed[u][s] = mixUnit(mp.unitFirst[u][s], mp.unitMixed[u][s], first, fp.unitMixed[u][s])
			}
		}
	}
	for di := range p.dists {
		dp, mp := &pt.ds[di], &m.ds[di]
		for s, n := range dp.nulls {
			mp.nulls[s] += n
		}
		if mp.bits != nil {
			for i, x := range dp.bits {
				mp.bits[i] |= x
			}
		} else {
			for k := range dp.set {
				mp.set[k] = struct{}{}
			}
		}
	}
}

// mixUnit folds a part's unit state (its first unit, or -2, and whether it mixed) into
// (first, mixed) and returns the result.
func mixUnit(first int32, mixed bool, f int32, mix bool) (int32, bool) {
	switch {
	case f == -2:
	case first == -2:
		first = f
	case first != f:
		mixed = true
	}
	return first, mixed || mix
}

// resultOf is op i per used slot (one per group, in order), or over their union (whole).
func (m *merged) resultOf(i int, used []uint32, whole bool) Result {
	p := m.p
	n := len(used)
	if whole {
		n = 1
	}
	res := Result{Values: make([]float64, n), Valid: make([]bool, n), NullRows: make([]int64, n), Mixed: make([]bool, n)}
	op, agg := p.opIn[i], p.ops[i].Agg
	if p.onDist[i] {
		// Count non-null over a column that is not numeric: rows less null rows.
		mp := &m.ds[op]
		for g, s := range used {
			res.Values[at(g, whole)] += float64(m.count[s] - mp.nulls[s])
			res.NullRows[at(g, whole)] += mp.nulls[s]
		}
		for g := range res.Valid {
			res.Valid[g] = true
		}
		return res
	}
	switch agg {
	case AggCount:
		for g, s := range used {
			res.Values[at(g, whole)] += float64(m.count[s])
		}
		for g := range res.Valid {
			res.Valid[g] = true
		}
		return res
	case AggCountDistinct:
		d, mp := p.dists[op], &m.ds[op]
		if whole {
			if mp.bits != nil {
				acc := make([]uint64, d.words)
				for _, s := range used {
					for w, x := range mp.bits[int(s)*d.words : (int(s)+1)*d.words] {
						acc[w] |= x
					}
				}
				res.Values[0] = float64(popcount(acc))
			} else {
				codes := map[uint32]struct{}{}
				for k := range mp.set {
					codes[uint32(k)] = struct{}{}
				}
				res.Values[0] = float64(len(codes))
			}
			for _, s := range used {
				res.NullRows[0] += mp.nulls[s]
			}
			res.Valid[0] = true
			return res
		}
		var perSlot map[uint32]int64
		if mp.bits == nil {
			perSlot = map[uint32]int64{}
			for k := range mp.set {
				perSlot[uint32(k>>32)]++
			}
		}
		for g, s := range used {
			if mp.bits != nil {
				res.Values[g] = float64(popcount(mp.bits[int(s)*d.words : (int(s)+1)*d.words]))
			} else {
				res.Values[g] = float64(perSlot[s])
			}
			res.NullRows[g], res.Valid[g] = mp.nulls[s], true
		}
		return res
	}
	f, mp := p.floats[op], &m.fl[op]
	unit := -1
	if u := p.units[i]; u != nil {
		unit = slices.Index(f.units, u)
	}
	type acc struct {
		sum, comp, lo, hi float64
		nn, rows          int64
		first             int32
		mixed             bool
	}
	// fold adds slot s to a; finish writes a's result as group g's. Each group of a grouped
	// result is one slot, folded into an accumulator of its own on the stack.
	fold := func(a *acc, s uint32) {
		a.sum, a.comp = nadd(a.sum, a.comp+mp.comp[s], mp.sum[s])
		a.nn += mp.nn[s]
		a.rows += m.count[s]
		if mp.ext0 != nil {
			a.lo = min(a.lo, mp.ext0[s])
		}
		if mp.ext1 != nil {
			a.hi = max(a.hi, mp.ext1[s])
		}
		if unit >= 0 {
			a.first, a.mixed = mixUnit(a.first, a.mixed, mp.unitFirst[unit][s], mp.unitMixed[unit][s])
		}
	}
	finish := func(g int, a *acc) {
		res.NullRows[g] = a.rows - a.nn
		switch agg {
		case AggCountNonNull:
			res.Values[g], res.Valid[g] = float64(a.nn), true
		case AggSum:
			if a.nn > 0 {
				res.Values[g], res.Valid[g] = a.sum+a.comp, true
			}
		case AggAvg:
			if a.nn > 0 {
				res.Values[g], res.Valid[g] = (a.sum+a.comp)/float64(a.nn), true
			}
		case AggMin:
			if a.nn > 0 {
				res.Values[g], res.Valid[g] = a.lo, true
			}
		case AggMax:
			if a.nn > 0 {
				res.Values[g], res.Valid[g] = a.hi, true
			}
		}
		if a.mixed {
			res.Mixed[g], res.Valid[g], res.Values[g] = true, false, 0
		}
	}
	empty := acc{lo: math.Inf(1), hi: math.Inf(-1), first: -2}
	if whole {
		a := empty
		for _, s := range used {
			fold(&a, s)
		}
		finish(0, &a)
		return res
	}
	for g, s := range used {
		a := empty
		fold(&a, s)
		finish(g, &a)
	}
	return res
}

// aggName is the name of an aggregation, for messages.
func aggName(a Agg) string {
	switch a {
	case AggCount:
		return "count"
	case AggCountNonNull:
		return "count_non_null"
	case AggSum:
		return "sum"
	case AggAvg:
		return "avg"
	case AggMin:
		return "min"
	case AggMax:
		return "max"
	case AggCountDistinct:
		return "count_distinct"
	case AggQuantile:
		return "quantile"
	}
	return fmt.Sprintf("aggregation %d", a)
}

func at(g int, whole bool) int {
	if whole {
		return 0
	}
	return g
}

func popcount(ws []uint64) int {
	n := 0
	for _, x := range ws {
		n += bits64.OnesCount64(x)
	}
	return n
}

// lineage is each used slot's sources, by file code.
func (m *merged) lineage(used []uint32) [][]Source {
	l := m.p.lin
	out := make([][]Source, len(used))
	for g, s := range used {
		for f := range l.nf {
			j := int(s)*l.nf + f
			if m.ln.rows[j] == 0 {
				continue
			}
			file := int32(f)
			if f == l.nf-1 {
				file = -1 // null file code
			}
			src := Source{File: file, Rows: m.ln.rows[j], Sample: m.ln.samples[j]}
			for w := range l.sw {
				for x := m.ln.sheets[j*l.sw+w]; x != 0; x &= x - 1 {
					sh := int32(w*64 + bits64.TrailingZeros64(x))
					if int(sh) == l.sheetCard-1 {
						sh = -1
					}
					src.Sheets = append(src.Sheets, sh)
				}
			}
			if len(src.Sheets) > 0 && src.Sheets[len(src.Sheets)-1] == -1 {
				src.Sheets = append([]int32{-1}, src.Sheets[:len(src.Sheets)-1]...)
			}
			out[g] = append(out[g], src)
		}
		if n := len(out[g]); n > 0 && out[g][n-1].File == -1 {
			out[g] = append([]Source{out[g][n-1]}, out[g][:n-1]...)
		}
	}
	return out
}

// mergeSources is the union of every group's sources per file: rows added, sheets united,
// and the first k rows of the file among the groups' samples (each group's first k rows of
// the file include every one of the file's first k rows that lies in the group).
func mergeSources(groups [][]Source, k int) []Source {
	byFile := map[int32]*Source{}
	var files []int32
	for _, srcs := range groups {
		for _, src := range srcs {
			s := byFile[src.File]
			if s == nil {
				s = &Source{File: src.File}
				byFile[src.File] = s
				files = append(files, src.File)
			}
			s.Rows += src.Rows
			s.Sample = append(s.Sample, src.Sample...)
			for _, sh := range src.Sheets {
				if !containsCode(s.Sheets, sh) {
					s.Sheets = insertCode(s.Sheets, sh)
				}
			}
		}
	}
	sort.Slice(files, func(a, b int) bool { return files[a] < files[b] })
	out := make([]Source, 0, len(files))
	for _, f := range files {
		s := byFile[f]
		slices.Sort(s.Sample)
		s.Sample = s.Sample[:min(k, len(s.Sample))]
		out = append(out, *s)
	}
	return out
}

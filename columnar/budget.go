package columnar

import (
	"cmp"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
)

// The memory budget bounds what the tables keep decoded in memory, across every table of the
// process: their columns (with the views built on them: numbers, presence, runs, value
// counts), what their users keep with them (Memo), and the metadata of their open Parquet
// files. Each of those is an entry charged its bytes when it is made resident; when the
// total passes the budget, the least recently used entries are dropped until it is back
// under seven eighths of it (so one load does not evict at every step). A table whose
// entries are all dropped costs its Parquet file's pages in the kernel's page cache and a
// few hundred bytes of heap per column.
//
// Dropping an entry never breaks a reader of it: the column (or memo) stays alive for as
// long as someone holds it (a query running on it), and a weak reference lets the next
// caller take it back instead of decoding it again while it is alive. So a query's columns
// are the same objects from its start to its end, whatever is evicted meanwhile, and a
// budget smaller than one query's columns still answers: they are held while it runs and
// dropped after. A column decoded again is the same data: decoding is deterministic.

// entry is something the budget can drop: a column's slot, a memo, a table's open file. The
// budget holds entries weakly, so a table nobody holds any more is collected with its
// columns, and its entries leave the budget with it.
type entry struct {
	// use is the budget clock at the entry's last use.
	use atomic.Uint64
	// drop releases the entry's memory and reports whether it did; an entry in use (its
	// lock held, an open file being read) is kept.
	drop func() bool
}

// newEntry is an entry dropped by drop; it leaves the budget when it is collected.
func newEntry(drop func() bool) *entry {
	e := &entry{drop: drop}
	runtime.AddCleanup(e, func(w weak.Pointer[entry]) { budget.forget(w) }, weak.Make(e))
	return e
}

// budgetState is the process's memory budget.
type budgetState struct {
	limit atomic.Int64 // bytes; 0: no bound
	used  atomic.Int64
	clock atomic.Uint64

	mu      sync.Mutex
	held    map[weak.Pointer[entry]]int64 // resident entries and their bytes
	dropped atomic.Int64                  // entries dropped to stay within the limit
	loads   atomic.Int64                  // entries made resident (decoded, or taken back)
}

var budget = &budgetState{held: map[weak.Pointer[entry]]int64{}}

// tick is the next value of the budget clock, for an entry's last use.
func tick() uint64 { return budget.clock.Add(1) }

// SetMemoryBudget bounds the bytes the tables keep decoded (0: no bound, the default) and
// drops the least recently used entries until they are within it.
func SetMemoryBudget(n int64) {
	budget.limit.Store(max(n, 0))
	budget.shrink(nil)
}

// MemoryStats describes the budget's state.
type MemoryStats struct {
	// Limit is the budget (0: none); Used the bytes resident entries are charged.
	Limit, Used int64
	// Entries are resident: columns, memos and open files.
	Entries int
	// Loads counts entries made resident, Evictions those dropped to stay within the limit.
	Loads, Evictions int64
}

// Memory returns the budget's state.
func Memory() MemoryStats {
	budget.mu.Lock()
	n := len(budget.held)
	budget.mu.Unlock()
	return MemoryStats{Limit: budget.limit.Load(), Used: budget.used.Load(), Entries: n, Loads: budget.loads.Load(), Evictions: budget.dropped.Load()}
}

// admit makes e resident with bytes n. The caller then calls shrink, outside its locks.
func (b *budgetState) admit(e *entry, n int64) {
	w := weak.Make(e)
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.held[w]; ok {
		return
	}
	b.held[w] = n
	b.used.Add(n)
	b.loads.Add(1)
}

// grow adds n bytes to size, the bytes of e's content, and charges them to e when it is
// resident (a view built on a column). The caller then calls shrink, outside its locks.
func (b *budgetState) grow(e *entry, size *atomic.Int64, n int64) {
	w := weak.Make(e)
	b.mu.Lock()
	defer b.mu.Unlock()
	size.Add(n)
	if _, ok := b.held[w]; ok {
		b.held[w] += n
		b.used.Add(n)
	}
}

// release forgets resident entry e (its drop is releasing it).
func (b *budgetState) release(e *entry) { b.forget(weak.Make(e)) }

// forget forgets the entry of w, resident or not.
func (b *budgetState) forget(w weak.Pointer[entry]) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n, ok := b.held[w]; ok {
		delete(b.held, w)
		b.used.Add(-n)
	}
}

// shrink drops the least recently used entries but keep, while the budget is exceeded,
// down to seven eighths of it. It must be called with no lock held that an entry's drop
// waits for (drops only try their locks).
func (b *budgetState) shrink(keep *entry) {
	limit := b.limit.Load()
	if limit <= 0 || b.used.Load() <= limit {
		return
	}
	target := limit - limit/8
	type cand struct {
		e   *entry
		use uint64
	}
	b.mu.Lock()
	cands := make([]cand, 0, len(b.held))
	for w := range b.held {
		if e := w.Value(); e != nil && e != keep {
			cands = append(cands, cand{e, e.use.Load()})
		}
	}
	b.mu.Unlock()
	slices.SortFunc(cands, func(x, y cand) int { return cmp.Compare(x.use, y.use) })
	for _, c := range cands {
		if b.used.Load() <= target {
			return
		}
		if c.e.drop() {
			b.dropped.Add(1)
		}
	}
}

// resident is a value the budget can drop: held while it is resident, and weakly once
// dropped, so that while someone still holds it the next caller takes it back instead of
// making it again.
type resident[T any] struct {
	mu   sync.Mutex
	val  atomic.Pointer[T]
	gone weak.Pointer[T]
	ent  *entry
	// pinned, when set and true, keeps the value from the budget (Table.Pin).
	pinned *atomic.Bool
}

// init sets r's budget entry.
func (r *resident[T]) init(pinned *atomic.Bool) {
	r.pinned = pinned
	r.ent = newEntry(r.drop)
}

// loaded is the resident value, nil when there is none.
func (r *resident[T]) loaded() *T { return r.val.Load() }

// get returns the value: the resident one, the one dropped while it is still alive, or one
// made by build (once, however many callers ask at the same time), charged its size.
func (r *resident[T]) get(build func() (*T, error), size func(*T) int64) (*T, error) {
	if v := r.val.Load(); v != nil {
		r.ent.use.Store(tick())
		return v, nil
	}
	r.mu.Lock()
	v := r.val.Load()
	admitted := false
	if v == nil {
		if v = r.gone.Value(); v == nil {
			var err error
			if v, err = build(); err != nil {
				r.mu.Unlock()
				return nil, err
			}
		}
		r.gone = weak.Pointer[T]{}
		budget.admit(r.ent, size(v))
		r.val.Store(v)
		admitted = true
	}
	r.ent.use.Store(tick())
	r.mu.Unlock()
	if admitted {
		budget.shrink(r.ent)
	}
	return v, nil
}

// drop releases the value to the budget (it lives on while held).
func (r *resident[T]) drop() bool {
	if r.pinned != nil && r.pinned.Load() {
		return false
	}
	if !r.mu.TryLock() {
		return false // being made: in use
	}
	defer r.mu.Unlock()
	v := r.val.Load()
	if v == nil {
		return false
	}
	r.val.Store(nil)
	r.gone = weak.Make(v)
	budget.release(r.ent)
	return true
}

// memoVal is a value kept with a table (Table.Memo) and its size.
type memoVal struct {
	v     any
	bytes int64
}

// Memo returns the value kept with the table under key, building it first when it is not
// kept: something derived from the table that its user would rather not derive at every
// use (an index of its rows, say). build returns the value and about how many bytes it
// takes; the value is charged to the memory budget and dropped with the least recently used
// columns, to be built again at its next use. An error is returned, not kept.
func (t *Table) Memo(key string, build func() (any, int64, error)) (any, error) {
	t.memoMu.Lock()
	m := t.memos[key]
	if m == nil {
		if t.memos == nil {
			t.memos = map[string]*resident[memoVal]{}
		}
		m = &resident[memoVal]{}
		m.init(nil)
		t.memos[key] = m
	}
	t.memoMu.Unlock()
	v, err := m.get(func() (*memoVal, error) {
		x, n, err := build()
		if err != nil {
			return nil, err
		}
		return &memoVal{v: x, bytes: n}, nil
	}, func(v *memoVal) int64 { return v.bytes })
	if err != nil {
		return nil, err
	}
	return v.v, nil
}

// size is about how many bytes the column takes in memory, its views counted as they are
// built (grow).
func (c *Column) size() int64 {
	n := int64(256 + len(c.Name))
	n += 4 * int64(len(c.Codes))
	for _, v := range c.Values {
		n += 16 + int64(len(v)) + 48 // the value, and its entry in the lookup index
	}
	n += 8 * int64(len(c.Nums))
	for _, a := range []arrow.Array{c.Floats, c.Ints, c.Strs, c.Bools} {
		if a == nil || reflect.ValueOf(a).IsNil() {
			continue
		}
		for _, b := range a.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}

// grow charges n more bytes to the column (a view built on it).
func (c *Column) grow(n int64) {
	if c.owner == nil {
		return
	}
	budget.grow(c.owner, &c.bytes, n)
	budget.shrink(c.owner)
}

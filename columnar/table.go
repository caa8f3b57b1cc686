// Package columnar is the in-memory query engine: Arrow tables loaded from the Parquet
// snapshots (memory-mapped), dimensions as dictionary codes, filters that produce selection
// vectors, and typed group-by kernels for sum, count, count distinct, min, max and avg with
// SQL null semantics. It knows nothing of HTTP or of capabilities' wire formats.
package columnar

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Kind is how a column is held in memory.
type Kind uint8

// Column kinds.
const (
	// Dict columns hold int32 codes into a sorted dictionary of their distinct values; -1 is
	// null. Code order is value order, so grouping by codes yields groups in key order.
	Dict Kind = iota
	// Float columns hold an Arrow float64 array.
	Float
	// Int columns hold an Arrow int64 array.
	Int
	// Str columns hold an Arrow string array (high-cardinality text).
	Str
	// Bool columns hold an Arrow boolean array.
	Bool
)

// Spec says how to load one column.
type Spec struct {
	Name string
	// Dict loads the column as dictionary codes (dimensions, filters, count-distinct inputs).
	Dict bool
}

// Column is one loaded column. A numeric column (Float, Int, or a Dict column of numbers)
// can also be read as float64 values (Numbers), so the same column both filters or groups by
// its codes and feeds the sum, avg, min and max kernels.
type Column struct {
	Name  string
	Kind  Kind
	Codes []int32
	// Values is the sorted dictionary of a Dict column, as text (integers in decimal, floats
	// as strconv.FormatFloat(v, 'g', -1, 64)).
	Values []string
	// Nums is the dictionary of a Dict column of integers or floats as numbers, parallel to
	// Values; nil for a dictionary of text, dates or booleans.
	Nums   []float64
	Floats *array.Float64
	Ints   *array.Int64
	Strs   *array.String
	Bools  *array.Boolean
	index  map[string]int32

	// numbers and presence are derived views, built on first use.
	numOnce  sync.Once
	numbers  *Numbers
	presOnce sync.Once
	presence []int32
	// runs are the first rows of the runs of equal codes (Runs); counts and countNulls the
	// rows of each code and the null rows over the whole column (CountValues).
	runsOnce   sync.Once
	runs       []int32
	countsOnce sync.Once
	counts     []int64
	countNulls int64

	// owner is the budget entry of the column's slot (nil for a column made otherwise);
	// bytes what the column and its views take, charged to it.
	owner *entry
	bytes atomic.Int64
}

// Numbers is a numeric column as float64 values with a validity bitmap: the kernels' input.
type Numbers struct {
	// Vals holds each row's value (arbitrary where the row is null).
	Vals []float64
	// Bitmap is the Arrow validity bitmap (bit Off+i set: row i is not null); it may be nil
	// when Nulls is 0.
	Bitmap []byte
	Off    int
	Nulls  int
}

// Numeric reports whether the column holds numbers: a Float or Int column, or a Dict column
// whose dictionary is of integers or floats.
func (c *Column) Numeric() bool {
	return c.Kind == Float || c.Kind == Int || (c.Kind == Dict && c.Nums != nil)
}

// Numbers returns the column's values as float64, for the aggregation kernels; nil when the
// column is not Numeric. A Float column is returned as it is held. An Int column and a Dict
// column of numbers are converted once, on first use, and the conversion kept: integers of
// magnitude up to 2^53 (every count and quantity the agencies publish) convert exactly, so
// their sums are exact wherever they stay below 2^53.
func (c *Column) Numbers() *Numbers {
	c.numOnce.Do(func() {
		switch {
		case c.Kind == Float:
			a := c.Floats
			c.numbers = &Numbers{Vals: a.Float64Values(), Bitmap: a.NullBitmapBytes(), Off: a.Offset(), Nulls: a.NullN()}
		case c.Kind == Int:
			a := c.Ints
			ints := a.Int64Values()
			vals := make([]float64, len(ints))
			parallelFor(len(ints), func(lo, hi int) {
				for i, v := range ints[lo:hi] {
					vals[lo+i] = float64(v)
				}
			})
			c.numbers = &Numbers{Vals: vals, Bitmap: a.NullBitmapBytes(), Off: a.Offset(), Nulls: a.NullN()}
			c.grow(8 * int64(len(vals)))
		case c.Kind == Dict && c.Nums != nil:
			n := len(c.Codes)
			vals, bitmap := make([]float64, n), make([]byte, (n+7)/8)
			nulls := make([]int, (n+chunkRows-1)/chunkRows)
			// chunkRows is a multiple of 8, so chunks write disjoint bytes of the bitmap.
			parallelFor(n, func(lo, hi int) {
				k := 0
				for i, code := range c.Codes[lo:hi] {
					r := lo + i
					if code < 0 {
						k++
						continue
					}
					vals[r] = c.Nums[code]
					bitmap[r>>3] |= 1 << (r & 7)
				}
				nulls[lo/chunkRows] = k
			})
			total := 0
			for _, k := range nulls {
				total += k
			}
			c.numbers = &Numbers{Vals: vals, Bitmap: bitmap, Nulls: total}
			c.grow(8*int64(n) + int64(len(bitmap)))
		}
	})
	return c.numbers
}

// Presence returns the column's rows as codes that are -1 where the row is null and not
// negative elsewhere: a Dict column's own codes, or, for any other kind, 0 and -1 built once
// from the validity of its values. Counting non-null rows of any column reads it.
func (c *Column) Presence() []int32 {
	if c.Kind == Dict {
		return c.Codes
	}
	c.presOnce.Do(func() {
		var a arrow.Array
		switch c.Kind {
		case Float:
			a = c.Floats
		case Int:
			a = c.Ints
		case Str:
			a = c.Strs
		case Bool:
			a = c.Bools
		}
		c.presence = make([]int32, a.Len())
		markNulls(a, c.presence)
		c.grow(4 * int64(len(c.presence)))
	})
	return c.presence
}

// Table is a snapshot fact table. Its Parquet file is memory-mapped while it is read; a
// column is decoded into memory the first time a query needs it (Need, Column, Col) and kept
// until the memory budget (budget.go) drops it, least recently used first, so a table costs
// the memory of the columns its queries touch, not of all its columns, and a table not
// asked for lately costs little more than its file's pages in the kernel's page cache.
type Table struct {
	Rows  int
	path  string
	slots map[string]*slot // fixed at Open
	// groupRows are the rows of each row group; dictCols the leaf columns held as
	// dictionary codes.
	groupRows []int
	dictCols  []int
	// file is the open Parquet file (file.go).
	file *fileState
	// id names the table in the page cache; starts holds the first row of each data page
	// by row group and leaf column, read from the offset index on first use.
	id       uint64
	startsMu sync.Mutex
	starts   map[[2]int][]int
	// memos are what the table's users keep with it under the budget (Memo).
	memoMu sync.Mutex
	memos  map[string]*resident[memoVal]
	// pinned keeps the decoded columns from the budget (Pin).
	pinned *atomic.Bool
}

// tableIDs numbers the tables opened.
var tableIDs atomic.Uint64

// slot holds one column of the table while it is resident.
type slot struct {
	spec  Spec
	index int // leaf column index in the Parquet file
	// nulls is the column's null count from the file's statistics (-1: not recorded).
	nulls int64
	col   resident[Column]
}

// Open maps the Parquet file at path, checks that it has the columns of specs and reads
// what its footer says of them; it decodes none of them, and leaves the file closed until a
// column or a cell is read.
func Open(path string, specs []Spec) (*Table, error) {
	return open(&fileState{path: path}, specs)
}

// OpenBytes is Open of a Parquet file held in memory, data, which the table keeps (and
// which must not change); name names it in errors. Nothing is read from disk.
func OpenBytes(name string, data []byte, specs []Spec) (*Table, error) {
	return open(&fileState{path: name, data: data}, specs)
}

func open(fs *fileState, specs []Spec) (*Table, error) {
	path := fs.path
	f, err := fs.open()
	if err != nil {
		return nil, fmt.Errorf("columnar: open %s: %w", path, err)
	}
	defer f.close()
	md := f.rdr.MetaData()
	sch := md.Schema
	t := &Table{Rows: int(md.NumRows), path: path, slots: map[string]*slot{}, id: tableIDs.Add(1), file: fs,
		pinned: &atomic.Bool{}}
	t.file.ent = newEntry(t.file.drop)
	for g := range md.NumRowGroups() {
		t.groupRows = append(t.groupRows, int(md.RowGroup(g).NumRows()))
	}
	for _, s := range specs {
		i := sch.ColumnIndexByName(s.Name)
		if i < 0 {
			return nil, fmt.Errorf("columnar: %s has no column %q", path, s.Name)
		}
		sl := &slot{spec: s, index: i, nulls: statsNulls(md, i)}
		if s.Dict {
			t.dictCols = append(t.dictCols, i)
		}
		sl.col.init(t.pinned)
		t.slots[s.Name] = sl
	}
	runtime.AddCleanup(t, func(fs *fileState) { fs.closeNow() }, t.file)
	return t, nil
}

// statsNulls is the null count of leaf column col from the statistics of every row group,
// or -1 when a row group does not record it.
func statsNulls(md *metadata.FileMetaData, col int) int64 {
	nulls := int64(0)
	for g := range md.NumRowGroups() {
		cc, err := md.RowGroup(g).ColumnChunk(col)
		if err != nil {
			return -1
		}
		if set, _ := cc.StatsSet(); !set {
			return -1
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasNullCount() {
			return -1
		}
		nulls += st.NullCount()
	}
	return nulls
}

// Load opens the Parquet file at path and decodes every column of specs.
func Load(path string, specs []Spec) (*Table, error) {
	t, err := Open(path, specs)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	if err := t.Need(names...); err != nil {
		return nil, err
	}
	return t, nil
}

// Pin keeps the table's decoded columns in memory for as long as the table lives: the
// budget still counts them but never drops them. It is for a table whose file is removed
// once its columns are decoded (Pin it, then Need every column).
func (t *Table) Pin() { t.pinned.Store(true) }

// Has reports whether name is a column of the table (loaded or not).
func (t *Table) Has(name string) bool { return t.slots[name] != nil }

// Loaded reports whether the column name is decoded in memory.
func (t *Table) Loaded(name string) bool {
	s := t.slots[name]
	return s != nil && s.col.loaded() != nil
}

// Need decodes the named columns that are not yet in memory, several at a time. Those
// already in memory count as used now, so the budget drops them after the others.
func (t *Table) Need(names ...string) error {
	var missing []*slot
	use := tick()
	for _, n := range names {
		s := t.slots[n]
		if s == nil {
			return fmt.Errorf("columnar: %s has no column %q", t.path, n)
		}
		s.col.ent.use.Store(use)
		if s.col.loaded() == nil && !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	errs := make([]error, len(missing))
	forEach(len(missing), func(i int) { _, errs[i] = t.column(missing[i]) })
	return errors.Join(errs...)
}

// Column returns the named column, decoding it first if needed.
func (t *Table) Column(name string) (*Column, error) {
	s := t.slots[name]
	if s == nil {
		return nil, fmt.Errorf("columnar: %s has no column %q", t.path, name)
	}
	return t.column(s)
}

// Col returns the named column, decoding it first if needed; nil when the table has no such
// column or it cannot be read (Column says why).
func (t *Table) Col(name string) *Column {
	c, err := t.Column(name)
	if err != nil {
		return nil
	}
	return c
}

// mustCol returns a column for a kernel. Kernels run on columns the caller has made sure of
// (Need, Column); one that cannot be read here is a broken invariant.
func (t *Table) mustCol(name string) *Column {
	c, err := t.Column(name)
	if err != nil {
		panic(err)
	}
	return c
}

// column returns the column of s: the resident one, the one the budget dropped while it is
// still alive, or a new decoding (once, however many callers ask at the same time).
func (t *Table) column(s *slot) (*Column, error) {
	return s.col.get(func() (*Column, error) { return t.decode(s) }, func(c *Column) int64 { return c.bytes.Load() })
}

// decode reads the column of s from the file.
func (t *Table) decode(s *slot) (*Column, error) {
	f, err := t.file.use()
	if err != nil {
		return nil, fmt.Errorf("columnar: %s: %w", t.path, err)
	}
	defer t.file.done()
	fr, err := f.arrow(t.dictCols)
	if err != nil {
		return nil, fmt.Errorf("columnar: %s: %w", t.path, err)
	}
	groups := make([]int, len(t.groupRows))
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), []int{s.index}, groups)
	if err != nil {
		return nil, fmt.Errorf("columnar: read %s column %s: %w", t.path, s.spec.Name, err)
	}
	defer tbl.Release()
	col, err := fromChunked(s.spec, tbl.Column(0).Data(), t.Rows)
	if err != nil {
		return nil, fmt.Errorf("columnar: %s column %s: %w", t.path, s.spec.Name, err)
	}
	col.owner = s.col.ent
	col.bytes.Store(col.size())
	return col, nil
}

func concat(ch *arrow.Chunked) (arrow.Array, error) {
	if len(ch.Chunks()) == 1 {
		a := ch.Chunk(0)
		a.Retain()
		return a, nil
	}
	if len(ch.Chunks()) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, ch.DataType(), 0), nil
	}
	return array.Concatenate(ch.Chunks(), memory.DefaultAllocator)
}

func fromChunked(s Spec, ch *arrow.Chunked, n int) (*Column, error) {
	c := &Column{Name: s.Name}
	if s.Dict {
		return dictColumn(c, ch, n)
	}
	a, err := concat(ch)
	if err != nil {
		return nil, err
	}
	switch a := a.(type) {
	case *array.Float64:
		c.Kind, c.Floats = Float, a
	case *array.Int64:
		c.Kind, c.Ints = Int, a
	case *array.String:
		c.Kind, c.Strs = Str, a
	case *array.Boolean:
		c.Kind, c.Bools = Bool, a
	default:
		return nil, fmt.Errorf("unsupported type %s", a.DataType())
	}
	return c, nil
}

// dictColumn builds one sorted dictionary over all chunks and the codes into it. Each chunk
// (a row group) is coded against its own small dictionary on all cores; the chunk
// dictionaries are then merged, sorted (numerically for integers), and the codes remapped.
func dictColumn(c *Column, ch *arrow.Chunked, n int) (*Column, error) {
	c.Kind = Dict
	c.Codes = make([]int32, n)
	chunks := ch.Chunks()
	type local struct {
		vals []string
		err  error
	}
	locals := make([]local, len(chunks))
	starts := make([]int, len(chunks)+1)
	for i, a := range chunks {
		starts[i+1] = starts[i] + a.Len()
	}
	if starts[len(chunks)] != n {
		return nil, fmt.Errorf("%d rows in the column, %d in the table", starts[len(chunks)], n)
	}
	// A column of integers or floats keeps its dictionary in numeric order, with the numbers.
	var isInt, isFloat bool
	for _, a := range chunks {
		switch a.(type) {
		case *array.Int64:
			isInt = true
		case *array.Float64:
			isFloat = true
		}
	}
	if isInt && isFloat {
		return nil, fmt.Errorf("column mixes int64 and float64 chunks")
	}
	numeric := isInt || isFloat
	forEach(len(chunks), func(ci int) {
		codes := c.Codes[starts[ci]:starts[ci+1]]
		l := &locals[ci]
		switch a := chunks[ci].(type) {
		case *array.Dictionary:
			dict, ok := a.Dictionary().(*array.String)
			if !ok {
				l.err = fmt.Errorf("dictionary of %s", a.Dictionary().DataType())
				return
			}
			l.vals = make([]string, dict.Len())
			for i := range l.vals {
				l.vals[i] = dict.Value(i)
			}
			if idx, ok := a.Indices().(*array.Int32); ok {
				copy(codes, idx.Int32Values())
			} else {
				for i := range codes {
					codes[i] = int32(a.GetValueIndex(i))
				}
			}
			markNulls(a, codes)
		case *array.String:
			l.vals = localCodes(codes, a.IsNull, a.Value)
		case *array.Int64:
			ints := localCodes(codes, a.IsNull, a.Value)
			l.vals = make([]string, len(ints))
			for i, v := range ints {
				l.vals[i] = strconv.FormatInt(v, 10)
			}
		case *array.Float64:
			floats := localCodes(codes, a.IsNull, a.Value)
			l.vals = make([]string, len(floats))
			for i, v := range floats {
				l.vals[i] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		case *array.Boolean:
			seen := [2]int32{-1, -1} // local codes of false and true, in first-seen order
			for i := range codes {
				if a.IsNull(i) {
					codes[i] = -1
					continue
				}
				b := 0
				if a.Value(i) {
					b = 1
				}
				if seen[b] < 0 {
					seen[b] = int32(len(l.vals))
					l.vals = append(l.vals, strconv.FormatBool(b == 1))
				}
				codes[i] = seen[b]
			}
		default:
			l.err = fmt.Errorf("cannot dictionary-encode %s", a.DataType())
		}
	})
	// Merge the chunk dictionaries.
	index := map[string]int32{}
	var raw []string
	var rawNums []float64
	remaps := make([][]int32, len(chunks))
	for ci, l := range locals {
		if l.err != nil {
			return nil, l.err
		}
		remaps[ci] = make([]int32, len(l.vals))
		for j, v := range l.vals {
			code, ok := index[v]
			if !ok {
				code = int32(len(raw))
				index[v] = code
				raw = append(raw, v)
				if numeric {
					x, err := parseNumber(v, isInt)
					if err != nil {
						return nil, err
					}
					rawNums = append(rawNums, x)
				}
			}
			remaps[ci][j] = code
		}
	}
	// Sort the dictionary and fold the sort into each chunk's remap.
	order := make([]int32, len(raw))
	for i := range order {
		order[i] = int32(i)
	}
	if isInt {
		// Sorted as integers: two int64 beyond 2^53 may round to one float64.
		ints := make([]int64, len(raw))
		for i, v := range raw {
			ints[i], _ = strconv.ParseInt(v, 10, 64)
		}
		sort.Slice(order, func(i, j int) bool { return ints[order[i]] < ints[order[j]] })
	} else if isFloat {
		// Numeric order; values equal as numbers (0 and -0) in text order, NaN first.
		sort.Slice(order, func(i, j int) bool {
			a, b := rawNums[order[i]], rawNums[order[j]]
			if c := cmp.Compare(a, b); c != 0 {
				return c < 0
			}
			return raw[order[i]] < raw[order[j]]
		})
	} else {
		sort.Slice(order, func(i, j int) bool { return raw[order[i]] < raw[order[j]] })
	}
	rank := make([]int32, len(raw))
	c.Values = make([]string, len(raw))
	c.index = make(map[string]int32, len(raw))
	if numeric {
		c.Nums = make([]float64, len(raw))
	}
	for newCode, old := range order {
		rank[old] = int32(newCode)
		c.Values[newCode] = raw[old]
		c.index[raw[old]] = int32(newCode)
		if numeric {
			c.Nums[newCode] = rawNums[old]
		}
	}
	forEach(len(chunks), func(ci int) {
		remap := remaps[ci]
		for j, old := range remap {
			remap[j] = rank[old]
		}
		codes := c.Codes[starts[ci]:starts[ci+1]]
		for i, code := range codes {
			if code >= 0 {
				codes[i] = remap[code]
			}
		}
	})
	return c, nil
}

// parseNumber reads a numeric dictionary value back from its text.
func parseNumber(v string, isInt bool) (float64, error) {
	if isInt {
		x, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("integer column value %q: %w", v, err)
		}
		return float64(x), nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("float column value %q: %w", v, err)
	}
	return x, nil
}

// localCodes codes each row against a dictionary of the values in first-seen order (nulls
// -1) and returns the dictionary.
func localCodes[T comparable](codes []int32, isNull func(int) bool, value func(int) T) []T {
	index := map[T]int32{}
	var vals []T
	for i := range codes {
		if isNull(i) {
			codes[i] = -1
			continue
		}
		v := value(i)
		code, ok := index[v]
		if !ok {
			code = int32(len(vals))
			index[v] = code
			vals = append(vals, v)
		}
		codes[i] = code
	}
	return vals
}

// markNulls sets the codes of a's null rows to -1.
func markNulls(a arrow.Array, codes []int32) {
	if a.NullN() == 0 {
		return
	}
	for i := range codes {
		if a.IsNull(i) {
			codes[i] = -1
		}
	}
}

// forEach runs fn(0..n-1) on up to GOMAXPROCS goroutines.
func forEach(n int, fn func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Lookup returns the code of value v in a Dict column (-1 when absent).
func (c *Column) Lookup(v string) int32 {
	if code, ok := c.index[v]; ok {
		return code
	}
	return -1
}

// Valid reports whether row i of the column is not null.
func (c *Column) Valid(i int) bool {
	switch c.Kind {
	case Dict:
		return c.Codes[i] >= 0
	case Float:
		return c.Floats.IsValid(i)
	case Int:
		return c.Ints.IsValid(i)
	case Str:
		return c.Strs.IsValid(i)
	case Bool:
		return c.Bools.IsValid(i)
	}
	return false
}

// NullN is the number of null rows of the column.
func (c *Column) NullN() int {
	switch c.Kind {
	case Dict:
		n := 0
		for _, code := range c.Codes {
			if code < 0 {
				n++
			}
		}
		return n
	case Float:
		return c.Floats.NullN()
	case Int:
		return c.Ints.NullN()
	case Str:
		return c.Strs.NullN()
	case Bool:
		return c.Bools.NullN()
	}
	return 0
}

// Text returns row i of any column as text and whether it is non-null.
func (c *Column) Text(i int) (string, bool) {
	switch c.Kind {
	case Dict:
		if c.Codes[i] < 0 {
			return "", false
		}
		return c.Values[c.Codes[i]], true
	case Str:
		if c.Strs.IsNull(i) {
			return "", false
		}
		return c.Strs.Value(i), true
	case Int:
		if c.Ints.IsNull(i) {
			return "", false
		}
		return strconv.FormatInt(c.Ints.Value(i), 10), true
	case Float:
		if c.Floats.IsNull(i) {
			return "", false
		}
		return strconv.FormatFloat(c.Floats.Value(i), 'g', -1, 64), true
	case Bool:
		if c.Bools.IsNull(i) {
			return "", false
		}
		return strconv.FormatBool(c.Bools.Value(i)), true
	}
	return "", false
}

// chunkRows is the fixed size of the row ranges kernels process in parallel. It is a
// constant, not a function of the core count, so partial sums combine in the same order on
// every machine and answers are bit-for-bit reproducible.
const chunkRows = 1 << 16

// parallelFor runs fn over [0, n) in fixed chunks on up to GOMAXPROCS goroutines.
func parallelFor(n int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	chunks := (n + chunkRows - 1) / chunkRows
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 {
		// The same fixed chunks, one after the other: partial results never depend on the
		// number of cores.
		for c := 0; c < chunks; c++ {
			fn(c*chunkRows, min(n, (c+1)*chunkRows))
		}
		return
	}
	next := make(chan int, chunks)
	for c := 0; c < chunks; c++ {
		next <- c
	}
	close(next)
	done := make(chan struct{})
	for w := 0; w < workers; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for c := range next {
				fn(c*chunkRows, min(n, (c+1)*chunkRows))
			}
		}()
	}
	for w := 0; w < workers; w++ {
		<-done
	}
}

// NullN is the number of null rows of the named column: from the Parquet file's column
// statistics when every row group records them, so the column need not be decoded; else
// from the decoded column.
func (t *Table) NullN(name string) (int, error) {
	s := t.slots[name]
	if s == nil {
		return 0, fmt.Errorf("columnar: %s has no column %q", t.path, name)
	}
	if c := s.col.loaded(); c != nil {
		return c.NullN(), nil
	}
	if s.nulls >= 0 {
		return int(s.nulls), nil
	}
	c, err := t.column(s)
	if err != nil {
		return 0, err
	}
	return c.NullN(), nil
}

// Cells are one column's cells at some rows, typed as the column holds them: Strs for text
// (and for a Dict column, its values as text, with Floats too when its dictionary holds
// numbers), Floats, Ints or Bools for a column of numbers or booleans. Valid says which are
// non-null.
type Cells struct {
	Strs   []string
	Floats []float64
	Ints   []int64
	Bools  []bool
	Valid  []bool
}

// Text is cell i as Column.Text gives it, and whether it is non-null.
func (c *Cells) Text(i int) (string, bool) {
	if !c.Valid[i] {
		return "", false
	}
	switch {
	case c.Strs != nil:
		return c.Strs[i], true
	case c.Floats != nil:
		return strconv.FormatFloat(c.Floats[i], 'g', -1, 64), true
	case c.Ints != nil:
		return strconv.FormatInt(c.Ints[i], 10), true
	case c.Bools != nil:
		return strconv.FormatBool(c.Bools[i]), true
	}
	return "", false
}

// Cells returns the cells of the named column at the given rows (ascending). A column not
// in memory is not decoded for this: the cells are read from the mapped Parquet file, a data
// page at a time (pages.go).
func (t *Table) Cells(name string, rows []int) (*Cells, error) {
	s := t.slots[name]
	if s == nil {
		return nil, fmt.Errorf("columnar: %s has no column %q", t.path, name)
	}
	out := &Cells{Valid: make([]bool, len(rows))}
	if c := s.col.loaded(); c != nil {
		c.cells(rows, out)
		return out, nil
	}
	// The file is opened only when a page is not in the page cache.
	var f *openFile
	defer func() {
		if f != nil {
			t.file.done()
		}
	}()
	open := func() (*openFile, error) {
		if f == nil {
			var err error
			if f, err = t.file.use(); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	start := 0 // first table row of row group g
	i := 0
	for g := 0; g < len(t.groupRows) && i < len(rows); g++ {
		end := start + t.groupRows[g]
		if rows[i] < end {
			j := i
			for j < len(rows) && rows[j] < end {
				j++
			}
			if err := t.readCells(open, g, s.index, start, rows[i:j], out, i); err != nil {
				return nil, fmt.Errorf("columnar: %s column %s: %w", t.path, name, err)
			}
			i = j
		}
		start = end
	}
	if i < len(rows) {
		return nil, fmt.Errorf("columnar: %s column %s: row %d out of range or rows not ascending", t.path, name, rows[i])
	}
	return out, nil
}

// cells sets out to the column's cells at rows.
func (c *Column) cells(rows []int, out *Cells) {
	switch c.Kind {
	case Dict:
		out.Strs = make([]string, len(rows))
		if c.Nums != nil {
			out.Floats = make([]float64, len(rows))
		}
		for i, r := range rows {
			if code := c.Codes[r]; code >= 0 {
				out.Strs[i], out.Valid[i] = c.Values[code], true
				if out.Floats != nil {
					out.Floats[i] = c.Nums[code]
				}
			}
		}
	case Float:
		out.Floats = valuesAt(rows, out.Valid, c.Floats.IsValid, c.Floats.Value)
	case Int:
		out.Ints = valuesAt(rows, out.Valid, c.Ints.IsValid, c.Ints.Value)
	case Str:
		out.Strs = valuesAt(rows, out.Valid, c.Strs.IsValid, c.Strs.Value)
	case Bool:
		out.Bools = valuesAt(rows, out.Valid, c.Bools.IsValid, c.Bools.Value)
	}
}

// valuesAt returns the values of an Arrow array at rows, setting valid for the non-null.
func valuesAt[T any](rows []int, valid []bool, isValid func(int) bool, value func(int) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		if valid[i] = isValid(r); valid[i] {
			out[i] = value(r)
		}
	}
	return out
}

// CellsOf is Cells for several columns at once, read on all cores: cells[i] is column
// names[i]'s.
func (t *Table) CellsOf(names []string, rows []int) ([]*Cells, error) {
	cells := make([]*Cells, len(names))
	errs := make([]error, len(names))
	forEach(len(names), func(i int) { cells[i], errs[i] = t.Cells(names[i], rows) })
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cells, nil
}

// Texts returns the cells of the named column at the given rows (ascending) as text, as
// Column.Text gives them, and whether each is non-null (see Cells).
func (t *Table) Texts(name string, rows []int) ([]string, []bool, error) {
	c, err := t.Cells(name, rows)
	if err != nil {
		return nil, nil, err
	}
	vals := make([]string, len(rows))
	for i := range vals {
		vals[i], _ = c.Text(i)
	}
	return vals, c.Valid, nil
}

// TextsOf is Texts for several columns at once, read on all cores: cells[i] and valid[i]
// are column names[i]'s.
func (t *Table) TextsOf(names []string, rows []int) (cells [][]string, valid [][]bool, err error) {
	cells, valid = make([][]string, len(names)), make([][]bool, len(names))
	errs := make([]error, len(names))
	forEach(len(names), func(i int) { cells[i], valid[i], errs[i] = t.Texts(names[i], rows) })
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return cells, valid, nil
}

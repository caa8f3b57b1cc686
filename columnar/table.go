// Package columnar is the in-memory query engine: Arrow tables loaded from the Parquet
// snapshots (memory-mapped), dimensions as dictionary codes, filters that produce selection
// vectors, and typed group-by kernels for sum, count, count distinct, min, max and avg with
// SQL null semantics. It knows nothing of HTTP or of capabilities' wire formats.
package columnar

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
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

// Column is one loaded column.
type Column struct {
	Name  string
	Kind  Kind
	Codes []int32
	// Values is the sorted dictionary of a Dict column, as text (integers in decimal).
	Values []string
	Floats *array.Float64
	Ints   *array.Int64
	Strs   *array.String
	Bools  *array.Boolean
	index  map[string]int32
}

// Table is a loaded snapshot fact table.
type Table struct {
	Rows int
	cols map[string]*Column
}

// Col returns the named column, or nil.
func (t *Table) Col(name string) *Column { return t.cols[name] }

// Load reads the Parquet file at path, memory-mapped, into a Table holding the columns of
// specs.
func Load(path string, specs []Spec) (*Table, error) {
	rdr, err := file.OpenParquetFile(path, true)
	if err != nil {
		return nil, fmt.Errorf("columnar: open %s: %w", path, err)
	}
	defer rdr.Close()
	sch := rdr.MetaData().Schema
	props := pqarrow.ArrowReadProperties{Parallel: true, BatchSize: 1 << 16}
	var indices []int
	for _, s := range specs {
		i := sch.ColumnIndexByName(s.Name)
		if i < 0 {
			return nil, fmt.Errorf("columnar: %s has no column %q", path, s.Name)
		}
		indices = append(indices, i)
		if s.Dict {
			props.SetReadDict(i, true)
		}
	}
	fr, err := pqarrow.NewFileReader(rdr, props, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("columnar: %s: %w", path, err)
	}
	groups := make([]int, rdr.NumRowGroups())
	for i := range groups {
		groups[i] = i
	}
	tbl, err := fr.ReadRowGroups(context.Background(), indices, groups)
	if err != nil {
		return nil, fmt.Errorf("columnar: read %s: %w", path, err)
	}
	defer tbl.Release()
	t := &Table{Rows: int(tbl.NumRows()), cols: map[string]*Column{}}
	for i, s := range specs {
		col, err := fromChunked(s, tbl.Column(i).Data(), t.Rows)
		if err != nil {
			return nil, fmt.Errorf("columnar: %s column %s: %w", path, s.Name, err)
		}
		t.cols[s.Name] = col
	}
	return t, nil
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

// dictColumn builds one sorted dictionary over all chunks and the codes into it.
func dictColumn(c *Column, ch *arrow.Chunked, n int) (*Column, error) {
	c.Kind = Dict
	c.Codes = make([]int32, 0, n)
	index := map[string]int32{}
	numeric := false
	var raw []string
	add := func(v string) int32 {
		if code, ok := index[v]; ok {
			return code
		}
		code := int32(len(raw))
		index[v] = code
		raw = append(raw, v)
		return code
	}
	for _, chunk := range ch.Chunks() {
		switch a := chunk.(type) {
		case *array.Dictionary:
			dict, ok := a.Dictionary().(*array.String)
			if !ok {
				return nil, fmt.Errorf("dictionary of %s", a.Dictionary().DataType())
			}
			local := make([]int32, dict.Len())
			for i := range local {
				local[i] = add(dict.Value(i))
			}
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					c.Codes = append(c.Codes, -1)
				} else {
					c.Codes = append(c.Codes, local[a.GetValueIndex(i)])
				}
			}
		case *array.String:
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					c.Codes = append(c.Codes, -1)
				} else {
					c.Codes = append(c.Codes, add(a.Value(i)))
				}
			}
		case *array.Int64:
			numeric = true
			vals := a.Int64Values()
			for i := range vals {
				if a.IsNull(i) {
					c.Codes = append(c.Codes, -1)
				} else {
					c.Codes = append(c.Codes, add(strconv.FormatInt(vals[i], 10)))
				}
			}
		case *array.Boolean:
			for i := 0; i < a.Len(); i++ {
				if a.IsNull(i) {
					c.Codes = append(c.Codes, -1)
				} else {
					c.Codes = append(c.Codes, add(strconv.FormatBool(a.Value(i))))
				}
			}
		default:
			return nil, fmt.Errorf("cannot dictionary-encode %s", chunk.DataType())
		}
	}
	// Sort the dictionary (numerically for integers) and remap the codes.
	order := make([]int32, len(raw))
	for i := range order {
		order[i] = int32(i)
	}
	less := func(a, b string) bool { return a < b }
	if numeric {
		less = func(a, b string) bool {
			x, _ := strconv.ParseInt(a, 10, 64)
			y, _ := strconv.ParseInt(b, 10, 64)
			return x < y
		}
	}
	sort.Slice(order, func(i, j int) bool { return less(raw[order[i]], raw[order[j]]) })
	remap := make([]int32, len(raw))
	c.Values = make([]string, len(raw))
	c.index = make(map[string]int32, len(raw))
	for newCode, old := range order {
		remap[old] = int32(newCode)
		c.Values[newCode] = raw[old]
		c.index[raw[old]] = int32(newCode)
	}
	parallelFor(len(c.Codes), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if c.Codes[i] >= 0 {
				c.Codes[i] = remap[c.Codes[i]]
			}
		}
	})
	return c, nil
}

// Lookup returns the code of value v in a Dict column (-1 when absent).
func (c *Column) Lookup(v string) int32 {
	if code, ok := c.index[v]; ok {
		return code
	}
	return -1
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

// mustCol returns a loaded column; callers name columns of the table's specs.
func (t *Table) mustCol(name string) *Column {
	c := t.cols[name]
	if c == nil {
		panic("columnar: no column " + name)
	}
	return c
}

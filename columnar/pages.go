package columnar

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A column that is not decoded into memory is read for records a data page at a time: the
// page holding a row is found through the file's offset index, decoded up to the last row
// asked for on it (its dictionary too, when it has one) and kept in a cache shared by every
// table, within a byte budget, so reading records costs the pages they lie on, not the
// column, and the first records of a snapshot cost the first rows of its pages. A file
// without an offset index is read as one page per column chunk.

// DefaultPageCacheBytes bounds the decoded pages kept for record reads.
const DefaultPageCacheBytes = 64 << 20

// pageCache keeps decoded pages by table, row group, column and page. Two generations
// approximate least-recently-used: a page found in the older one moves to the current one,
// and when the current one is full the older one is dropped.
type pageCache struct {
	mu       sync.Mutex
	max      int // bytes per generation; 0 keeps nothing
	size     int
	cur, old map[pageKey]*page
}

type pageKey struct {
	table          uint64
	group, col, pg int32
}

var pages atomic.Pointer[pageCache]

func init() { SetPageCacheBytes(DefaultPageCacheBytes) }

// SetPageCacheBytes sets the budget of the decoded pages kept for record reads (each of the
// cache's two generations holds at most half of it); 0 keeps none, so every read decodes
// its pages again.
func SetPageCacheBytes(n int) {
	pages.Store(&pageCache{max: n / 2, cur: map[pageKey]*page{}, old: map[pageKey]*page{}})
}

func (c *pageCache) get(k pageKey) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.cur[k]; p != nil {
		return p
	}
	if p := c.old[k]; p != nil {
		c.add(k, p)
		return p
	}
	return nil
}

// put keeps p under k, unless a page of as many rows or more is kept there.
func (c *pageCache) put(k pageKey, p *page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur[k]
	if old != nil && old.n >= p.n {
		return
	}
	if old != nil {
		delete(c.cur, k)
		c.size -= old.bytes
	}
	c.add(k, p)
}

func (c *pageCache) add(k pageKey, p *page) {
	if p.bytes > c.max {
		return
	}
	if c.size+p.bytes > c.max {
		c.old, c.cur, c.size = c.cur, map[pageKey]*page{}, 0
	}
	c.cur[k] = p
	c.size += p.bytes
}

// page is one decoded data page, or its first rows: the values of rows [first, first+n) of a
// row group, one slice set by the column's physical type, and which rows are null.
type page struct {
	first, n int
	null     []bool // nil: no row is null
	strs     []string
	floats   []float64
	ints     []int64
	bools    []bool
	bytes    int
}

// set sets cell i of out to row r of the row group (first ≤ r < first+n).
func (p *page) set(r int, out *Cells, i int) {
	k := r - p.first
	if p.null != nil && p.null[k] {
		return
	}
	out.Valid[i] = true
	switch {
	case p.strs != nil:
		out.Strs = setAt(out.Strs, len(out.Valid), i, p.strs[k])
	case p.floats != nil:
		out.Floats = setAt(out.Floats, len(out.Valid), i, p.floats[k])
	case p.ints != nil:
		out.Ints = setAt(out.Ints, len(out.Valid), i, p.ints[k])
	case p.bools != nil:
		out.Bools = setAt(out.Bools, len(out.Valid), i, p.bools[k])
	}
}

// setAt sets element i of dst, made of n elements when nil, to v.
func setAt[T any](dst []T, n, i int, v T) []T {
	if dst == nil {
		dst = make([]T, n)
	}
	dst[i] = v
	return dst
}

// pageStarts returns the first row (within row group g) of each data page of leaf column
// col, read once from the offset index of the file open returns: {0} when it has none.
func (t *Table) pageStarts(open func() (*openFile, error), g, col int) ([]int, error) {
	key := [2]int{g, col}
	t.startsMu.Lock()
	defer t.startsMu.Unlock()
	if s, ok := t.starts[key]; ok {
		return s, nil
	}
	f, err := open()
	if err != nil {
		return nil, err
	}
	cells, err := f.cells()
	if err != nil {
		return nil, err
	}
	starts := []int{0}
	if rg, err := cells.GetPageIndexReader().RowGroup(g); err == nil && rg != nil {
		if oi, err := rg.GetOffsetIndex(col); err == nil && oi != nil {
			if locs := oi.GetPageLocations(); len(locs) > 0 {
				starts = make([]int, len(locs))
				for i, l := range locs {
					starts[i] = int(l.FirstRowIndex)
				}
			}
		}
	}
	if t.starts == nil {
		t.starts = map[[2]int][]int{}
	}
	t.starts[key] = starts
	return starts, nil
}

// readCells reads the cells of leaf column col at rows (ascending, all in row group g, whose
// first row is start) into out from cell at on, a page at a time: from the page cache, or
// from the file open returns (opened on the first page not in the cache).
func (t *Table) readCells(open func() (*openFile, error), g, col, start int, rows []int, out *Cells, at int) error {
	groupRows := t.groupRows[g]
	starts, err := t.pageStarts(open, g, col)
	if err != nil {
		return err
	}
	cache := pages.Load()
	var cr file.ColumnChunkReader
	var p *page
	for i, r := range rows {
		local := r - start
		if i > 0 && r < rows[i-1] {
			return fmt.Errorf("rows not ascending at %d", r)
		}
		if p == nil || local >= p.first+p.n {
			pi := sort.SearchInts(starts, local+1) - 1
			first, end := starts[pi], groupRows
			if pi+1 < len(starts) {
				end = starts[pi+1]
			}
			// The page's rows asked for: it is decoded up to the last of them only (the first
			// records of a snapshot not read before cost a page's first rows, not the page).
			last := local
			for _, r2 := range rows[i+1:] {
				if r2-start >= end {
					break
				}
				last = r2 - start
			}
			key := pageKey{table: t.id, group: int32(g), col: int32(col), pg: int32(pi)}
			if p = cache.get(key); p == nil || p.first+p.n <= last {
				if cr == nil {
					f, err := open()
					if err != nil {
						return err
					}
					cells, err := f.cells()
					if err != nil {
						return err
					}
					if cr, err = cells.RowGroup(g).Column(col); err != nil {
						return err
					}
				}
				var err error
				if p, err = decodePage(cr, first, last+1-first); err != nil {
					return err
				}
				cache.put(key, p)
			}
		}
		p.set(local, out, at+i)
	}
	return nil
}

// decodePage reads rows [first, first+n) of a column chunk: it seeks to the page holding
// first (through the offset index when the file has one) and decodes n values.
func decodePage(cr file.ColumnChunkReader, first, n int) (*page, error) {
	if err := cr.SeekToRow(int64(first)); err != nil {
		return nil, err
	}
	p := &page{first: first, n: n}
	def := make([]int16, n)
	var vals int
	var err error
	switch cr := cr.(type) {
	case *file.ByteArrayColumnChunkReader:
		// Each batch is copied out at once: its values point into the reader's page buffer.
		buf := make([]parquet.ByteArray, n)
		lens := make([]int, 0, n)
		var arena []byte
		for rows := 0; rows < n; {
			levels, got, err := cr.ReadBatch(int64(n-rows), buf, def[rows:], nil)
			if err != nil {
				return nil, err
			}
			if levels == 0 {
				return nil, fmt.Errorf("page ends after %d of %d rows", rows, n)
			}
			for _, v := range buf[:got] {
				arena = append(arena, v...)
				lens = append(lens, len(v))
			}
			rows += int(levels)
		}
		vals = len(lens)
		all := string(arena)
		p.strs = make([]string, n)
		off, v := 0, 0
		for i := range p.strs {
			if vals == n || def[i] > 0 {
				p.strs[i] = all[off : off+lens[v]]
				off += lens[v]
				v++
			}
		}
		p.bytes = len(all) + 16*n
	case *file.Float64ColumnChunkReader:
		p.floats, vals, err = readValues(cr.ReadBatch, n, def)
		p.bytes = 8 * n
	case *file.Int64ColumnChunkReader:
		p.ints, vals, err = readValues(cr.ReadBatch, n, def)
		p.bytes = 8 * n
	case *file.BooleanColumnChunkReader:
		p.bools, vals, err = readValues(cr.ReadBatch, n, def)
		p.bytes = n
	default:
		return nil, fmt.Errorf("unsupported physical type %s", cr.Type())
	}
	if err != nil {
		return nil, err
	}
	if vals < n {
		p.null = make([]bool, n)
		for i, d := range def {
			p.null[i] = d == 0
		}
		p.bytes += n
	}
	p.bytes += 128
	return p, nil
}

// readValues reads n rows of a flat optional column of fixed-size values: each row's value
// at its place (arbitrary where null), how many are non-null, their definition levels in def.
func readValues[T any](read func(int64, []T, []int16, []int16) (int64, int, error), n int, def []int16) ([]T, int, error) {
	buf := make([]T, n)
	vals, err := readAll(read, n, buf, def)
	if err != nil {
		return nil, 0, err
	}
	return spreadValues(buf, vals, def, n), vals, nil
}

// readAll reads n rows of a flat optional column: their definition levels into def and the
// non-null values, packed, into buf; it returns how many values it read.
func readAll[T any](read func(int64, []T, []int16, []int16) (int64, int, error), n int, buf []T, def []int16) (int, error) {
	rows, vals := 0, 0
	for rows < n {
		levels, got, err := read(int64(n-rows), buf[vals:], def[rows:], nil)
		if err != nil {
			return 0, err
		}
		if levels == 0 {
			return 0, fmt.Errorf("page ends after %d of %d rows", rows, n)
		}
		rows += int(levels)
		vals += got
	}
	return vals, nil
}

// spreadValues moves the packed non-null values of buf to their rows (in place).
func spreadValues[T any](buf []T, vals int, def []int16, n int) []T {
	if vals == n {
		return buf
	}
	v := vals - 1
	for i := n - 1; i >= 0 && v >= 0; i-- {
		if def[i] > 0 {
			buf[i] = buf[v]
			v--
		}
	}
	return buf
}

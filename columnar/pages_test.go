package columnar

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// TestCellsByPage: a fact table written by snapshots.WriteFacts has several data pages per
// column with a page index, its near-unique text column is written without a dictionary and
// its repeated one with one, and Cells reads any rows of undecoded columns (one, a run
// across page boundaries, a random spread, the last) exactly as they were written, with the
// page cache on and off, the same twice.
func TestCellsByPage(t *testing.T) {
	fields := []capability.Field{
		{Name: "key", Type: capability.String},
		{Name: "kind", Type: capability.String},
		{Name: "x", Type: capability.Number},
		{Name: "n", Type: capability.Integer},
		{Name: "b", Type: capability.Boolean},
	}
	const n = 60_000
	rng := rand.New(rand.NewPCG(7, 8))
	rows := make([]snapshots.Row, n)
	for i := range rows {
		r := snapshots.Row{fmt.Sprintf("record-%07d-%x", i, rng.Uint32()), nil, nil, int64(i * 3), i%3 == 0}
		if rng.IntN(10) > 0 {
			r[1] = []string{"alpha", "beta", "gamma"}[rng.IntN(3)]
		}
		if rng.IntN(7) > 0 {
			r[2] = rng.NormFloat64() * 1e3
		}
		if i%11 == 0 {
			r[3] = nil
		}
		rows[i] = r
	}
	path := filepath.Join(t.TempDir(), "facts.parquet")
	if err := snapshots.WriteFacts(path, fields, rows); err != nil {
		t.Fatal(err)
	}
	specs := make([]Spec, len(fields))
	for i, f := range fields {
		specs[i] = Spec{Name: f.Name}
	}
	tb, err := Open(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	file, err := tb.file.use()
	if err != nil {
		t.Fatal(err)
	}
	defer tb.file.done()
	open := func() (*openFile, error) { return file, nil }
	md := file.rdr.MetaData()
	for _, f := range fields {
		col := md.Schema.ColumnIndexByName(f.Name)
		cc, err := md.RowGroup(0).ColumnChunk(col)
		if err != nil {
			t.Fatal(err)
		}
		if want := f.Name == "kind"; cc.HasDictionaryPage() != want {
			t.Errorf("column %s: dictionary %v, want %v", f.Name, cc.HasDictionaryPage(), want)
		}
		if starts, err := tb.pageStarts(open, 0, col); err != nil || len(starts) < 2 {
			t.Errorf("column %s: %d pages in the offset index (%v), want several", f.Name, len(starts), err)
		}
	}
	// A page's first row read alone decodes its first rows only; its last row read after
	// decodes the rest of it: both read what was written.
	for fi, f := range fields {
		starts, err := tb.pageStarts(open, 0, md.Schema.ColumnIndexByName(f.Name))
		if err != nil || len(starts) < 2 {
			t.Fatalf("%s: pages %v, %v", f.Name, starts, err)
		}
		for _, picked := range [][]int{{0}, {0, starts[1] - 1}, {starts[1] - 1}} {
			c, err := tb.Cells(f.Name, picked)
			if err != nil {
				t.Fatal(err)
			}
			for k, r := range picked {
				if got, want := cellValue(c, k), rows[r][fi]; got != want {
					t.Errorf("%s row %d = %v, written %v", f.Name, r, got, want)
				}
			}
		}
	}
	picks := map[string][]int{"one": {12_345}, "last": {n - 1}, "none": nil}
	var run, spread []int
	for r := 4_000; r < 9_000; r++ {
		run = append(run, r)
	}
	for r := 0; r < n; r += 1 + rng.IntN(900) {
		spread = append(spread, r)
	}
	picks["run"], picks["spread"] = run, spread
	defer SetPageCacheBytes(DefaultPageCacheBytes)
	for _, budget := range []int{DefaultPageCacheBytes, 0} {
		SetPageCacheBytes(budget)
		for name, picked := range picks {
			for range 2 {
				for fi, f := range fields {
					c, err := tb.Cells(f.Name, picked)
					if err != nil {
						t.Fatal(err)
					}
					for k, r := range picked {
						want := rows[r][fi]
						if got := cellValue(c, k); got != want {
							t.Fatalf("cache %d, %s rows: %s row %d = %v, written %v", budget, name, f.Name, r, cellValue(c, k), want)
						}
					}
				}
			}
		}
	}
	for _, f := range fields {
		if tb.Loaded(f.Name) {
			t.Errorf("%s decoded by Cells", f.Name)
		}
	}
}

// cellValue is cell k of c as the row held it (nil when null).
func cellValue(c *Cells, k int) any {
	if !c.Valid[k] {
		return nil
	}
	switch {
	case c.Strs != nil:
		return c.Strs[k]
	case c.Floats != nil:
		return c.Floats[k]
	case c.Ints != nil:
		return c.Ints[k]
	case c.Bools != nil:
		return c.Bools[k]
	}
	return nil
}

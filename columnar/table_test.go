package columnar

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// lazyRow is a row of the multi-row-group test file; nil pointers are nulls.
type lazyRow struct {
	S *string  `parquet:"s,optional,dict"`
	F *float64 `parquet:"f,optional"`
	I *int64   `parquet:"i,optional"`
	B *bool    `parquet:"b,optional"`
}

// writeLazyFile writes n random rows in row groups of 1000 rows.
func writeLazyFile(t *testing.T, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	rows := make([]lazyRow, n)
	for i := range rows {
		if rng.IntN(5) > 0 {
			s := fmt.Sprintf("v%03d", rng.IntN(300))
			rows[i].S = &s
		}
		if rng.IntN(5) > 0 {
			f := rng.NormFloat64() * 1e3
			rows[i].F = &f
		}
		if rng.IntN(5) > 0 {
			x := rng.Int64N(1000) - 500
			rows[i].I = &x
		}
		if rng.IntN(5) > 0 {
			b := rng.IntN(2) == 0
			rows[i].B = &b
		}
	}
	path := filepath.Join(t.TempDir(), "facts.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[lazyRow](f, parquet.MaxRowsPerRowGroup(1000), parquet.PageBufferSize(512))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

var lazySpecs = []Spec{{Name: "s", Dict: true}, {Name: "f"}, {Name: "i", Dict: true}, {Name: "b", Dict: true}, {Name: "i2"}}

// TestOpenBytes: a table opened from a file held in memory reads, lazily and decoded,
// exactly what the same file opened from disk reads, with the file gone from disk.
func TestOpenBytes(t *testing.T) {
	path := writeLazyFile(t, 2345)
	specs := lazySpecs[:4]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := Load(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBytes("mem", data, lazySpecs); err == nil {
		t.Fatal("OpenBytes accepted a spec naming a column the file does not have")
	}
	if _, err := OpenBytes("mem", data[:len(data)/2], specs); err == nil {
		t.Fatal("OpenBytes accepted half a file")
	}
	mem, err := OpenBytes("mem", data, specs)
	if err != nil {
		t.Fatal(err)
	}
	if mem.Rows != onDisk.Rows {
		t.Fatalf("Rows = %d, from disk %d", mem.Rows, onDisk.Rows)
	}
	rows := make([]int, mem.Rows)
	for i := range rows {
		rows[i] = i
	}
	for _, s := range specs {
		got, gotOK, err := mem.Texts(s.Name, rows) // read page by page from memory
		if err != nil {
			t.Fatalf("Texts(%s): %v", s.Name, err)
		}
		for r := range rows {
			if want, wantOK := onDisk.Col(s.Name).Text(r); got[r] != want || gotOK[r] != wantOK {
				t.Fatalf("Texts(%s) row %d = %q,%v; from disk %q,%v", s.Name, r, got[r], gotOK[r], want, wantOK)
			}
		}
	}
	if err := mem.Need("s", "f", "i", "b"); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		for r := range rows {
			got, gotOK := mem.Col(s.Name).Text(r)
			if want, wantOK := onDisk.Col(s.Name).Text(r); got != want || gotOK != wantOK {
				t.Fatalf("column %s row %d = %q,%v; from disk %q,%v", s.Name, r, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestLazyColumns: Open decodes nothing; Texts reads cells of undecoded columns from the
// file across row groups exactly as the decoded column gives them; NullN comes from the
// statistics without decoding; concurrent Need calls decode each column once.
func TestLazyColumns(t *testing.T) {
	path := writeLazyFile(t, 5321)
	specs := lazySpecs[:4]
	if _, err := Open(path, lazySpecs); err == nil {
		t.Fatal("Open accepted a spec naming a column the file does not have")
	}
	eager, err := Load(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := Open(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	if lazy.Rows != 5321 || len(lazy.groupRows) != 6 {
		t.Fatalf("Rows = %d in %d row groups", lazy.Rows, len(lazy.groupRows))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pick := range []func() []int{
		func() []int { return []int{0, 1, 2, 999, 1000, 1001, 5320} },
		func() []int { return nil },
		func() []int {
			var rows []int
			for r := 0; r < 5321; r++ {
				if rng.IntN(9) == 0 {
					rows = append(rows, r)
				}
			}
			return rows
		},
	} {
		rows := pick()
		for _, s := range specs {
			got, gotOK, err := lazy.Texts(s.Name, rows)
			if err != nil {
				t.Fatalf("Texts(%s): %v", s.Name, err)
			}
			for k, r := range rows {
				want, wantOK := eager.Col(s.Name).Text(r)
				if got[k] != want || gotOK[k] != wantOK {
					t.Fatalf("Texts(%s) row %d = %q,%v; decoded column gives %q,%v", s.Name, r, got[k], gotOK[k], want, wantOK)
				}
			}
		}
	}
	rows := []int{3, 998, 1000, 4000, 5320}
	names := []string{"b", "s", "f", "i"}
	cells, valid, err := lazy.TextsOf(names, rows)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		want, wantOK, _ := lazy.Texts(name, rows)
		if !slices.Equal(cells[i], want) || !slices.Equal(valid[i], wantOK) {
			t.Errorf("TextsOf column %s = %q %v, Texts gives %q %v", name, cells[i], valid[i], want, wantOK)
		}
	}
	if _, _, err := lazy.TextsOf([]string{"s", "nope"}, rows); err == nil {
		t.Error("TextsOf accepted an unknown column")
	}
	for _, s := range specs {
		n, err := lazy.NullN(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if want := eager.Col(s.Name).NullN(); n != want || n == 0 {
			t.Errorf("NullN(%s) = %d, decoded column has %d", s.Name, n, want)
		}
		if lazy.Loaded(s.Name) {
			t.Errorf("%s decoded by Texts or NullN", s.Name)
		}
	}
	if _, _, err := lazy.Texts("s", []int{5, 3}); err == nil {
		t.Error("Texts accepted rows out of order")
	}
	if _, _, err := lazy.Texts("s", []int{5321}); err == nil {
		t.Error("Texts accepted a row out of range")
	}
	if _, err := lazy.Column("nope"); err == nil || lazy.Col("nope") != nil || lazy.Has("nope") {
		t.Error("an unknown column was found")
	}
	var wg sync.WaitGroup
	cols := make([]*Column, 8)
	for i := range cols {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := lazy.Need("s", "f", "i", "b"); err != nil {
				t.Error(err)
			}
			cols[i] = lazy.Col("s")
		}()
	}
	wg.Wait()
	for _, c := range cols {
		if c != cols[0] {
			t.Fatal("concurrent Need decoded a column twice")
		}
	}
	for _, s := range specs {
		if !lazy.Loaded(s.Name) {
			t.Errorf("%s not decoded after Need", s.Name)
		}
		a, b := eager.Col(s.Name), lazy.Col(s.Name)
		if !slices.Equal(a.Values, b.Values) || !slices.Equal(a.Codes, b.Codes) {
			t.Errorf("%s decoded lazily differs from Load", s.Name)
		}
	}
	if err := lazy.Need("nope"); err == nil {
		t.Error("Need accepted an unknown column")
	}
}

package columnar

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// withBudget sets the memory budget for the test and restores it after.
func withBudget(t *testing.T, n int64) {
	t.Helper()
	prev := Memory().Limit
	SetMemoryBudget(n)
	t.Cleanup(func() { SetMemoryBudget(prev) })
}

// TestBudgetDropsLeastRecentlyUsed: past the budget the column used longest ago is dropped
// first; one still held by a caller lives on and is taken back, the same object, when asked
// for again; one dropped and no longer held is decoded again to the same values; a column
// in use again counts as recent.
func TestBudgetDropsLeastRecentlyUsed(t *testing.T) {
	path := writeLazyFile(t, 5321)
	specs := lazySpecs[:4]
	tb, err := Open(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	withBudget(t, 0)
	size := map[string]int64{}
	type decoded struct {
		codes  []int32
		values []string
		nulls  int
	}
	first := map[string]decoded{}
	for _, s := range specs {
		c := tb.Col(s.Name)
		size[s.Name] = c.bytes.Load()
		first[s.Name] = decoded{slices.Clone(c.Codes), slices.Clone(c.Values), c.NullN()}
	}
	fileBytes := tb.file.f.bytes
	SetMemoryBudget(1) // nothing is held: everything is dropped
	for _, s := range specs {
		if tb.Loaded(s.Name) {
			t.Fatalf("%s kept under a budget of one byte", s.Name)
		}
	}
	if tb.file.f != nil {
		t.Fatal("the file kept open under a budget of one byte")
	}
	// A table of its own, so that no column is taken back from tb's.
	tb, err = Open(path, specs)
	if err != nil {
		t.Fatal(err)
	}
	// Room for the file and s, f and i, not for b as well.
	limit := Memory().Used + fileBytes + size["s"] + size["f"] + size["i"] + size["b"]/2
	SetMemoryBudget(limit)
	held := tb.Col("s")
	for _, name := range []string{"f", "i"} { // one after the other: f is used before i
		if err := tb.Need(name); err != nil {
			t.Fatal(err)
		}
	}
	if !tb.Loaded("s") || !tb.Loaded("f") || !tb.Loaded("i") {
		t.Fatal("a column was dropped within the budget")
	}
	if err := tb.Need("s"); err != nil { // s is now used more recently than f and i
		t.Fatal(err)
	}
	tb.file.ent.use.Store(tick()) // and so is the file (as if a cell had been read)
	if err := tb.Need("b"); err != nil {
		t.Fatal(err)
	}
	if m := Memory(); m.Used > limit {
		t.Errorf("%d bytes used, over the budget of %d", m.Used, limit)
	}
	if tb.Loaded("f") || !tb.Loaded("s") || !tb.Loaded("b") {
		t.Errorf("after Need(b): s %v, f %v, b %v loaded; want f (used longest ago) dropped, s and b kept (limit %d, sizes %v, file %d, %+v)",
			tb.Loaded("s"), tb.Loaded("f"), tb.Loaded("b"), limit, size, fileBytes, Memory())
	}
	// What is held comes back as it is; the rest is decoded again as it was.
	SetMemoryBudget(1)
	if tb.Loaded("s") {
		t.Fatal("s kept under a budget of one byte")
	}
	if again := tb.Col("s"); again != held {
		t.Error("a column dropped while held was decoded again instead of taken back")
	}
	held = nil
	SetMemoryBudget(1)
	runtime.GC()
	runtime.GC()
	for _, s := range specs {
		c := tb.Col(s.Name)
		if want := first[s.Name]; !slices.Equal(c.Codes, want.codes) || !slices.Equal(c.Values, want.values) || c.NullN() != want.nulls {
			t.Errorf("%s decoded again differs from its first decoding", s.Name)
		}
	}
}

// TestBudgetAnswers: queries answered while every column is dropped as soon as another is
// decoded (a budget of one byte), from several goroutines at once, answer exactly as with
// no budget: filters, groups, every aggregation, percentiles, lineage, records.
func TestBudgetAnswers(t *testing.T) {
	fx := newFixture(t, genRows(4242, 70000))
	want := budgetDigest(t, fx.tbl)
	withBudget(t, 1)
	tbl, err := Open(fx.path, dictSpecs())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got[i] = budgetDigest(t, tbl)
			}
		}()
	}
	wg.Wait()
	for i, g := range got {
		for q := range want {
			if q >= len(g) || g[q] != want[q] {
				t.Errorf("goroutine %d, query %d: answered differently under the budget", i, q)
			}
		}
	}
	if m := Memory(); m.Evictions == 0 {
		t.Error("nothing was dropped under a budget of one byte")
	}
}

// budgetDigest answers a set of queries on tbl and renders each answer as text.
func budgetDigest(t *testing.T, tbl *Table) []string {
	t.Helper()
	ops := []Op{{Agg: AggCount}, {Agg: AggSum, Column: colCap, Unit: colUnit}, {Agg: AggAvg, Column: colCap},
		{Agg: AggCountDistinct, Column: colPlant}, {Agg: AggQuantile, Column: colCap, Percentile: 50},
		{Agg: AggQuantile, Column: colCap, Percentile: 90}, {Agg: AggMax, Column: colYear}}
	var out []string
	for _, keys := range [][]string{nil, {colRegion}, {colRegion, colYear}, {colH1, colH2}} {
		for _, preds := range [][]predSpec{nil, {values(colFuel, "gas", "solar")}} {
			var eng []Predicate
			for _, p := range preds {
				eng = append(eng, p.engine(tbl))
			}
			sel := tbl.Filter(eng)
			ans := tbl.Compute(sel, keys, ops, &LineageSpec{FileCol: colFile, SheetCol: colSheet, K: 3})
			var b strings.Builder
			fmt.Fprintf(&b, "%d groups %v\n", ans.Groups.N, ans.Groups.Codes)
			for i := range ops {
				fmt.Fprintf(&b, "%v %v\n", ans.Results[i], ans.Totals[i])
			}
			fmt.Fprintf(&b, "%v %v\n", ans.Lineage, ans.Total)
			rows := selRows(sel)
			if len(rows) > 50 {
				rows = rows[:50]
			}
			picked := make([]int, len(rows))
			for i, r := range rows {
				picked[i] = int(r)
			}
			cells, valid, err := tbl.TextsOf([]string{colPlant, colCap, colPeriod}, picked)
			if err != nil {
				t.Error(err)
			}
			fmt.Fprintf(&b, "%q %v", cells, valid)
			out = append(out, b.String())
		}
	}
	return out
}

// TestMemo: a memo is built once and kept; the budget drops it with the columns, least
// recently used first, and it is built again at its next use; an error is not kept.
func TestMemo(t *testing.T) {
	tb, err := Open(writeLazyFile(t, 1000), lazySpecs[:4])
	if err != nil {
		t.Fatal(err)
	}
	withBudget(t, 0)
	builds := 0
	build := func() (any, int64, error) { builds++; return fmt.Sprint("index ", builds), 1 << 20, nil }
	for range 3 {
		v, err := tb.Memo("index", build)
		if err != nil || v != "index 1" {
			t.Fatalf("Memo = %v, %v; want the first build", v, err)
		}
	}
	if _, err := tb.Memo("broken", func() (any, int64, error) { return nil, 0, fmt.Errorf("no") }); err == nil {
		t.Error("a failed build returned no error")
	}
	if v, err := tb.Memo("broken", func() (any, int64, error) { return "fixed", 1, nil }); err != nil || v != "fixed" {
		t.Errorf("a failed build was kept: %v, %v", v, err)
	}
	withBudget(t, 1<<20) // the memo alone fills it: the next column drops it
	if err := tb.Need("s"); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	if v, err := tb.Memo("index", build); err != nil || v != "index 2" {
		t.Errorf("after the budget dropped it, Memo = %v, %v; want a second build", v, err)
	}
}

// TestPin: a pinned table's columns are never dropped, so its file can be removed once they
// are decoded.
func TestPin(t *testing.T) {
	path := writeLazyFile(t, 1000)
	tb, err := Open(path, lazySpecs[:4])
	if err != nil {
		t.Fatal(err)
	}
	withBudget(t, 1)
	tb.Pin()
	if err := tb.Need("s", "f", "i", "b"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	SetMemoryBudget(1)
	for _, name := range []string{"s", "f", "i", "b"} {
		if !tb.Loaded(name) {
			t.Errorf("%s of a pinned table dropped", name)
		}
		if _, err := tb.Column(name); err != nil {
			t.Error(err)
		}
	}
}

// TestBudgetForgetsCollectedTables: a table nobody holds any more leaves the budget with
// its columns.
func TestBudgetForgetsCollectedTables(t *testing.T) {
	withBudget(t, 0)
	path := writeLazyFile(t, 5321)
	before := Memory().Used
	func() {
		tb, err := Open(path, lazySpecs[:4])
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Need("s", "f", "i", "b"); err != nil {
			t.Fatal(err)
		}
		if Memory().Used <= before {
			t.Fatal("decoded columns charged nothing")
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for Memory().Used > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if used := Memory().Used; used > before {
		t.Errorf("%d bytes still charged for a collected table (%d before it)", used, before)
	}
}

// TestDecodeGivesBackPages: decoding a column leaves the pages of the file it read out of
// the process's resident memory (they stay in the kernel's page cache).
func TestDecodeGivesBackPages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads RssFile from /proc/self/status")
	}
	const n = 3 << 20
	fields := []capability.Field{{Name: "x", Type: capability.Number}, {Name: "y", Type: capability.Number}}
	rows := make([]snapshots.Row, n)
	for i := range rows {
		// Values that do not compress: the file holds about 8 bytes a row and column.
		rows[i] = snapshots.Row{float64(i) * 1.000001, float64(n-i) / 7}
	}
	path := t.TempDir() + "/facts.parquet"
	if err := snapshots.WriteFacts(path, fields, rows); err != nil {
		t.Fatal(err)
	}
	rows = nil
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Open(path, []Spec{{Name: "x"}, {Name: "y"}})
	if err != nil {
		t.Fatal(err)
	}
	before := rssFile(t)
	if err := tb.Need("x", "y"); err != nil {
		t.Fatal(err)
	}
	grown := rssFile(t) - before
	if grown > st.Size()/4 {
		t.Errorf("decoding a %d-byte file left %d bytes of it resident", st.Size(), grown)
	}
}

// rssFile is the process's file-backed resident memory, in bytes.
func rssFile(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

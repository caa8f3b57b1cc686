package columnar

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/big"
	"math/rand"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// Columns of the test fact table, in storage order (the i* constants index a row).
const (
	colRegion = "region"
	colFuel   = "fuel"
	colYear   = "year"
	colUnit   = "unit"
	colCap    = "capacity"
	colActive = "active"
	colPeriod = "period"
	colPlant  = "plant"
	colH1     = "h1"
	colH2     = "h2"
	colH3     = "h3"
	colFile   = capability.ColSourceFile
	colSheet  = capability.ColSheet
)

const (
	iRegion = iota
	iFuel
	iYear
	iUnit
	iCap
	iActive
	iPeriod
	iPlant
	iH1
	iH2
	iH3
	iFile
	iSheet
)

var testFields = []capability.Field{
	iRegion: {Name: colRegion, Type: capability.String},
	iFuel:   {Name: colFuel, Type: capability.String},
	iYear:   {Name: colYear, Type: capability.Integer},
	iUnit:   {Name: colUnit, Type: capability.String},
	iCap:    {Name: colCap, Type: capability.Number},
	iActive: {Name: colActive, Type: capability.Boolean},
	iPeriod: {Name: colPeriod, Type: capability.Date},
	iPlant:  {Name: colPlant, Type: capability.String},
	iH1:     {Name: colH1, Type: capability.String},
	iH2:     {Name: colH2, Type: capability.String},
	iH3:     {Name: colH3, Type: capability.String},
	iFile:   {Name: colFile, Type: capability.String},
	iSheet:  {Name: colSheet, Type: capability.String},
}

// fieldPos maps a column name to its index in a row.
var fieldPos = func() map[string]int {
	m := map[string]int{}
	for i, f := range testFields {
		m[f.Name] = i
	}
	return m
}()

// dictSpecs loads every column but the measure as dictionary codes.
func dictSpecs() []Spec {
	var specs []Spec
	for _, f := range testFields {
		specs = append(specs, Spec{Name: f.Name, Dict: f.Name != colCap})
	}
	return specs
}

// plainSpecs loads some columns without dictionary encoding, as Str, Int, Float and Bool.
func plainSpecs() []Spec {
	return []Spec{{Name: colRegion}, {Name: colYear}, {Name: colCap}, {Name: colActive}, {Name: colPlant}}
}

// Fuels with special measure/unit patterns.
const (
	fuelAllNull   = "zz_allnull"   // capacity is always null
	fuelMixed     = "zz_mixed"     // unit varies among non-null inputs
	fuelMixedNull = "zz_mixednull" // unit varies, but only where capacity is null
)

// genRows builds n random fact rows from seed. The data has nulls in every column but unit,
// duplicate measure values, huge values that cancel, an integer column whose text order
// differs from its numeric order, and three ~200-value columns (h1..h3) whose combined
// cardinality exceeds denseLimit once n >= 200.
func genRows(seed int64, n int) []snapshots.Row {
	rng := rand.New(rand.NewSource(seed))
	regions := []string{"north", "south", "east", "west", "central"}
	fuels := []string{"coal", "gas", "hydro", "nuclear", "oil", "solar", "wind", "biomass", fuelAllNull, fuelMixed, fuelMixedNull}
	kW := map[string]bool{"solar": true, "wind": true, "biomass": true}
	years := []int64{-5, 0, 1, 2, 9, 10, 11, 99, 100, 1999, 2020, 2021}
	dups := []float64{0, 1.5, -2.25, 100, 1e-3}
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	plants := max(1, n/3)
	null := func(p float64) bool { return rng.Float64() < p }
	h := func(i int) any {
		if null(0.01) {
			return nil
		}
		if i < 200 {
			return fmt.Sprintf("h%03d", i)
		}
		return fmt.Sprintf("h%03d", rng.Intn(200))
	}
	rows := make([]snapshots.Row, n)
	for i := range rows {
		r := make(snapshots.Row, len(testFields))
		fuel := fuels[rng.Intn(len(fuels))]
		r[iFuel] = fuel
		if !null(0.05) {
			r[iRegion] = regions[rng.Intn(len(regions))]
		}
		if !null(0.05) {
			r[iYear] = years[rng.Intn(len(years))]
		}
		switch p := rng.Float64(); {
		case fuel == fuelAllNull || p < 0.2:
		case p < 0.3:
			r[iCap] = dups[rng.Intn(len(dups))]
		case p < 0.32:
			r[iCap] = float64(rng.Int63n(2e12)-1e12) + 0.5
		default:
			r[iCap] = math.Round((rng.Float64()*2000-1000)*100) / 100
		}
		switch {
		case fuel == fuelMixed:
			r[iUnit] = []string{"MW", "kW"}[rng.Intn(2)]
		case fuel == fuelMixedNull && r[iCap] == nil:
			r[iUnit] = "kW"
		case kW[fuel]:
			r[iUnit] = "kW"
		default:
			r[iUnit] = "MW"
		}
		if !null(0.1) {
			r[iActive] = rng.Intn(2) == 1
		}
		if !null(0.05) {
			r[iPeriod] = base.AddDate(0, 0, rng.Intn(731)).Format(time.DateOnly)
		}
		if !null(0.03) {
			r[iPlant] = fmt.Sprintf("p%05d", rng.Intn(plants))
		}
		r[iH1], r[iH2], r[iH3] = h(i), h(i), h(i)
		if !null(0.01) {
			r[iFile] = fmt.Sprintf("file_%d.xlsx", rng.Intn(4))
		}
		if !null(0.02) {
			r[iSheet] = fmt.Sprintf("s%d", rng.Intn(5))
		}
		rows[i] = r
	}
	return rows
}

// textOf is the reference text of a row value and whether it is non-null.
func textOf(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	panic(fmt.Sprintf("unexpected value %v (%T)", v, v))
}

// fixture is a fact table written to Parquet and loaded, with its reference dictionaries.
type fixture struct {
	n     int
	rows  []snapshots.Row
	path  string
	tbl   *Table
	dict  map[string][]string // reference dictionary of each Dict column, in value order
	codes map[string][]int32  // reference codes (-1 null) of each Dict column
}

func newFixture(tb testing.TB, rows []snapshots.Row) *fixture {
	tb.Helper()
	fx := &fixture{n: len(rows), rows: rows, path: filepath.Join(tb.TempDir(), "facts.parquet"),
		dict: map[string][]string{}, codes: map[string][]int32{}}
	if err := snapshots.WriteFacts(fx.path, testFields, rows); err != nil {
		tb.Fatalf("WriteFacts: %v", err)
	}
	tbl, err := Load(fx.path, dictSpecs())
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	fx.tbl = tbl
	for _, s := range dictSpecs() {
		if s.Dict {
			fx.dict[s.Name], fx.codes[s.Name] = fx.refDictionary(fieldPos[s.Name])
		}
	}
	return fx
}

// refDictionary sorts the distinct non-null values of column c (integers numerically) and
// codes each row by its value's position.
func (fx *fixture) refDictionary(c int) ([]string, []int32) {
	var values []string
	if testFields[c].Type == capability.Integer {
		seen := map[int64]bool{}
		var ints []int64
		for _, r := range fx.rows {
			if x, ok := r[c].(int64); ok && !seen[x] {
				seen[x] = true
				ints = append(ints, x)
			}
		}
		slices.Sort(ints)
		for _, x := range ints {
			values = append(values, strconv.FormatInt(x, 10))
		}
	} else {
		seen := map[string]bool{}
		for _, r := range fx.rows {
			if s, ok := textOf(r[c]); ok && !seen[s] {
				seen[s] = true
				values = append(values, s)
			}
		}
		sort.Strings(values)
	}
	index := map[string]int32{}
	for i, v := range values {
		index[v] = int32(i)
	}
	codes := make([]int32, len(fx.rows))
	for i, r := range fx.rows {
		codes[i] = -1
		if s, ok := textOf(r[c]); ok {
			codes[i] = index[s]
		}
	}
	return values, codes
}

// predSpec is a filter stated on values: a value list or a text range (empty bound open).
type predSpec struct {
	col     string
	values  []string
	isRange bool
	lo, hi  string
}

func (p predSpec) String() string {
	if p.isRange {
		return fmt.Sprintf("%s in [%q,%q]", p.col, p.lo, p.hi)
	}
	return fmt.Sprintf("%s in %q", p.col, p.values)
}

func (p predSpec) engine(t *Table) Predicate {
	c := t.Col(p.col)
	if p.isRange {
		return Predicate{Column: p.col, Allow: c.AllowRange(p.lo, p.hi)}
	}
	return Predicate{Column: p.col, Allow: c.AllowValues(p.values)}
}

func values(col string, v ...string) predSpec { return predSpec{col: col, values: v} }

func textRange(col, lo, hi string) predSpec {
	return predSpec{col: col, isRange: true, lo: lo, hi: hi}
}

// refSelect returns the ascending rows that satisfy every predicate.
func (fx *fixture) refSelect(preds []predSpec) []int32 {
	out := []int32{}
	for r, row := range fx.rows {
		keep := true
		for _, p := range preds {
			s, ok := textOf(row[fieldPos[p.col]])
			switch {
			case !ok:
				keep = false
			case p.isRange:
				keep = (p.lo == "" || s >= p.lo) && (p.hi == "" || s <= p.hi)
			default:
				keep = slices.Contains(p.values, s)
			}
			if !keep {
				break
			}
		}
		if keep {
			out = append(out, int32(r))
		}
	}
	return out
}

// refGroup numbers the groups of the selected rows by key: key tuples compared key by key
// (first most significant), each by dictionary position with null last. It returns the
// group of each selected row and each group's key codes. Without keys there is exactly one
// group, even for an empty selection (SQL aggregates without GROUP BY return one row).
func (fx *fixture) refGroup(sel []int32, keys []string) ([]uint32, [][]int32) {
	gid := make([]uint32, len(sel))
	if len(keys) == 0 {
		return gid, [][]int32{{}}
	}
	type key [4]int32
	if len(keys) > len(key{}) {
		panic("too many keys")
	}
	found := map[key]int{}
	var uniq []key
	for i, r := range sel {
		var k key
		for j, name := range keys {
			k[j] = fx.codes[name][r]
		}
		id, ok := found[k]
		if !ok {
			id = len(uniq)
			found[k] = id
			uniq = append(uniq, k)
		}
		gid[i] = uint32(id)
	}
	nullLast := func(c int32) int64 {
		if c < 0 {
			return math.MaxInt64
		}
		return int64(c)
	}
	order := make([]int, len(uniq))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ka, kb := uniq[order[a]], uniq[order[b]]
		for j := range keys {
			if x, y := nullLast(ka[j]), nullLast(kb[j]); x != y {
				return x < y
			}
		}
		return false
	})
	rank := make([]uint32, len(uniq))
	codes := make([][]int32, len(uniq))
	for newID, old := range order {
		rank[old] = uint32(newID)
		codes[newID] = append([]int32{}, uniq[old][:len(keys)]...)
	}
	for i := range gid {
		gid[i] = rank[gid[i]]
	}
	return gid, codes
}

// refStats are the per-group statistics of the measure column.
type refStats struct {
	rows, nonNull, nullRows []int64
	sum                     []*big.Float // exact (nil before the first non-null input)
	min, max                []float64
	firstUnit               []int32 // unit code of the first non-null input
	mixed                   []bool  // a later non-null input has another unit
}

// sumPrec makes every reference sum exact: the inputs span far fewer than 256 bits.
const sumPrec = 256

func (fx *fixture) refAgg(sel []int32, gid []uint32, n int) *refStats {
	return fx.refAggOf(sel, gid, n, iCap)
}

// refAggOf is refAgg over column c: float64 and int64 values are summed exactly and compared
// as numbers; any other non-null value only counts as non-null.
func (fx *fixture) refAggOf(sel []int32, gid []uint32, n, c int) *refStats {
	st := &refStats{rows: make([]int64, n), nonNull: make([]int64, n), nullRows: make([]int64, n),
		sum: make([]*big.Float, n), min: make([]float64, n), max: make([]float64, n),
		firstUnit: make([]int32, n), mixed: make([]bool, n)}
	unit := fx.codes[colUnit]
	var x big.Float
	for i, r := range sel {
		g := gid[i]
		st.rows[g]++
		var v float64
		switch x := fx.rows[r][c].(type) {
		case nil:
			st.nullRows[g]++
			continue
		case float64:
			v = x
		case int64:
			v = float64(x) // exact: the test integers are far below 2^53
		default:
			st.nonNull[g]++
			continue
		}
		if st.nonNull[g] == 0 {
			st.min[g], st.max[g] = v, v
			st.sum[g] = new(big.Float).SetPrec(sumPrec)
			st.firstUnit[g] = unit[r]
		}
		st.min[g] = min(st.min[g], v)
		st.max[g] = max(st.max[g], v)
		st.nonNull[g]++
		st.sum[g].Add(st.sum[g], x.SetFloat64(v))
		if unit[r] != st.firstUnit[g] {
			st.mixed[g] = true
		}
	}
	return st
}

// expect is the reference Result of agg (not count distinct) with or without a unit column.
func (st *refStats) expect(agg Agg, withUnit bool) Result {
	n := len(st.rows)
	res := Result{Values: make([]float64, n), Valid: make([]bool, n), NullRows: make([]int64, n), Mixed: make([]bool, n)}
	for g := range n {
		nn := st.nonNull[g]
		switch agg {
		case AggCount:
			res.Values[g], res.Valid[g] = float64(st.rows[g]), true
			continue
		case AggCountNonNull:
			res.Values[g], res.Valid[g] = float64(nn), true
		case AggSum:
			if nn > 0 {
				res.Values[g], _ = st.sum[g].Float64()
				res.Valid[g] = true
			}
		case AggAvg:
			if nn > 0 {
				q := new(big.Float).SetPrec(sumPrec).Quo(st.sum[g], new(big.Float).SetInt64(nn))
				res.Values[g], _ = q.Float64()
				res.Valid[g] = true
			}
		case AggMin:
			res.Values[g], res.Valid[g] = st.min[g], nn > 0
		case AggMax:
			res.Values[g], res.Valid[g] = st.max[g], nn > 0
		default:
			panic(fmt.Sprintf("expect: agg %d", agg))
		}
		res.NullRows[g] = st.nullRows[g]
		if withUnit && st.mixed[g] {
			res.Mixed[g], res.Valid[g], res.Values[g] = true, false, 0
		}
	}
	return res
}

// refDistinct is the reference count-distinct Result over the Dict column col.
func (fx *fixture) refDistinct(sel []int32, gid []uint32, n int, col string) Result {
	res := Result{Values: make([]float64, n), Valid: make([]bool, n), NullRows: make([]int64, n), Mixed: make([]bool, n)}
	seen := map[[2]int64]bool{} // (group, code)
	codes := fx.codes[col]
	for i, r := range sel {
		g := gid[i]
		switch k := [2]int64{int64(g), int64(codes[r])}; {
		case codes[r] < 0:
			res.NullRows[g]++
		case !seen[k]:
			seen[k] = true
			res.Values[g]++
		}
	}
	for g := range res.Valid {
		res.Valid[g] = true
	}
	return res
}

var aggNames = map[Agg]string{AggCount: "count", AggCountNonNull: "count_non_null", AggSum: "sum",
	AggAvg: "avg", AggMin: "min", AggMax: "max", AggCountDistinct: "count_distinct"}

var allAggs = []Agg{AggCount, AggCountNonNull, AggSum, AggAvg, AggMin, AggMax, AggCountDistinct}

// diffResult describes the first differences between got and want ("" when equal). Sums and
// averages may differ by 1e-9 relative; every other value, flag and count must be exact.
// Values are compared only where the result is valid.
func diffResult(got, want Result, agg Agg) string {
	n := len(want.Values)
	if len(got.Values) != n || len(got.Valid) != n || len(got.NullRows) != n || len(got.Mixed) != n {
		return fmt.Sprintf("lengths Values/Valid/NullRows/Mixed = %d/%d/%d/%d, want %d",
			len(got.Values), len(got.Valid), len(got.NullRows), len(got.Mixed), n)
	}
	var out []string
	for g := 0; g < n && len(out) < 5; g++ {
		switch {
		case got.Valid[g] != want.Valid[g]:
			out = append(out, fmt.Sprintf("group %d: Valid=%v want %v (value %v, want %v)", g, got.Valid[g], want.Valid[g], got.Values[g], want.Values[g]))
		case got.Mixed[g] != want.Mixed[g]:
			out = append(out, fmt.Sprintf("group %d: Mixed=%v want %v", g, got.Mixed[g], want.Mixed[g]))
		case got.NullRows[g] != want.NullRows[g]:
			out = append(out, fmt.Sprintf("group %d: NullRows=%d want %d", g, got.NullRows[g], want.NullRows[g]))
		case want.Valid[g] && !sameValue(got.Values[g], want.Values[g], agg):
			out = append(out, fmt.Sprintf("group %d: value %v want %v", g, got.Values[g], want.Values[g]))
		}
	}
	return strings.Join(out, "; ")
}

func sameValue(got, want float64, agg Agg) bool {
	if agg == AggSum || agg == AggAvg {
		return math.Abs(got-want) <= 1e-9*max(math.Abs(want), 1)
	}
	return got == want
}

// refLineage groups each group's rows by source-file code (ascending): row count, the
// first k rows, and the sorted distinct sheet codes.
func (fx *fixture) refLineage(sel []int32, gid []uint32, n, k int) [][]Source {
	files, sheets := fx.codes[colFile], fx.codes[colSheet]
	type acc struct {
		rows   int64
		sample []int32
		sheets []int32
	}
	byKey := map[[2]int64]*acc{} // (group, file)
	groupFiles := make([][]int32, n)
	for i, r := range sel {
		g := gid[i]
		key := [2]int64{int64(g), int64(files[r])}
		a := byKey[key]
		if a == nil {
			a = &acc{}
			byKey[key] = a
			groupFiles[g] = append(groupFiles[g], files[r])
		}
		a.rows++
		if len(a.sample) < k {
			a.sample = append(a.sample, r)
		}
		if !slices.Contains(a.sheets, sheets[r]) {
			a.sheets = append(a.sheets, sheets[r])
		}
	}
	out := make([][]Source, n)
	for g, fs := range groupFiles {
		slices.Sort(fs)
		for _, f := range fs {
			a := byKey[[2]int64{int64(g), int64(f)}]
			slices.Sort(a.sheets)
			out[g] = append(out[g], Source{File: f, Rows: a.rows, Sample: a.sample, Sheets: a.sheets})
		}
	}
	return out
}

// truncSamples is lineage with at most k sample rows per source.
func truncSamples(l [][]Source, k int) [][]Source {
	out := make([][]Source, len(l))
	for g, srcs := range l {
		for _, s := range srcs {
			s.Sample = s.Sample[:min(k, len(s.Sample))]
			out[g] = append(out[g], s)
		}
	}
	return out
}

func diffLineage(got, want [][]Source) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d groups, want %d", len(got), len(want))
	}
	for g := range want {
		if len(got[g]) != len(want[g]) {
			return fmt.Sprintf("group %d: %d sources %+v, want %d %+v", g, len(got[g]), got[g], len(want[g]), want[g])
		}
		for j, w := range want[g] {
			s := got[g][j]
			if s.File != w.File || s.Rows != w.Rows || !slices.Equal(s.Sample, w.Sample) || !slices.Equal(s.Sheets, w.Sheets) {
				return fmt.Sprintf("group %d source %d: %+v, want %+v", g, j, s, w)
			}
		}
	}
	return ""
}

// selRows lists the table rows of a selection.
func selRows(sel Selection) []int32 {
	out := make([]int32, sel.Len())
	for i := range out {
		out[i] = int32(sel.Row(i))
	}
	return out
}

// catch runs fn and reports a panic as a test error; it returns whether fn returned.
func catch(tb testing.TB, what string, fn func()) (ok bool) {
	tb.Helper()
	defer func() {
		if p := recover(); p != nil {
			tb.Errorf("%s panicked: %v", what, p)
			ok = false
		}
	}()
	fn()
	return true
}

// digest hashes everything a query produces, floats by their bits.
type digest struct {
	h   hash.Hash
	buf []byte
}

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

func (d *digest) ints(xs ...int64) {
	for _, x := range xs {
		d.buf = binary.AppendVarint(d.buf, x)
		if len(d.buf) > 4096 {
			d.flush()
		}
	}
}

func (d *digest) i32s(xs []int32) {
	d.ints(int64(len(xs)))
	for _, x := range xs {
		d.ints(int64(x))
	}
}

func (d *digest) result(r Result) {
	d.ints(int64(len(r.Values)))
	for g := range r.Values {
		d.ints(int64(math.Float64bits(r.Values[g])), r.NullRows[g], int64(boolByte(r.Valid[g])), int64(boolByte(r.Mixed[g])))
	}
}

func (d *digest) text(s string) {
	d.flush()
	d.h.Write([]byte(s))
}

func (d *digest) sum() [32]byte {
	d.flush()
	var out [32]byte
	d.h.Sum(out[:0])
	return out
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Package synth builds deterministic scale-ups of a promoted snapshot for benchmarks: the
// real fact rows are replicated to a target row count with a fixed-seed generator, numeric
// measures perturbed within fixed bounds, identifiers suffixed so natural keys stay unique,
// every dimension value and every lineage column kept, so the scaled-up table has the shape,
// cardinalities and citations of the real one. The result is written as a data directory the
// service loads exactly as it loads an ingested one.
package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/snapshots"
)

// Version changes whenever Generate's output for the same source and options changes; it is
// part of every cache key.
const Version = 2

// Bounds of the factor a replicated row's perturbed measures are multiplied by (the upper
// bound is excluded but for rounding).
const (
	MinFactor = 0.9
	MaxFactor = 1.1
)

// pcgStream is the second PCG word; the seed is the first.
const pcgStream = 0x63697465712d626e // "citeq-bn"

// Spec says how the rows of one capability are scaled up: which columns change on a
// replicated row. SpecFor derives it from the capability's definition.
type Spec struct {
	// Perturb lists Number columns multiplied, on every replicated row, by one factor drawn
	// from [MinFactor, MaxFactor).
	Perturb []string
	// Suffix lists String columns that get a replica suffix on every replicated row; at least
	// one of them is part of the natural key, so replicated keys never collide.
	Suffix []string
}

// SpecFor derives the scale-up of c from its definition, so every capability can be scaled
// up with no code of its own:
//
//   - Perturb: the Number fields a metric reads (its column or denominator, except as a
//     distinct count), unless the field is a filter, a group_by dimension, part of the
//     natural key or a metric's unit column: the measures move, every dimension keeps its
//     values;
//   - Suffix: every Unique String field (the record key, so citations stay distinct), and,
//     when none of them is part of the natural key, the first String field of the natural
//     key that is no group_by dimension and has no enum or codebook, preferring one that is
//     not a filter either: the key stays unique and no group gains values.
//
// Fields are listed in the capability's order. A capability whose natural key has no such
// field cannot be scaled up without inventing dimension values, and SpecFor says so.
func SpecFor(c *capability.Capability) (Spec, error) {
	var spec Spec
	skip := map[string]bool{}
	for _, k := range c.NaturalKey {
		skip[k] = true
	}
	read := map[string]bool{}
	for _, m := range c.Metrics {
		if m.UnitColumn != "" {
			skip[m.UnitColumn] = true
		}
		if m.Agg != capability.CountDistinct {
			read[m.Column], read[m.Denominator] = true, true
		}
	}
	for _, f := range c.Fields {
		switch {
		case f.Type == capability.Number && read[f.Name] && !f.Filter && !f.GroupBy && !skip[f.Name]:
			spec.Perturb = append(spec.Perturb, f.Name)
		case f.Type == capability.String && f.Unique:
			spec.Suffix = append(spec.Suffix, f.Name)
		}
	}
	if slices.ContainsFunc(spec.Suffix, func(name string) bool { return slices.Contains(c.NaturalKey, name) }) {
		return spec, nil
	}
	var key string
	for _, filterToo := range []bool{false, true} {
		for _, name := range c.NaturalKey {
			f, ok := c.Field(name)
			if key == "" && ok && f.Type == capability.String && !f.GroupBy && len(f.Enum) == 0 && f.Codebook == "" && (filterToo || !f.Filter) {
				key = name
			}
		}
	}
	if key == "" {
		return Spec{}, fmt.Errorf("synth: %s: no field of the natural key %v can be made unique per replica (a String field that is no group_by dimension, without enum or codebook)",
			c.ID, c.NaturalKey)
	}
	spec.Suffix = append(spec.Suffix, key)
	return spec, nil
}

// Source is a promoted snapshot read back from its data directory.
type Source struct {
	Store     *snapshots.Store
	Cap       *capability.Capability
	Manifest  *snapshots.Manifest
	Codebooks []snapshots.Codebook
	// Rows are the fact rows in table order, aligned with snapshots.Columns(Cap).
	Rows []snapshots.Row
}

// Read reads the latest promoted snapshot of capability capID from store: its manifest,
// codebooks and every fact row (through the columnar engine, all columns undictionaried).
func Read(store *snapshots.Store, capID string) (*Source, error) {
	c := capability.ByID(capID)
	if c == nil {
		return nil, fmt.Errorf("synth: unknown capability %s", capID)
	}
	ms, err := store.PromotedManifests()
	if err != nil {
		return nil, err
	}
	var m *snapshots.Manifest
	for _, x := range ms {
		if x.Capability == capID && (m == nil || x.AsOf > m.AsOf) {
			m = x
		}
	}
	if m == nil {
		return nil, fmt.Errorf("synth: %s has no promoted %s snapshot", store.Dir, capID)
	}
	rows, err := ReadRows(c, m.FactsPath())
	if err != nil {
		return nil, err
	}
	if len(rows) != m.Rows {
		return nil, fmt.Errorf("synth: %s has %d rows, its manifest %d", m.FactsPath(), len(rows), m.Rows)
	}
	cbs, err := snapshots.ReadCodebooks(m.Dir)
	if err != nil {
		return nil, err
	}
	return &Source{Store: store, Cap: c, Manifest: m, Codebooks: cbs, Rows: rows}, nil
}

// ReadRows reads the fact table at path, a table of capability c, back as rows (through the
// columnar engine, every column undictionaried).
func ReadRows(c *capability.Capability, path string) ([]snapshots.Row, error) {
	cols := snapshots.Columns(c)
	specs := make([]columnar.Spec, len(cols))
	for i, f := range cols {
		specs[i] = columnar.Spec{Name: f.Name}
	}
	t, err := columnar.Load(path, specs)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	cells := make([]any, t.Rows*len(cols))
	rows := make([]snapshots.Row, t.Rows)
	for i := range rows {
		rows[i] = cells[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
	}
	// Equal strings share one boxed value, as the replicas will.
	interned := map[string]any{}
	for ci, f := range cols {
		col := t.Col(f.Name)
		for i := range rows {
			v, err := cell(col, i, interned)
			if err != nil {
				return nil, fmt.Errorf("synth: %s column %s row %d: %w", path, f.Name, i, err)
			}
			rows[i][ci] = v
		}
	}
	return rows, nil
}

// cell returns row i of col as a Row value: nil, string, int64, float64 or bool.
func cell(col *columnar.Column, i int, interned map[string]any) (any, error) {
	switch col.Kind {
	case columnar.Str:
		if col.Strs.IsNull(i) {
			return nil, nil
		}
		s := col.Strs.Value(i)
		if v, ok := interned[s]; ok {
			return v, nil
		}
		s = strings.Clone(s) // the Arrow buffer is not ours to keep
		interned[s] = s
		return interned[s], nil
	case columnar.Int:
		if col.Ints.IsNull(i) {
			return nil, nil
		}
		return col.Ints.Value(i), nil
	case columnar.Float:
		if col.Floats.IsNull(i) {
			return nil, nil
		}
		return col.Floats.Value(i), nil
	case columnar.Bool:
		if col.Bools.IsNull(i) {
			return nil, nil
		}
		return col.Bools.Value(i), nil
	}
	return nil, fmt.Errorf("unexpected column kind %d", col.Kind)
}

// Options are the parameters of a scale-up.
type Options struct {
	// Rows is the row count of the result.
	Rows int
	// Seed seeds the generator: the same source, Rows and Seed give the same rows.
	Seed uint64
}

// Generator produces the rows of one scale-up, in any order of ranges: row i depends only
// on the source, the options and i, so a large scale-up is built and written part by part.
//
// The first replica is the source rows verbatim; each further whole replica copies every
// source row in order; a final partial replica copies a seeded sample of source rows (in
// source order), so every dimension value keeps its share. A replicated row (replica k ≥ 1)
// has its Spec.Perturb columns multiplied by one factor in [MinFactor, MaxFactor), drawn
// from a counter-based generator (splitmix64 of the seed and the row number), and "~k"
// appended to its Spec.Suffix columns; every other column, lineage included, is the source
// row's, so its citation resolves to the real source row. With Rows below the source size
// the result is a seeded sample of source rows.
type Generator struct {
	src      *Source
	opt      Options
	width    int
	perturb  []int
	suffix   []int
	full     int      // whole replicas
	pick     []int    // source rows of the partial replica, ascending
	suffixes []string // by replica
}

// NewGenerator prepares the scale-up of src given by opt.
func NewGenerator(src *Source, opt Options) (*Generator, error) {
	spec, err := SpecFor(src.Cap)
	if err != nil {
		return nil, err
	}
	m := len(src.Rows)
	if m == 0 {
		return nil, fmt.Errorf("synth: the source snapshot has no rows")
	}
	if opt.Rows < 1 {
		return nil, fmt.Errorf("synth: rows must be positive, got %d", opt.Rows)
	}
	cols := snapshots.Columns(src.Cap)
	perturb, err := columnIndexes(src.Cap, cols, spec.Perturb, capability.Number)
	if err != nil {
		return nil, err
	}
	suffix, err := columnIndexes(src.Cap, cols, spec.Suffix, capability.String)
	if err != nil {
		return nil, err
	}
	g := &Generator{src: src, opt: opt, width: len(cols), perturb: perturb, suffix: suffix, full: opt.Rows / m}
	if rem := opt.Rows % m; rem > 0 {
		rng := rand.New(rand.NewPCG(opt.Seed, pcgStream))
		g.pick = rng.Perm(m)[:rem]
		sort.Ints(g.pick)
	}
	g.suffixes = make([]string, g.full+1)
	for k := 1; k <= g.full; k++ {
		g.suffixes[k] = "~" + strconv.Itoa(k)
	}
	return g, nil
}

// Rows is the row count of the scale-up.
func (g *Generator) Rows() int { return g.opt.Rows }

// Fill sets rows[i] to row lo+i of the scale-up. A row of rows that already has the table's
// width is overwritten in place (so a buffer can be reused part after part), any other is
// allocated.
func (g *Generator) Fill(rows []snapshots.Row, lo int) {
	m := len(g.src.Rows)
	var block []any
	for i := range rows {
		n := lo + i
		j, k := n%m, n/m
		if k >= g.full {
			j, k = g.pick[n-g.full*m], g.full
		}
		row := rows[i]
		if len(row) != g.width {
			if len(block) == 0 {
				// Rows are carved out of blocks of cells: one allocation per block.
				block = make([]any, min(1<<14, len(rows)-i)*g.width)
			}
			row, block = snapshots.Row(block[:g.width:g.width]), block[g.width:]
			rows[i] = row
		}
		copy(row, g.src.Rows[j])
		if k == 0 {
			continue
		}
		f := Factor(g.opt.Seed, n)
		for _, c := range g.perturb {
			if v, ok := row[c].(float64); ok {
				row[c] = v * f
			}
		}
		for _, c := range g.suffix {
			if v, ok := row[c].(string); ok {
				row[c] = v + g.suffixes[k]
			}
		}
	}
}

// Range returns rows [lo, hi) of the scale-up.
func (g *Generator) Range(lo, hi int) []snapshots.Row {
	rows := make([]snapshots.Row, hi-lo)
	g.Fill(rows, lo)
	return rows
}

// Generate returns every row of the scale-up of src given by opt.
func Generate(src *Source, opt Options) ([]snapshots.Row, error) {
	g, err := NewGenerator(src, opt)
	if err != nil {
		return nil, err
	}
	return g.Range(0, opt.Rows), nil
}

// Factor is the perturbation factor of row n of a scale-up with the given seed, in
// [MinFactor, MaxFactor): the n-th output of splitmix64 seeded with seed, as a uniform
// fraction of the interval.
func Factor(seed uint64, n int) float64 {
	z := seed + uint64(n+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return MinFactor + (MaxFactor-MinFactor)*(float64(z>>11)/(1<<53))
}

func columnIndexes(c *capability.Capability, cols []capability.Field, names []string, want capability.Type) ([]int, error) {
	var out []int
	for _, name := range names {
		i := -1
		for j, f := range cols {
			if f.Name == name {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("synth: %s has no column %s", c.ID, name)
		}
		if cols[i].Type != want {
			return nil, fmt.Errorf("synth: %s column %s is %s, not %s", c.ID, name, cols[i].Type, want)
		}
		out = append(out, i)
	}
	return out, nil
}

// tally counts, over the rows of a scale-up as they are produced, what the manifest and
// codebooks state: rows per source sheet and rows per code.
type tally struct {
	sheetCol int
	bookCols map[string][]int
	codes    map[string]map[string]int
	sheets   map[string]int
}

func newTally(c *capability.Capability) *tally {
	t := &tally{sheetCol: -1, bookCols: map[string][]int{}, codes: map[string]map[string]int{}, sheets: map[string]int{}}
	for i, f := range snapshots.Columns(c) {
		if f.Name == capability.ColSheet {
			t.sheetCol = i
		}
		if f.Codebook != "" {
			t.bookCols[f.Codebook] = append(t.bookCols[f.Codebook], i)
			t.codes[f.Codebook] = map[string]int{}
		}
	}
	return t
}

func (t *tally) add(rows []snapshots.Row) {
	for _, r := range rows {
		s, _ := r[t.sheetCol].(string)
		t.sheets[s]++
		for book, cols := range t.bookCols {
			for _, i := range cols {
				if v, ok := r[i].(string); ok {
					t.codes[book][v]++
				}
			}
		}
	}
}

// merge adds the counts of u to t (a tally of the same capability).
func (t *tally) merge(u *tally) {
	for s, n := range u.sheets {
		t.sheets[s] += n
	}
	for book, counts := range u.codes {
		for code, n := range counts {
			t.codes[book][code] += n
		}
	}
}

// codebooks returns the source's codebooks with rows_in_snapshot as counted.
func (t *tally) codebooks(src []snapshots.Codebook) []snapshots.Codebook {
	out := make([]snapshots.Codebook, len(src))
	for bi, cb := range src {
		out[bi] = cb
		counts, ok := t.codes[cb.Name]
		if !ok {
			continue
		}
		out[bi].Codes = append([]snapshots.Code{}, cb.Codes...)
		for ci := range out[bi].Codes {
			out[bi].Codes[ci].Rows = counts[out[bi].Codes[ci].Code]
		}
	}
	return out
}

// Codebooks returns src's codebooks with rows_in_snapshot recounted over rows, for every
// codebook some field of the capability names.
func Codebooks(src *Source, rows []snapshots.Row) []snapshots.Codebook {
	t := newTally(src.Cap)
	t.add(rows)
	return t.codebooks(src.Codebooks)
}

// RowsBySheet counts rows per source sheet (the _sheet lineage column), as a manifest does.
func RowsBySheet(c *capability.Capability, rows []snapshots.Row) map[string]int {
	t := newTally(c)
	t.add(rows)
	return t.sheets
}

package service

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// openRaw finds a data file in the raw store by its sha256, checks its name, re-hashes it and
// parses it; it returns the workbook and the hash computed now.
func (s *Service) openRaw(src snapshots.Source) (*grid.Workbook, string, *apierror.Error) {
	path := s.store.Raw().Find(src.SHA256)
	if path == "" {
		return nil, "", apierror.New(400, apierror.CodeEvidenceUnknownFile, "this service no longer holds the raw file %s with sha256 %s, so its figures cannot be verified here now; the operator has been told. The publisher's file is at %s", src.File, src.SHA256, orDash(src.URL)).Becausef(
			"the raw file %s with sha256 %s, cited by a served snapshot, is missing from the raw store: fetch it again from %s and run citeq ingest", src.File, src.SHA256, orDash(src.URL))
	}
	if filepath.Base(path) != src.File {
		return nil, "", apierror.New(400, apierror.CodeEvidenceFileName, "the raw file with sha256 %s is %q, not %q", src.SHA256, filepath.Base(path), src.File)
	}
	got, _, err := snapshots.HashFile(path)
	if err != nil {
		return nil, "", apierror.New(400, apierror.CodeEvidenceUnreadable, "the raw file %s cannot be read (%v); it cannot be verified", src.File, err)
	}
	if got != src.SHA256 {
		return nil, "", s.changedOnDisk(src.File, got, src.SHA256, src.URL)
	}
	wb, err := s.workbook(got, path)
	if err != nil {
		return nil, "", apierror.New(400, apierror.CodeEvidenceUnreadable, "the raw file %s does not parse (%v)", src.File, err)
	}
	return wb, got, nil
}

// cellValue is one field's value on one cited row, read from the raw cells.
type cellValue struct {
	num  float64 // NaN when null or not a number
	text string  // the trimmed text of a value that is not a number ("" when null)
	null bool
}

// String is the value as text: a number as the engine spells it (shortest round-trip
// decimal), other text as read, "" for null.
func (v cellValue) String() string {
	if !math.IsNaN(v.num) {
		return strconv.FormatFloat(v.num, 'g', -1, 64)
	}
	return v.text
}

var nullCell = cellValue{num: math.NaN(), null: true}

// fieldReader reads one field from the cells of cited rows, by the rule ingest read it with.
type fieldReader struct {
	f       capability.Field
	rule    *capability.CellRule
	numeric bool
	// snap is the field's column in the fact table: a row whose field is not null there, on a
	// sheet that records no column for it, was read from a cell the snapshot does not name.
	snap *columnar.Column
	// by is the fact-table column of the field that chooses this one's column (ColumnBy).
	by *columnar.Column
	// parts (Join, Product), present (Product), copyOf and unless (CopyOf) read the fields a
	// rule is made of.
	parts   []*fieldReader
	present []*fieldReader
	copyOf  *fieldReader
	unless  map[string]*fieldReader
	// cols is, by sheet code, the column recorded for the field (0: none; -1: not looked up);
	// byCols the columns of a ColumnBy field by the value choosing them.
	cols   []int
	byCols []map[string]int
	// seen marks the (sheet, column) pairs read, for the answer's columns.
	seen map[[2]int]string
	// derived is, by sheet code, whether ingest computes the field from other cells of the
	// row by a function the evidence shares (derivedCell): 0 not looked up, 1 yes, -1 no.
	derived []int8
}

// recompute reads the cited cells of one metric's fields and recomputes it in one pass.
type recompute struct {
	s    *Service
	c    *capability.Capability
	m    capability.Metric
	snap *Snapshot
	src  snapshots.Source
	wb   *grid.Workbook

	sheetCol, rowCol *columnar.Column
	sheets           []*grid.Sheet // by sheet code
	sheetLooked      []bool

	val, den, unit *fieldReader
	// unitSnap is the fact table's unit column when the unit is not read from a cell (the
	// publisher states it once, in a series header).
	unitSnap *columnar.Column
	readers  map[string]*fieldReader

	// derivedInputs are the cells the shared derivations read: (sheet, field) → column.
	derivedInputs map[[2]string]int

	acc                          accumulator
	cellsRead, empty, nonNumeric int
	nonNumericSample             []Obj
}

func newRecompute(s *Service, c *capability.Capability, m capability.Metric, snap *Snapshot, src snapshots.Source, wb *grid.Workbook) (*recompute, *apierror.Error) {
	t := snap.Table
	need := []string{capability.ColSheet, capability.ColSourceRow}
	r := &recompute{s: s, c: c, m: m, snap: snap, src: src, wb: wb, readers: map[string]*fieldReader{}, acc: newAccumulator(c, m)}
	var e *apierror.Error
	if m.Column != "" {
		if r.val, e = r.reader(m.Column, &need); e != nil {
			return nil, e
		}
	}
	if m.Denominator != "" {
		if r.den, e = r.reader(m.Denominator, &need); e != nil {
			return nil, e
		}
	}
	if u := m.UnitColumn; u != "" {
		f, _ := c.Field(u)
		recorded := f.Cell != nil
		for _, byField := range src.Cells {
			recorded = recorded || byField[u] > 0
		}
		if recorded {
			if r.unit, e = r.reader(u, &need); e != nil {
				return nil, e
			}
		} else {
			need = append(need, u)
		}
	}
	if err := t.Need(need...); err != nil {
		return nil, unreadable(snap, err)
	}
	r.sheetCol, r.rowCol = t.Col(capability.ColSheet), t.Col(capability.ColSourceRow)
	if m.UnitColumn != "" && r.unit == nil {
		r.unitSnap = t.Col(m.UnitColumn)
	}
	for _, fr := range r.readers {
		fr.snap = t.Col(fr.f.Name)
		if fr.rule != nil && fr.rule.ColumnBy != "" {
			fr.by = t.Col(fr.rule.ColumnBy)
		}
	}
	if r.sheetCol.Kind != columnar.Dict {
		return nil, apierror.New(500, apierror.CodeInternal, "the sheet column of %s is not held as a dictionary; report it", c.ID)
	}
	r.sheets = make([]*grid.Sheet, len(r.sheetCol.Values))
	r.sheetLooked = make([]bool, len(r.sheetCol.Values))
	return r, nil
}

// reader returns the reader of field name (and of the fields its rule reads), adding the
// fact-table columns it needs to need.
func (r *recompute) reader(name string, need *[]string) (*fieldReader, *apierror.Error) {
	if fr, ok := r.readers[name]; ok {
		return fr, nil
	}
	f, ok := r.c.Field(name)
	if !ok {
		return nil, apierror.New(500, apierror.CodeInternal, "%s names field %s, which it does not define; report it", r.c.ID, name)
	}
	fr := &fieldReader{f: f, rule: f.Cell, numeric: f.Type == capability.Integer || f.Type == capability.Number, seen: map[[2]int]string{}}
	r.readers[name] = fr
	*need = append(*need, name)
	var e *apierror.Error
	switch rule := f.Cell; {
	case rule == nil:
	case len(rule.Join) > 0 || len(rule.Product) > 0:
		for _, p := range append(append([]string{}, rule.Join...), rule.Product...) {
			pr, e := r.reader(p, need)
			if e != nil {
				return nil, e
			}
			fr.parts = append(fr.parts, pr)
		}
		for _, p := range rule.Present {
			pr, e := r.reader(p, need)
			if e != nil {
				return nil, e
			}
			fr.present = append(fr.present, pr)
		}
	case rule.CopyOf != "":
		if fr.copyOf, e = r.reader(rule.CopyOf, need); e != nil {
			return nil, e
		}
		fr.unless = map[string]*fieldReader{}
		for u := range rule.Unless {
			if fr.unless[u], e = r.reader(u, need); e != nil {
				return nil, e
			}
		}
	case rule.ColumnBy != "":
		*need = append(*need, rule.ColumnBy)
	}
	return fr, nil
}

// sheet returns the parsed sheet of sheet code sc.
func (r *recompute) sheet(sc int32) (*grid.Sheet, *apierror.Error) {
	if !r.sheetLooked[sc] {
		r.sheetLooked[sc] = true
		r.sheets[sc] = r.wb.Sheet(r.sheetCol.Values[sc])
	}
	if r.sheets[sc] == nil {
		return nil, apierror.New(400, apierror.CodeEvidenceSheet, "%s has no sheet %q, which the snapshot cites; its sheets are: %s", r.src.File, r.sheetCol.Values[sc], join(r.wb.SheetNames()))
	}
	return r.sheets[sc], nil
}

// run reads the cited rows (fact-table rows rows) and accumulates the metric, looking at ctx
// every check rows.
func (r *recompute) run(ctx context.Context, rows []int32, check int) *apierror.Error {
	if _, ok := r.m.Quantile(); ok {
		r.acc.vals = make([]float64, 0, len(rows)) // at most one value a row, made once
	}
	for i, row := range rows {
		if i%check == check-1 {
			if e := cancelled(ctx); e != nil {
				return e
			}
		}
		tr := int(row)
		sc := r.sheetCol.Codes[tr]
		if sc < 0 {
			return apierror.New(500, apierror.CodeInternal, "a fact row of %s has no sheet; report it", r.c.ID)
		}
		sh, e := r.sheet(sc)
		if e != nil {
			return e
		}
		n := int(intAt(r.rowCol, tr))
		if n < 1 || n > sh.NumRows() {
			return apierror.New(400, apierror.CodeEvidenceRow, "row %d is outside sheet %s of %s, which has rows 1 to %d", n, sh.Name, r.src.File, sh.NumRows())
		}
		at := rowAt{tr: tr, sc: sc, sh: sh, row: n}
		v, den, unit := nullCell, nullCell, ""
		if r.val != nil {
			if v, e = r.read(r.val, at); e != nil {
				return e
			}
		}
		if r.den != nil {
			if den, e = r.read(r.den, at); e != nil {
				return e
			}
		}
		switch {
		case r.unit != nil:
			u, e := r.read(r.unit, at)
			if e != nil {
				return e
			}
			unit = u.String()
		case r.unitSnap != nil:
			unit, _ = r.unitSnap.Text(tr)
		}
		r.acc.add(v, den, unit)
	}
	return nil
}

// rowAt is one cited row: its fact-table row, sheet code, sheet and source row.
type rowAt struct {
	tr  int
	sc  int32
	sh  *grid.Sheet
	row int
}

// read reads field fr on a cited row by the field's rule.
func (r *recompute) read(fr *fieldReader, at rowAt) (cellValue, *apierror.Error) {
	rule := fr.rule
	switch {
	case rule != nil && rule.PerFile != "":
		return cellValue{num: math.NaN(), text: r.src.File}, nil
	case rule != nil && len(rule.Join) > 0:
		parts := make([]string, len(fr.parts))
		for i, p := range fr.parts {
			v, e := r.read(p, at)
			if e != nil {
				return nullCell, e
			}
			parts[i] = v.String()
		}
		return cellValue{num: math.NaN(), text: strings.Join(parts, rule.Sep)}, nil
	case rule != nil && len(rule.Product) > 0:
		vals := make([]float64, len(fr.parts))
		for i, p := range append(append([]*fieldReader{}, fr.parts...), fr.present...) {
			v, e := r.read(p, at)
			if e != nil || v.null || math.IsNaN(v.num) {
				return nullCell, e
			}
			if i < len(vals) {
				vals[i] = v.num
			}
		}
		return cellValue{num: rule.Multiply(vals...)}, nil
	case rule != nil && rule.CopyOf != "":
		var err *apierror.Error
		keeps := rule.Unless.Keeps(func(field string) string {
			v, e := r.read(fr.unless[field], at)
			if e != nil && err == nil {
				err = e
			}
			return v.String()
		})
		if err != nil {
			return nullCell, err
		}
		if !keeps {
			return nullCell, nil
		}
		return r.read(fr.copyOf, at)
	}
	if rule == nil {
		if v, ok := r.derivedValue(fr, at); ok {
			return v, nil
		}
	}
	col, by, e := r.column(fr, at)
	if e != nil || col == 0 {
		return nullCell, e
	}
	if _, ok := fr.seen[[2]int{int(at.sc), col}]; !ok {
		fr.seen[[2]int{int(at.sc), col}] = by
	}
	r.cellsRead++
	cell := at.sh.Cell(at.row, col)
	format := ""
	if rule != nil {
		format = rule.Format
	}
	switch format {
	case capability.FormatListCell, capability.FormatListCellWithheld:
		v, supp, _, blank, err := kit.ListCell(cell.Value)
		switch {
		case err != nil:
			r.notNumber(fr, at, col, cell)
			return nullCell, nil
		case format == capability.FormatListCellWithheld && blank:
			r.empty++
			return nullCell, nil
		case format == capability.FormatListCellWithheld:
			w := 0.0
			if supp != nil {
				w = 1
			}
			return cellValue{num: w}, nil
		case v == nil:
			r.empty++
			return nullCell, nil
		}
		x := v.(float64)
		return cellValue{num: x}, nil
	}
	// As kit.Text and kit.Number read it, with the marks the file was read with.
	if kit.Blank(cell, r.src.BlankMarks...) {
		r.empty++
		return nullCell, nil
	}
	text := strings.TrimSpace(cell.Value)
	if !fr.numeric {
		return cellValue{num: math.NaN(), text: text}, nil
	}
	x, err := parseCellNumber(text)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		r.notNumber(fr, at, col, cell)
		return nullCell, nil
	}
	return cellValue{num: x}, nil
}

// thousandsGrouped is a number written with thousands separators ("106,393,568"), as some
// publishers print values (USA Trade Online's exports); its adapter reads it without them.
var thousandsGrouped = regexp.MustCompile(`^-?\d{1,3}(,\d{3})+(\.\d+)?$`)

// parseCellNumber is the number a cell's literal text spells, thousands separators aside.
func parseCellNumber(text string) (float64, error) {
	if thousandsGrouped.MatchString(text) {
		text = strings.ReplaceAll(text, ",", "")
	}
	return strconv.ParseFloat(text, 64)
}

// derivedValue reads a field ingest computes from other cells of the row by a function the
// evidence shares with it (derivedCell: the queues' status, request kind, state, ...); ok is
// false for a field no such function computes on the row's sheet.
func (r *recompute) derivedValue(fr *fieldReader, at rowAt) (cellValue, bool) {
	if fr.derived == nil {
		fr.derived = make([]int8, len(r.sheets))
	}
	if fr.derived[at.sc] < 0 {
		return nullCell, false
	}
	text, inputs, ok := derivedCell(r.c, r.src, at.sh, at.sh.Name, at.row, fr.f.Name)
	if !ok {
		fr.derived[at.sc] = -1
		return nullCell, false
	}
	fr.derived[at.sc] = 1
	if r.derivedInputs == nil {
		r.derivedInputs = map[[2]string]int{}
	}
	for f, col := range inputs {
		r.derivedInputs[[2]string{at.sh.Name, f}] = col
	}
	r.cellsRead += len(inputs)
	switch {
	case text == "":
		return nullCell, true
	case fr.numeric:
		if x := derivedNumber(text); !math.IsNaN(x) {
			return cellValue{num: x}, true
		}
		return nullCell, true
	}
	return cellValue{num: math.NaN(), text: text}, true
}

func (r *recompute) notNumber(fr *fieldReader, at rowAt, col int, cell grid.Cell) {
	r.nonNumeric++
	if len(r.nonNumericSample) < sampleRows {
		r.nonNumericSample = append(r.nonNumericSample, Obj{{"field", fr.f.Name}, {"sheet", at.sh.Name}, {"source_row", at.row},
			{"column", grid.ColumnName(col)}, {"value", cell.Value}})
	}
}

// column is the column field fr was read from on a cited row (0: the sheet has no column for
// it, and the field is null on the row), and the value of the field that chose it (ColumnBy).
// A field the snapshot holds a value of on a row whose sheet records no column for it was
// read from a cell the snapshot does not name: it cannot be recomputed here.
func (r *recompute) column(fr *fieldReader, at rowAt) (int, string, *apierror.Error) {
	sheet := at.sh.Name
	if fr.rule != nil && fr.rule.ColumnBy != "" {
		if fr.byCols == nil {
			fr.byCols = make([]map[string]int, len(r.sheets))
		}
		cols := fr.byCols[at.sc]
		if cols == nil {
			cols = r.src.CellsBy[sheet][fr.f.Name].Columns
			if cols == nil {
				cols = map[string]int{}
			}
			fr.byCols[at.sc] = cols
		}
		by, ok := fr.by.Text(at.tr)
		if col := cols[by]; ok && col > 0 {
			return col, by, nil
		}
		if fr.snap.Presence()[at.tr] < 0 {
			return 0, "", nil
		}
		return 0, "", r.cellsUnknown(fr.f.Name, sheet, at.row)
	}
	if fr.cols == nil {
		fr.cols = make([]int, len(r.sheets))
		for i := range fr.cols {
			fr.cols[i] = -1
		}
	}
	if fr.cols[at.sc] < 0 {
		fr.cols[at.sc] = r.src.Cells[sheet][fr.f.Name]
	}
	if col := fr.cols[at.sc]; col > 0 {
		return col, "", nil
	}
	if fr.snap.Presence()[at.tr] >= 0 {
		return 0, "", r.cellsUnknown(fr.f.Name, sheet, at.row)
	}
	fr.seen[[2]int{int(at.sc), 0}] = ""
	return 0, "", nil
}

// cellsUnknown refuses a field whose cells the snapshot does not name.
func (r *recompute) cellsUnknown(field, sheet string, row int) *apierror.Error {
	return apierror.New(400, apierror.CodeEvidenceCellsUnknown, "the %s snapshot as_of %s does not record which cell of %s sheet %s row %d its %s was read from, so %s cannot be recomputed from the raw file here; verify its cited rows one by one with /v1/evidence/source-row (a citation's verify member)",
		r.c.ID, r.snap.Manifest.AsOf, r.src.File, sheet, row, field, r.m.Name).Becausef(
		"the %s snapshot as_of %s (%s) records no column for field %s on sheet %s of %s: it was written before snapshots recorded the columns of that field; rebuild it (delete that snapshot directory and run citeq ingest again: the same files give the same as_of and answers)",
		r.c.ID, r.snap.Manifest.AsOf, r.snap.Manifest.Dir, field, sheet, r.src.File)
}

// accumulator recomputes one metric from the values of the cited rows, one row at a time:
// sums, counts and extremes in constant memory, a distinct count in the distinct values, a
// median or percentile in the values.
type accumulator struct {
	m                     capability.Metric
	numeric               bool
	rows, nonNull         int
	sum, comp             float64
	denSum, denComp       float64
	denN                  int
	best                  Num
	distinct              map[string]struct{}
	vals                  []float64
	unit                  string
	mixedUnits, unitFound bool
}

func newAccumulator(c *capability.Capability, m capability.Metric) accumulator {
	f, _ := c.Field(m.Column)
	a := accumulator{m: m, numeric: f.Type == capability.Integer || f.Type == capability.Number}
	if m.Agg == capability.CountDistinct {
		a.distinct = map[string]struct{}{}
	}
	return a
}

// neumaier adds v to the compensated sum (sum, comp).
func neumaier(sum, comp *float64, v float64) {
	t := *sum + v
	if math.Abs(*sum) >= math.Abs(v) {
		*comp += (*sum - t) + v
	} else {
		*comp += (v - t) + *sum
	}
	*sum = t
}

// add accumulates one cited row: its value, denominator and unit.
func (a *accumulator) add(v, den cellValue, unit string) {
	a.rows++
	hasValue := !v.null && (!a.numeric || !math.IsNaN(v.num))
	if hasValue && a.m.UnitColumn != "" {
		switch {
		case !a.unitFound:
			a.unit, a.unitFound = unit, true
		case unit != a.unit:
			a.mixedUnits = true
		}
	}
	switch a.m.Agg {
	case capability.CountNonNull:
		if hasValue {
			a.nonNull++
		}
	case capability.CountDistinct:
		if hasValue {
			a.distinct[v.String()] = struct{}{}
		}
	case capability.Sum, capability.Avg:
		if hasValue {
			a.nonNull++
			neumaier(&a.sum, &a.comp, v.num)
		}
	case capability.Min, capability.Max:
		if hasValue && (!a.best.Valid || (a.m.Agg == capability.Min && v.num < a.best.V) || (a.m.Agg == capability.Max && v.num > a.best.V)) {
			a.best = Num{V: v.num, Valid: true}
		}
	case capability.Ratio:
		if hasValue {
			a.nonNull++
			neumaier(&a.sum, &a.comp, v.num)
		}
		if !den.null && !math.IsNaN(den.num) {
			a.denN++
			neumaier(&a.denSum, &a.denComp, den.num)
		}
	case capability.Median, capability.Percentile:
		if hasValue {
			a.vals = append(a.vals, v.num)
		}
	}
}

// value is the metric recomputed.
func (r *recompute) value() Num {
	a := &r.acc
	if a.m.Agg == capability.Count {
		return Num{V: float64(a.rows), Valid: true}
	}
	if a.m.UnitColumn != "" && a.mixedUnits {
		return Num{} // the rows with a value do not share one unit
	}
	switch a.m.Agg {
	case capability.CountNonNull:
		return Num{V: float64(a.nonNull), Valid: true}
	case capability.CountDistinct:
		return Num{V: float64(len(a.distinct)), Valid: true}
	case capability.Sum, capability.Avg:
		if a.nonNull == 0 {
			return Num{}
		}
		if a.m.Agg == capability.Avg {
			return Num{V: (a.sum + a.comp) / float64(a.nonNull), Valid: true}
		}
		return Num{V: a.sum + a.comp, Valid: true}
	case capability.Min, capability.Max:
		return a.best
	case capability.Median, capability.Percentile:
		// The values are those of rows with a value only: sorted in place, not copied.
		slices.Sort(a.vals)
		p, _ := a.m.Quantile()
		v, ok := columnar.Quantile(a.vals, p)
		return Num{V: v, Valid: ok}
	case capability.Ratio:
		den := a.denSum + a.denComp
		if a.nonNull == 0 || a.denN == 0 || den == 0 {
			return Num{}
		}
		return Num{V: (a.sum + a.comp) / den, Valid: true}
	}
	return Num{}
}

// unitText is the unit of the recomputed figure: the one unit the cited rows share, else
// the definition's.
func (r *recompute) unitText() string {
	a := &r.acc
	if a.m.UnitColumn == "" || a.mixedUnits || !a.unitFound || a.unit == "" {
		return a.m.Unit
	}
	return a.unit
}

// columnsDoc lists, per sheet and field read, the column and its header (and, for a sheet
// holding one column per line or series, the line or series that chose it), then the rules
// fields were read by.
func (r *recompute) columnsDoc() []Obj {
	type used struct {
		sheet, field string
		col          int
		by           string
		byField      string
	}
	var list []used
	var rules []Obj
	for k, col := range r.derivedInputs {
		list = append(list, used{sheet: k[0], field: k[1], col: col})
	}
	for name, fr := range r.readers {
		for k, by := range fr.seen {
			u := used{sheet: r.sheetCol.Values[k[0]], field: name, col: k[1], by: by}
			if fr.rule != nil {
				u.byField = fr.rule.ColumnBy
			}
			list = append(list, u)
		}
		if rule := fr.rule; rule != nil {
			var note string
			switch {
			case rule.PerFile != "":
				note = "not read from a cell: " + rule.PerFile + " (one value for every cited row of the file)"
			case len(rule.Join) > 0:
				note = "the values of " + strings.Join(rule.Join, " and ") + " joined by " + strconv.Quote(rule.Sep)
			case len(rule.Product) > 0:
				note = "the product of " + strings.Join(rule.Product, " × ")
				if rule.Divide != 0 {
					note += " / " + strconv.FormatFloat(rule.Divide, 'g', -1, 64)
				}
				if len(rule.Present) > 0 {
					note += ", null where " + strings.Join(rule.Present, " or ") + " is"
				}
				note += " (the rule ingest applied)"
			case rule.CopyOf != "":
				var conds []string
				keys := make([]string, 0, len(rule.Unless))
				for k := range rule.Unless {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					conds = append(conds, k+" is "+strings.Join(rule.Unless[k], " or "))
				}
				note = "the value of " + rule.CopyOf + ", null where " + strings.Join(conds, ", or where ") + " (the rule ingest applied)"
			case rule.ColumnBy != "":
				note = "read from the column recorded at ingest for the row's " + rule.ColumnBy
				if rule.Format != "" {
					note += ", in format " + rule.Format
				}
			case rule.Format != "":
				note = "read in format " + rule.Format
			}
			rules = append(rules, Obj{{"sheet", nil}, {"field", name}, {"column", nil}, {"header", nil}, {"note", note}})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.sheet != b.sheet {
			return a.sheet < b.sheet
		}
		if a.field != b.field {
			return a.field < b.field
		}
		return a.col < b.col
	})
	out := make([]Obj, 0, len(list)+len(rules)+1)
	for _, u := range list {
		o := Obj{{"sheet", u.sheet}, {"field", u.field}}
		if u.col == 0 {
			o = append(o, KV{"column", nil}, KV{"header", nil}, KV{"note", "the sheet has no column for this field: null on every cited row of it"})
			out = append(out, o)
			continue
		}
		header := any(nil)
		if hr := r.src.HeaderRows[u.sheet]; hr > 0 {
			if sh := r.wb.Sheet(u.sheet); sh != nil {
				header = normSpace(sh.Cell(hr, u.col).Value)
			}
		}
		o = append(o, KV{"column", grid.ColumnName(u.col)}, KV{"header", header})
		if u.byField != "" {
			o = append(o, KV{"by", Obj{{u.byField, u.by}}})
		}
		out = append(out, o)
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i][1].V.(string) < rules[j][1].V.(string) })
	out = append(out, rules...)
	if r.unitSnap != nil {
		out = append(out, Obj{{"sheet", nil}, {"field", r.m.UnitColumn}, {"column", nil}, {"header", nil},
			{"note", "the unit is not a cell of the row (the publisher states it once, for the file or the series); it is taken from the snapshot"}})
	}
	return out
}

package ingest

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/snapshots"
)

// Lineage is where one fact row was read: the file, the sheet and the 1-based row as the
// publisher's file numbers it.
type Lineage struct {
	SourceID string
	File     string // file name as published
	Sheet    string
	Row      int
	SHA256   string // of the raw file
}

// CellKey names one sheet of one raw file, or with Row set one row of it, or with By set the
// cells of a wide sheet whose column is chosen by a value of another field (the field's
// capability.CellRule.ColumnBy): By is that value.
type CellKey struct {
	File, Sheet string
	Row         int    // 0: the whole sheet
	By          string // "": not a column chosen by a value
}

// Rows builds the fact rows of one capability. Cells are set by field name and checked
// against the definition: an unknown field or a value of the wrong type is an error of the
// build (Finish returns it), never a write to another column. The builder fills the lineage
// columns and the common fields source_id, source_row_number, raw_file_sha256 and as_of
// itself; the adapter gives each row its source_record_key.
type Rows struct {
	cap   *capability.Capability
	cols  []capability.Field
	idx   map[string]int
	rows  []snapshots.Row
	errs  []error
	nerr  int
	cells map[CellKey]map[string]int
}

// NewRows starts the rows of capability c.
func NewRows(c *capability.Capability) *Rows {
	cols := snapshots.Columns(c)
	idx := make(map[string]int, len(cols))
	for i, f := range cols {
		idx[f.Name] = i
	}
	return &Rows{cap: c, cols: cols, idx: idx, cells: map[CellKey]map[string]int{}}
}

// Row is one fact row being built.
type Row struct {
	rs  *Rows
	r   snapshots.Row
	lin Lineage
}

// Add starts a row read at l.
func (rs *Rows) Add(l Lineage) *Row {
	r := &Row{rs: rs, r: make(snapshots.Row, len(rs.cols)), lin: l}
	set := func(name string, v any) { r.r[rs.idx[name]] = v }
	set(capability.ColSourceID, l.SourceID)
	set(capability.ColSourceFile, l.File)
	set(capability.ColSheet, l.Sheet)
	set(capability.ColSourceRow, int64(l.Row))
	set(capability.ColRawSHA256, l.SHA256)
	set(capability.FieldSourceID, l.SourceID)
	set(capability.FieldSourceRow, int64(l.Row))
	set(capability.FieldRawSHA256, l.SHA256)
	rs.rows = append(rs.rows, r.r)
	return r
}

// Len is the number of rows added.
func (rs *Rows) Len() int { return len(rs.rows) }

func (rs *Rows) fail(r *Row, format string, args ...any) {
	rs.nerr++
	if len(rs.errs) < 5 {
		rs.errs = append(rs.errs, fmt.Errorf("%s %s row %d: %s", r.lin.File, r.lin.Sheet, r.lin.Row, fmt.Sprintf(format, args...)))
	}
}

var isoDate = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$`)

// Set sets field to v (nil for null). Integers may be given as any Go integer type, numbers
// as float64 or an integer; dates as "YYYY-MM-DD" strings.
func (r *Row) Set(field string, v any) *Row {
	i, ok := r.rs.idx[field]
	if !ok || field[0] == '_' {
		r.rs.fail(r, "%s is not a field of %s", field, r.rs.cap.ID)
		return r
	}
	f := r.rs.cols[i]
	val, err := coerce(f, v)
	if err != nil {
		r.rs.fail(r, "field %s: %v", field, err)
		return r
	}
	r.r[i] = val
	return r
}

// SetCell sets field to v read from 1-based column col of the row's sheet, and records the
// column, so a test can compare every published value with the literal cell it cites and the
// aggregate evidence can re-read it. A field read from one column on every row of a sheet is
// recorded once for the sheet; on a sheet where the column varies by row, the rows that
// differ are recorded each. A field whose definition declares a column chosen by another
// field (capability.CellRule.ColumnBy: a wide sheet, one column per line or series, so one
// sheet row holds several fact rows) is recorded by that field's value on the row, which must
// be set first; one value read from two columns of a sheet fails the build.
func (r *Row) SetCell(field string, col int, v any) *Row {
	r.Set(field, v)
	if col <= 0 {
		return r
	}
	k := CellKey{File: r.lin.File, Sheet: r.lin.Sheet}
	if f := r.rs.cols[r.rs.idx[field]]; f.Cell != nil && f.Cell.ColumnBy != "" {
		by := r.Get(f.Cell.ColumnBy)
		if by == nil {
			r.rs.fail(r, "field %s is read from the column its %s chooses, but %s is not set (set it before %s)", field, f.Cell.ColumnBy, f.Cell.ColumnBy, field)
			return r
		}
		k.By = fmt.Sprint(by)
		m := r.rs.cells[k]
		if m == nil {
			m = map[string]int{}
			r.rs.cells[k] = m
		}
		if prev, ok := m[field]; ok && prev != col {
			r.rs.fail(r, "field %s: %s %q is read from column %s here and from column %s on another row of the sheet", field, f.Cell.ColumnBy, k.By, grid.ColumnName(col), grid.ColumnName(prev))
			return r
		}
		m[field] = col
		return r
	}
	m := r.rs.cells[k]
	if m == nil {
		m = map[string]int{}
		r.rs.cells[k] = m
	}
	prev, ok := m[field]
	if !ok {
		m[field] = col
		return r
	}
	if prev != col {
		k.Row = r.lin.Row
		rm := r.rs.cells[k]
		if rm == nil {
			rm = map[string]int{}
			r.rs.cells[k] = rm
		}
		rm[field] = col
	}
	return r
}

// CellColumnBy is the column field was read from on a sheet of file where the value of the
// field that chooses its column (capability.CellRule.ColumnBy) is by; 0 when none is recorded.
func CellColumnBy(cells map[CellKey]map[string]int, file, sheet, by, field string) int {
	return cells[CellKey{File: file, Sheet: sheet, By: by}][field]
}

// CellColumn is the column field was read from on row of file and sheet (0 when it was not
// read from a cell), given the record of SetCell.
func CellColumn(cells map[CellKey]map[string]int, file, sheet string, row int, field string) int {
	if c, ok := cells[CellKey{File: file, Sheet: sheet, Row: row}][field]; ok {
		return c
	}
	return cells[CellKey{File: file, Sheet: sheet}][field]
}

// Get returns the value set for field (nil when null or unset).
func (r *Row) Get(field string) any {
	if i, ok := r.rs.idx[field]; ok {
		return r.r[i]
	}
	return nil
}

// Key sets the row's source_record_key.
func (r *Row) Key(key string) *Row { return r.Set(capability.FieldRecordKey, key) }

func coerce(f capability.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case capability.String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case capability.Date:
		if s, ok := v.(string); ok {
			if !isoDate.MatchString(s) {
				return nil, fmt.Errorf("%q is not a YYYY-MM-DD date", s)
			}
			return s, nil
		}
	case capability.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case capability.Integer:
		switch x := v.(type) {
		case int64:
			return x, nil
		case int:
			return int64(x), nil
		case int32:
			return int64(x), nil
		}
	case capability.Number:
		switch x := v.(type) {
		case float64:
			return x, nil
		case int64:
			return float64(x), nil
		case int:
			return float64(x), nil
		}
	}
	return nil, fmt.Errorf("%v (%T) is not a value of type %s", v, v, f.Type)
}

// Finish sets every row's as_of and returns the rows, or the first errors of the build (at
// most five, with the count) when a cell was set wrongly or a row has no source_record_key.
func (rs *Rows) Finish(asOf string) ([]snapshots.Row, error) {
	ai, ki := rs.idx[capability.FieldAsOf], rs.idx[capability.FieldRecordKey]
	for n, r := range rs.rows {
		r[ai] = asOf
		if r[ki] == nil {
			rs.fail(&Row{lin: lineageOf(rs, r)}, "no source_record_key (row %d of the build)", n)
		}
	}
	if !isoDate.MatchString(asOf) {
		rs.nerr++
		rs.errs = append(rs.errs, fmt.Errorf("as_of %q is not a YYYY-MM-DD date", asOf))
	}
	if rs.nerr > 0 {
		err := errors.Join(rs.errs...)
		if rs.nerr > len(rs.errs) {
			err = fmt.Errorf("%w\n(and %d more)", err, rs.nerr-len(rs.errs))
		}
		return nil, fmt.Errorf("%s rows: %w", rs.cap.ID, err)
	}
	return rs.rows, nil
}

// Cells is the column each field was read from, per file and sheet (SetCell).
func (rs *Rows) Cells() map[CellKey]map[string]int { return rs.cells }

func lineageOf(rs *Rows, r snapshots.Row) Lineage {
	l := Lineage{}
	l.File, _ = r[rs.idx[capability.ColSourceFile]].(string)
	l.Sheet, _ = r[rs.idx[capability.ColSheet]].(string)
	n, _ := r[rs.idx[capability.ColSourceRow]].(int64)
	l.Row = int(n)
	return l
}

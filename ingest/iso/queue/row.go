package queue

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
)

// setRow sets every published column of row r, the normalized fields read from one cell,
// then the derived fields (DerivedFields), and counts the raw values no table maps.
func (op *Operator) setRow(row *ingest.Row, sh *grid.Sheet, r int, sr *sheetRead, bad *kit.Problems, unmapped map[string]int) {
	cols := make([]int, 0, len(sr.extra))
	for c := range sr.extra {
		cols = append(cols, c)
	}
	sort.Ints(cols)
	for _, c := range cols {
		op.setCell(row, sr.extra[c], sh, r, c, bad)
	}
	names := make([]string, 0, len(sr.norm))
	for f := range sr.norm {
		if !isDerived(f) {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		op.setCell(row, f, sh, r, sr.norm[f], bad)
	}
	pub := sr.published(row)
	for _, d := range DerivedFields {
		if _, ok := op.Cap.Field(d.Field); ok {
			row.Set(d.Field, d.Value(op, pub))
		}
	}
	if _, ok, key := op.status(pub); !ok && key != "" {
		unmapped[fmt.Sprintf("status %q on sheet %s", key, sr.spec.Name)]++
	}
	_, types := op.generationType(pub)
	_, progress := op.progress(pub)
	_, kind := op.requestKind(pub)
	for _, v := range append(types, progress, kind) {
		if v != "" {
			unmapped[v]++
		}
	}
}

// isDerived reports whether normalized field f is derived (DerivedFields), never read from
// one cell as it stands.
func isDerived(f string) bool {
	for _, d := range DerivedFields {
		if d.Field == f && f != "status_raw" {
			return true
		}
	}
	return false
}

// setCell reads the cell of row r, column c, as field f's type (ReadCell), recording the
// column where the value is the cell's own.
func (op *Operator) setCell(row *ingest.Row, f string, sh *grid.Sheet, r, c int, bad *kit.Problems) {
	v, fromCell, err := op.ReadCell(f, sh.Cell(r, c))
	if err != nil {
		bad.Add("%s!%s%d (%s): %v", sh.Name, grid.ColumnName(c), r, f, err)
		if fd, _ := op.Cap.Field(f); fd.Type == capability.Date {
			return
		}
	}
	if fromCell {
		row.SetCell(f, c, v)
	} else {
		row.Set(f, v)
	}
}

var isoStamp = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}`)

// textDate reads the dates kit.Date does not: ISO 8601 time stamps with fractions or an
// offset (the calendar date as written is kept), then the operator's own fallback. This
// belongs in kit.
func textDate(s string, fallback func(string) (string, bool)) (string, bool) {
	if m := isoStamp.FindStringSubmatch(s); m != nil {
		if _, err := kit.ParseDate(m[1]); err == nil {
			return m[1], true
		}
	}
	if fallback != nil {
		return fallback(s)
	}
	return "", false
}

// published is row as the derived fields read it.
func (sr *sheetRead) published(row *ingest.Row) Published {
	return Published{Sheet: sr.spec, Get: row.Get, Has: func(f string) bool { return sr.norm[f] > 0 }}
}

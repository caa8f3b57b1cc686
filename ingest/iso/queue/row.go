package queue

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// setRow sets every published column of row r and the normalized fields.
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
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		op.setCell(row, f, sh, r, sr.norm[f], bad)
	}
	raw, _ := row.Get("status_raw").(string)
	if raw == "" && sr.spec.Status != "" {
		raw = sr.spec.Status
		if sr.norm["status_raw"] == 0 {
			row.Set("status_raw", raw)
		}
	}
	key := raw
	if key == "" && sr.norm["status_raw"] > 0 {
		key = BlankStatus
	}
	st, ok := op.Statuses[sr.spec.Name+"|"+key]
	if detail := row.Get(op.StatusDetail); !ok && op.StatusDetail != "" && detail != nil {
		if st, ok = op.Statuses[fmt.Sprintf("%s / %v", key, detail)]; !ok {
			st, ok = op.Statuses[key+" / *"]
		}
	}
	if !ok {
		st, ok = op.Statuses[key]
	}
	switch {
	case ok:
		row.Set("status", st.Norm)
	case key == "":
		// no status column: headers_present says so
	default:
		unmapped[fmt.Sprintf("status %q on sheet %s", key, sr.spec.Name)]++
	}
	types := map[string]bool{}
	for i, f := range append([]string{"generation_type_raw"}, op.MoreTypes...) {
		t, _ := row.Get(f).(string)
		if t == "" {
			continue
		}
		n, ok := op.Types[t]
		if d, _ := row.Get(op.TypeDetail).(string); i == 0 && op.TypeDetail != "" && d != "" {
			if dn, dok := op.Types[t+" / "+d]; dok {
				n, ok = dn, true
			}
		}
		if !ok {
			unmapped[fmt.Sprintf("generation type %q", t)]++
			continue
		}
		if n != "" {
			types[n] = true
			if i == 0 {
				row.Set("generation_type", n)
			}
		}
	}
	if len(types) > 1 {
		row.Set("generation_type", "hybrid")
	}
	progress := st.Progress
	if st.Norm == "withdrawn" {
		progress = "withdrawn"
	}
	if progress == "" && op.ProgressField != "" {
		if v, _ := row.Get(op.ProgressField).(string); v != "" {
			if p, ok := op.Progress[v]; ok {
				progress = p
			} else {
				unmapped[fmt.Sprintf("%s %q", op.ProgressField, v)]++
			}
		}
	}
	if progress != "" {
		row.Set("ia_progress", progress)
	}
}

// setCell reads the cell of row r, column c, as field f's type.
func (op *Operator) setCell(row *ingest.Row, f string, sh *grid.Sheet, r, c int, bad *kit.Problems) {
	fd, _ := op.Cap.Field(f)
	cell := sh.Cell(r, c)
	where := fmt.Sprintf("%s!%s%d", sh.Name, grid.ColumnName(c), r)
	switch fd.Type {
	case capability.Number:
		v, err := kit.Number(cell, op.Blank...)
		if err != nil {
			bad.Add("%s (%s): %v", where, f, err)
		}
		row.SetCell(f, c, v)
	case capability.Date:
		if kit.Blank(cell, op.Blank...) {
			row.Set(f, nil)
			return
		}
		if v, err := kit.Date(cell); err == nil {
			if v == "1900-01-01" || v == "1899-12-31" {
				v = nil // the publisher's mark for an unknown date
			}
			row.SetCell(f, c, v)
			return
		}
		if v, ok := textDate(cell.Value, op.DateFallback); ok {
			if v == "" {
				row.Set(f, nil)
			} else {
				row.Set(f, v)
			}
			return
		}
		bad.Add("%s (%s): %q is not a date", where, f, cell.Value)
	default:
		row.SetCell(f, c, kit.Text(cell, op.Blank...))
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

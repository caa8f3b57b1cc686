package queue

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Gate names of the queue model, besides the generic ones of package kit.
const (
	// GateMapped fails when a raw status, generation type or progress value has no
	// normalized meaning in the operator's tables; it names the values.
	GateMapped = "values_mapped"
	// GateDefects names the known defects of the file handled as data; it fails when a row
	// declared a placeholder holds data.
	GateDefects = "known_defects"
)

// sheetRead is what one sheet's header says: the field of each column.
type sheetRead struct {
	spec    Sheet
	sh      *grid.Sheet
	header  *kit.Header
	first   int            // first data row
	extra   map[int]string // column -> published-column field
	norm    map[string]int // normalized field -> column
	keyCol  int
	pattern *regexp.Regexp
	missing []string
}

// build is what the files of one snapshot add up to beyond the kit.Book's generic faults
// (missing sheets are its Incomplete, header faults its Missing and the headers read its
// Found): the known defects, the values no table maps, and the sheets each file holds.
type build struct {
	defects, read []string
	// defectFaults are rows declared known defects that the file contradicts.
	defectFaults []string
	unmapped     map[string]int
}

// queueRanges are the plausible ranges of the requested MW.
var queueRanges = map[string]snapshots.Range{
	"requested_mw": {Min: -10000, Max: 100000}, "requested_mw_summer": {Min: -10000, Max: 100000},
	"requested_mw_winter": {Min: -10000, Max: 100000}, "requested_mw_net": {Min: -10000, Max: 100000},
}

// open is the Open hook of op's files (the operator's own, a companion's or another form's):
// the snapshot's as_of from the plan's first data file, then the project rows of every sheet,
// with the marks the cells were read as blank with, for the aggregate evidence.
func (op *Operator) open(fr *kit.FileRead) error {
	if len(fr.Book.Files) == 1 {
		asOf, err := op.AsOf(fr.WB, fr.Name)
		if err != nil {
			return fmt.Errorf("%s: as_of: %w", fr.Name, err)
		}
		fr.Book.AsOf = asOf
	}
	op.buildFile(fr, fr.Book.State.(*build))
	fr.Source.BlankMarks = op.Blank
	return nil
}

// gates are a queue snapshot's gates.
func gates(b *kit.Book) []snapshots.Gate {
	bd := b.State.(*build)
	var notMapped []string
	for v, n := range bd.unmapped {
		notMapped = append(notMapped, fmt.Sprintf("%s (%d rows)", v, n))
	}
	sort.Strings(notMapped)
	if len(bd.defects) == 0 {
		bd.defects = []string{"none found"}
	}
	defects := snapshots.Gate{Name: GateDefects, Passed: true, Detail: strings.Join(bd.defects, "; ")}
	if len(bd.defectFaults) > 0 {
		defects = snapshots.Gate{Name: GateDefects, Detail: strings.Join(bd.defectFaults, "; ")}
	}
	return []snapshots.Gate{
		b.CompleteGate("every sheet read: " + strings.Join(bd.read, "; ")),
		b.HeadersGate(strings.Join(b.Found, "; ")),
		b.CellsGate(fmt.Sprintf("%d project rows parsed", len(b.Facts))),
		b.Rec.Gate(),
		kit.Failures(GateMapped, notMapped, "every raw status, generation type and progress value of the files is mapped"),
		defects,
	}
}

// forFile is the operator (this one or a companion) whose files are named like name.
func (op *Operator) forFile(name string) *Operator {
	if op.File.MatchString(name) {
		return op
	}
	for _, c := range slices.Concat(op.Companions, op.Forms) {
		if c.File.MatchString(name) {
			return c
		}
	}
	return nil
}

// buildFile adds the project rows of every sheet of one file.
func (op *Operator) buildFile(fr *kit.FileRead, bd *build) {
	b, f, name, wb := fr.Book, fr.File, fr.Name, fr.WB
	bd.read = append(bd.read, name+": "+strings.Join(wb.SheetNames(), ", "))
	for _, spec := range op.Sheets {
		sh := wb.Sheet(spec.Name)
		if sh == nil {
			if !spec.Optional {
				b.Incomplete = append(b.Incomplete, fmt.Sprintf("%s: no sheet %q (sheets: %s)", name, spec.Name, strings.Join(wb.SheetNames(), ", ")))
			}
			continue
		}
		sr := op.readHeader(sh, spec)
		fr.Source.HeaderRows[spec.Name] = spec.Header
		if len(sr.missing) > 0 {
			b.Missing = append(b.Missing, fmt.Sprintf("%s sheet %s: %s", name, spec.Name, strings.Join(sr.missing, "; ")))
		} else {
			b.Found = append(b.Found, fmt.Sprintf("%s %s: %d columns", name, spec.Name, len(sr.extra)))
		}
		n, sum := 0, 0.0
		states := &stateFixes{}
		seen := map[string]int{}
		var repeated []string
		for r := sr.first; r <= sh.NumRows(); r++ {
			if !sr.isProject(sh.Row(r)) {
				continue
			}
			key := ""
			if sr.keyCol > 0 {
				key = strings.TrimSpace(sh.Cell(r, sr.keyCol).Value)
			}
			if first, dup := seen[key]; dup && op.RepeatedIDs {
				repeated = append(repeated, fmt.Sprintf("%s (rows %d and %d)", key, first, r))
			} else if !dup {
				seen[key] = r
			}
			if why, ok := op.Skip[key]; ok {
				bd.defects = append(bd.defects, fmt.Sprintf("%s %s row %d (%s) dropped: %s", name, spec.Name, r, key, why))
				continue
			}
			row := b.Rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: spec.Name, Row: r, SHA256: f.SHA256})
			row.Set("sheet", spec.Name)
			row.Key(fmt.Sprintf("%s!%s!%d:%s", f.SourceID, spec.Name, r, key))
			op.setRow(row, sh, r, sr, &b.Bad, bd.unmapped)
			op.nameDefects(sr.published(row), fmt.Sprintf("%s %s row %d (%s)", name, spec.Name, r, key), bd, states)
			n++
			if v, ok := row.Get("requested_mw").(float64); ok {
				sum += v
			}
		}
		if len(repeated) > 0 {
			bd.defects = append(bd.defects, fmt.Sprintf("%s %s: %d rows repeat a queue id of an earlier row, kept as published, e.g. %s",
				name, spec.Name, len(repeated), strings.Join(repeated[:min(3, len(repeated))], ", ")))
		}
		bd.defects = append(bd.defects, states.named()...)
		sheetN, sheetSum := op.secondReading(sh, sr)
		b.Rec.Sheet(name+" "+spec.Name, n, sum, sheetN, sheetSum, "MW")
	}
}

// readHeader finds the field of every column of the sheet's header row.
func (op *Operator) readHeader(sh *grid.Sheet, spec Sheet) *sheetRead {
	sr := &sheetRead{spec: spec, sh: sh, extra: map[int]string{}, norm: map[string]int{}}
	span := max(spec.HeaderRows, 1)
	sr.first = spec.Header + span
	labels := headerLabels(sh, spec.Header, span)
	sr.header = kit.HeaderAt(sh, spec.Header)
	byNorm := map[string]int{}
	for c, l := range labels {
		if l != "" {
			if _, dup := byNorm[kit.Norm(l)]; !dup {
				byNorm[kit.Norm(l)] = c + 1
			}
		}
	}
	cols := map[string]string{}
	for _, qc := range capability.QueueColumns(op.Cap.ID) {
		cols[kit.Norm(qc.Header)] = qc.Name
	}
	for c, l := range labels {
		if l == "" {
			continue
		}
		fld, ok := cols[kit.Norm(l)]
		if !ok {
			sr.missing = append(sr.missing, fmt.Sprintf("column %s %q has no field", grid.ColumnName(c+1), l))
			continue
		}
		sr.extra[c+1] = fld
	}
	for fld, hs := range op.Fields {
		for _, h := range hs {
			if c := byNorm[kit.Norm(h)]; c > 0 {
				sr.norm[fld] = c
				break
			}
		}
	}
	sr.keyCol, sr.pattern = byNorm[kit.Norm(op.Key)], op.KeyPattern
	if sr.keyCol == 0 {
		sr.missing = append(sr.missing, fmt.Sprintf("no key column %q", op.Key))
	}
	for _, fld := range op.Required {
		if sr.norm[fld] == 0 && !(fld == "status_raw" && spec.Status != "") {
			sr.missing = append(sr.missing, fmt.Sprintf("no column for %s (%q)", fld, strings.Join(op.Fields[fld], `" or "`)))
		}
	}
	return sr
}

// headerLabels joins the labels of a header that spans rows, column by column.
func headerLabels(sh *grid.Sheet, row, span int) []string {
	var out []string
	for r := row; r < row+span; r++ {
		for c, cell := range sh.Row(r) {
			for len(out) <= c {
				out = append(out, "")
			}
			if t := kit.Squash(cell.Value); t != "" {
				out[c] = strings.TrimSpace(out[c] + " " + t)
			}
		}
	}
	return out
}

// isProject reports whether a data row is a project: its key cell (or, without a key
// column, any cell) is not blank, and it is not a footnote.
func (sr *sheetRead) isProject(row []grid.Cell) bool {
	if sr.keyCol > 0 {
		if sr.keyCol > len(row) || kit.Blank(row[sr.keyCol-1]) {
			return false
		}
		if sr.pattern != nil && !sr.pattern.MatchString(strings.TrimSpace(row[sr.keyCol-1].Value)) {
			return false
		}
		return !kit.IsNote(row)
	}
	for _, c := range row {
		if !kit.Blank(c) {
			return !kit.IsNote(row)
		}
	}
	return false
}

// minProjectCells is how many published cells a row of a queue sheet holds at least to be
// counted by the second reading: a footnote, a legend or a count line below the table fills
// one or two, a project row many (seven at the fewest in the files here).
const minProjectCells = 3

// secondReading counts the sheet's rows below the header that hold at least minProjectCells
// published cells, less the rows the operator declares not projects (Skip), and sums the
// headline MW column straight from the cells' text. It shares nothing with the build's row
// selection (isProject: the key cell, KeyPattern, the note test), so a selection that drops
// a project, or takes a footnote for one, fails totals_reconcile.
func (op *Operator) secondReading(sh *grid.Sheet, sr *sheetRead) (int, float64) {
	n, sum := 0, 0.0
	mwCol := sr.norm["requested_mw"]
	for r := sr.first; r <= sh.NumRows(); r++ {
		if kit.Filled(sh.Row(r)) < minProjectCells {
			continue
		}
		if sr.keyCol > 0 {
			if _, skip := op.Skip[strings.TrimSpace(sh.Cell(r, sr.keyCol).Value)]; skip {
				continue
			}
		}
		n++
		if mwCol > 0 {
			if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, mwCol).Value), 64); err == nil {
				sum += x
			}
		}
	}
	return n, sum
}

// nameDefects names in the known_defects gate the row's known defect and state correction
// (where says which row it is); a declared placeholder that holds data is a fault.
func (op *Operator) nameDefects(r Published, where string, bd *build, states *stateFixes) {
	switch op.knownDefect(r) {
	case capability.QueuePlaceholder:
		why := op.Placeholders[r.text("queue_id")]
		var held []string
		for _, f := range []string{"queue_date", "county", "poi", "generation_type_raw"} {
			if r.Get(f) != nil {
				held = append(held, fmt.Sprintf("%s %v", f, r.Get(f)))
			}
		}
		if s := op.publishedState(r); s != "" {
			held = append(held, "state "+s)
		}
		if mw, ok := r.Get("requested_mw").(float64); ok && mw != 0 {
			held = append(held, fmt.Sprintf("requested_mw %g", mw))
		}
		if len(held) > 0 {
			bd.defectFaults = append(bd.defectFaults, fmt.Sprintf("%s is declared a placeholder (%s) but holds %s: it may be a project; take it out of the operator's Placeholders", where, why, strings.Join(held, ", ")))
			return
		}
		bd.defects = append(bd.defects, fmt.Sprintf("%s is a placeholder, not a project (%s): kept as published with known_defect placeholder, no normalized status and not counted", where, why))
	case capability.QueueNoID:
		bd.defects = append(bd.defects, fmt.Sprintf("%s is a project published without a queue id: kept and counted with known_defect no_queue_id, not matched between snapshots", where))
	}
	if op.MovedTo != nil && op.MovedTo.MatchString(r.text("queue_id")) {
		states.moved = append(states.moved, r.text("queue_id"))
	}
	if code, why := op.state(r); why != "" {
		states.add(fmt.Sprintf("state %q is %s (%s), the published text kept in its column", op.publishedState(r), code, why), where)
	}
}

// stateFixes collects the rows of one sheet whose state was normalized, by correction, and
// the queue ids marked as moved to another queue.
type stateFixes struct {
	order []string
	rows  map[string][]string
	moved []string
}

func (s *stateFixes) add(fix, where string) {
	if s.rows == nil {
		s.rows = map[string][]string{}
	}
	if _, ok := s.rows[fix]; !ok {
		s.order = append(s.order, fix)
	}
	s.rows[fix] = append(s.rows[fix], where)
}

// named is each correction with its rows, for the known_defects gate.
func (s *stateFixes) named() []string {
	var out []string
	for _, fix := range s.order {
		rows := s.rows[fix]
		out = append(out, fmt.Sprintf("%s on %s: %s", fix, plural(len(rows), "row"), strings.Join(rows, ", ")))
	}
	if n := len(s.moved); n > 0 {
		out = append(out, fmt.Sprintf("%s marked as moved to a transition cycle (e.g. %s), kept with moved_to_cycle true: those projects are counted in the cycle queue too",
			plural(n, "queue id"), strings.Join(s.moved[:min(3, n)], ", ")))
	}
	return out
}

// plural is n with its noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

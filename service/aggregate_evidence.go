package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/snapshots"
)

// Error codes of the aggregate evidence.
const (
	// CodeEvidenceLineage: the lineage filter names what the snapshot does not hold.
	CodeEvidenceLineage = "invalid_lineage_filter"
	// CodeEvidenceCellsUnknown: the snapshot does not record which column each field was
	// read from (it was written before manifests recorded it).
	CodeEvidenceCellsUnknown = "evidence_cells_unknown"
)

// AggregateEvidencePath is the REST path of the aggregate evidence.
const AggregateEvidencePath = "/v1/evidence/aggregate"

// aggregateRequest is the body of the aggregate evidence: the capability, the metric, and
// the aggregate citation (or its lineage_filter and as_of).
type aggregateRequest struct {
	Capability    string          `json:"capability"`
	AsOf          string          `json:"as_of"`
	Metric        string          `json:"metric"`
	Citation      json.RawMessage `json:"citation"`
	LineageFilter json.RawMessage `json:"lineage_filter"`
	// Value, when given, is the figure the caller read; the answer says whether it is the one
	// recomputed.
	// A number or its text, by the rule of every JSON body.
	Value *json.Number `json:"value"`
}

// lineageFilter is an aggregate citation's lineage_filter: the cited rows are the rows of
// SourceFile whose value of each filter is one of its list (null matches null), whose date
// columns lie within DateRanges, and that match no group of Excludes.
type lineageFilter struct {
	SourceFile string                       `json:"source_file"`
	SHA256     string                       `json:"raw_file_sha256"`
	Filters    map[string][]json.RawMessage `json:"filters"`
	DateRanges map[string]struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"date_ranges"`
	Excludes []map[string]json.RawMessage `json:"excludes"`
}

// AggregateEvidenceJSON verifies a whole aggregate: it selects the rows the citation's
// lineage_filter cites in the snapshot's fact table (only their sheet and row numbers are
// used), re-opens the raw file by sha256 and re-hashes it, reads the literal cell of every
// cited row in the column each field was read from at ingest, recomputes the metric from
// those cells alone, and says whether it equals the figure served for those rows.
func (s *Service) AggregateEvidenceJSON(body []byte) ([]byte, *Error) {
	const shape = `{"capability":"power.capacity","metric":"nameplate_mw","citation":{an aggregate citation of a query answer}} (or "lineage_filter" and "as_of" instead of "citation")`
	var req aggregateRequest
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return nil, errf(400, CodeInvalidRequest, "the body does not parse (%v); send %s", err, shape)
	}
	c := capability.ByID(req.Capability)
	if c == nil {
		c = capability.ByPath(req.Capability)
	}
	if c == nil {
		return nil, errf(400, CodeInvalidRequest, "capability %q is not defined; give the identifier of a served capability (GET /v1/capabilities lists them) and send %s", req.Capability, shape)
	}
	if len(c.Inputs) > 0 {
		return nil, errf(400, CodeInvalidRequest, "%s is computed at query time from %s, so its aggregates are not recomputed from one file: each of its citations cites rows of one input; verify them row by row with %s (a citation's verify member), or query %s and verify their own aggregates here",
			c.ID, join(c.Inputs), "/v1/evidence/source-row", join(c.Inputs))
	}
	if _, e := s.resolve(c.Path); e != nil {
		return nil, e
	}
	m, ok := c.Metric(req.Metric)
	if !ok {
		return nil, errf(400, CodeInvalidParameter, "metric %q is not a metric of %s; valid: %s", req.Metric, c.ID, join(c.MetricNames()))
	}
	lfJSON, asOf, e := lineageOf(req)
	if e != nil {
		return nil, e
	}
	var lf lineageFilter
	ldec := json.NewDecoder(bytes.NewReader(lfJSON))
	ldec.DisallowUnknownFields()
	if err := ldec.Decode(&lf); err != nil {
		return nil, errf(400, CodeEvidenceLineage, "the lineage_filter does not parse (%v); pass it exactly as the aggregate citation gives it", err)
	}
	m2, dates := s.served(c.ID)
	snap, ok := m2[asOf]
	if !ok {
		return nil, errf(400, CodeInvalidParameter, "as_of %q is not a served snapshot of %s; the citation's as_of must be one of: %s", asOf, c.ID, join(dates))
	}
	src, ok := snap.sources[lf.SourceFile]
	if !ok || src.Role != "data" || src.SHA256 != lf.SHA256 {
		return nil, errf(400, CodeEvidenceLineage, "the %s snapshot as_of %s has no data file %q with sha256 %q; its data files are: %s", c.ID, asOf, lf.SourceFile, lf.SHA256, dataFiles(snap))
	}
	if len(src.Cells) == 0 {
		return nil, errf(400, CodeEvidenceCellsUnknown, "the %s snapshot as_of %s records no column its fields are read from in %s: either the snapshot was written before snapshots recorded them (rebuild it: delete its directory under snapshots/%s/%s in the data directory and run citeq ingest again; the same files give the same as_of and answers), or the file holds its values in a column per series rather than per field, and the aggregate cannot be recomputed from it: verify its rows one by one with /v1/evidence/source-row", c.ID, asOf, lf.SourceFile, c.ID, asOf)
	}
	rows, e := selectCited(c, snap, lf)
	if e != nil {
		return nil, e
	}
	wb, computed, e := s.openRaw(src)
	if e != nil {
		return nil, e
	}
	cells, _, err := snap.Table.TextsOf([]string{capability.ColSheet, capability.ColSourceRow}, rows)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	r := recompute{m: m, c: c, src: src, wb: wb}
	if e := r.read(snap, rows, cells[0], cells[1]); e != nil {
		return nil, e
	}
	recomputed := r.value()
	served, err := servedValue(snap.Table, m, rows)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	equal := sameFigure(recomputed, served)
	out := Obj{
		{"verified", equal},
		{"equal", equal},
		{"capability", c.ID},
		{"as_of", asOf},
		{"metric", m.Name},
		{"aggregation", string(m.Agg)},
		{"unit", r.unitText()},
		{"recomputed", recomputed},
		{"served", served},
		{"rows", len(rows)},
	}
	if req.Value != nil {
		x, err := strconv.ParseFloat(strings.TrimSpace(req.Value.String()), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errf(400, CodeInvalidRequest, "value must be a number (1234.5 or \"1234.5\"), got %s", req.Value)
		}
		given := Num{V: x, Valid: true}
		out = append(out, KV{"value_given", given}, KV{"equal_to_value_given", sameFigure(recomputed, given)})
	}
	out = append(out,
		KV{"source_file", src.File},
		KV{"raw_file_sha256", src.SHA256},
		KV{"computed_sha256", computed},
		KV{"cells_read", r.cellsRead},
		KV{"empty_cells", r.empty},
		KV{"non_numeric_cells", r.nonNumeric},
		KV{"non_numeric_sample", orEmpty(r.nonNumericSample)},
		KV{"columns", orEmpty(r.columnsDoc())},
		KV{"lineage_filter", rawJSON(mustCompact(lfJSON))},
		KV{"method", "The rows the lineage filter selects in the snapshot's fact table give only the cited sheets and row numbers. The raw file was found by its sha256, re-hashed now, and each cited row's cell was read in the column the field was read from at ingest (columns); each value is the number the literal text of that cell spells (an empty cell is null; a cell that spells no number is null and counted in non_numeric_cells). The metric is recomputed from those values alone and compared with the figure served for the same rows (equal to 15 significant digits)."},
	)
	return mustJSON(out), nil
}

// lineageOf returns the lineage filter and as_of of a request: from its citation, or from its
// lineage_filter and as_of members.
func lineageOf(req aggregateRequest) (json.RawMessage, string, *Error) {
	hasCite, hasLF := len(req.Citation) > 0 && string(req.Citation) != "null", len(req.LineageFilter) > 0 && string(req.LineageFilter) != "null"
	switch {
	case hasCite && hasLF:
		return nil, "", errf(400, CodeInvalidRequest, "give the aggregate citation or its lineage_filter, not both")
	case hasLF:
		if req.AsOf == "" {
			return nil, "", errf(400, CodeInvalidRequest, "with lineage_filter, give as_of too (the as_of of the answer it comes from), or send the whole aggregate citation as citation")
		}
		return req.LineageFilter, req.AsOf, nil
	case hasCite:
		var cite struct {
			AsOf          string          `json:"as_of"`
			LineageFilter json.RawMessage `json:"lineage_filter"`
		}
		if err := json.Unmarshal(req.Citation, &cite); err != nil || len(cite.LineageFilter) == 0 {
			return nil, "", errf(400, CodeEvidenceInvalid, "citation must be an aggregate citation of a query answer, with its as_of and lineage_filter (a member of the answer's citations)")
		}
		if req.AsOf != "" && req.AsOf != cite.AsOf {
			return nil, "", errf(400, CodeInvalidParameter, "as_of %q differs from the citation's as_of %q; omit as_of, the citation states it", req.AsOf, cite.AsOf)
		}
		return cite.LineageFilter, cite.AsOf, nil
	}
	return nil, "", errf(400, CodeInvalidRequest, "give the aggregate citation to verify as citation (a member of a query answer's citations), or its lineage_filter with as_of")
}

func dataFiles(snap *Snapshot) string {
	var out []string
	for _, src := range snap.Manifest.DataSources() {
		out = append(out, src.File+" ("+src.SHA256+")")
	}
	return join(out)
}

func mustCompact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// allow is the set of values of one Dict column a filter allows: codes, and null.
type allow struct {
	col   *columnar.Column
	codes []bool
	null  bool
}

func (a allow) has(row int) bool {
	code := a.col.Codes[row]
	if code < 0 {
		return a.null
	}
	return a.codes[code]
}

// filterValue is the canonical text of one value of a lineage filter (as the snapshot's
// dictionary writes it), or null.
func filterValue(f capability.Field, v json.RawMessage) (text string, null bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return "", false, err
	}
	switch t := x.(type) {
	case nil:
		return "", true, nil
	case string:
		return t, false, nil
	case bool:
		return strconv.FormatBool(t), false, nil
	case json.Number:
		if f.Type == capability.Integer {
			n, err := strconv.ParseInt(t.String(), 10, 64)
			if err != nil {
				return "", false, fmt.Errorf("%s takes integers, got %s", f.Name, t)
			}
			return strconv.FormatInt(n, 10), false, nil
		}
		return t.String(), false, nil
	}
	return "", false, fmt.Errorf("a value of %s must be a string, number, boolean or null, got %s", f.Name, v)
}

// lineageColumn is the Dict column of a lineage filter member, which must be a filter or a
// group_by dimension of c.
func lineageColumn(c *capability.Capability, snap *Snapshot, name string) (capability.Field, *columnar.Column, *Error) {
	f, ok := c.Field(name)
	if !ok || !(f.Filter || f.GroupBy) {
		return f, nil, errf(400, CodeEvidenceLineage, "%q is not a filter or group_by dimension of %s; pass the lineage_filter exactly as the citation gives it", name, c.ID)
	}
	col, err := snap.Table.Column(name)
	if err != nil {
		return f, nil, unreadable(snap, err)
	}
	if col.Kind != columnar.Dict {
		return f, nil, errf(500, CodeInternal, "column %s of %s is not held as a dictionary; report it", name, c.ID)
	}
	return f, col, nil
}

// selectCited returns the fact-table rows lf cites, in table order.
func selectCited(c *capability.Capability, snap *Snapshot, lf lineageFilter) ([]int, *Error) {
	t := snap.Table
	fileCol, err := t.Column(capability.ColSourceFile)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	fileCode := fileCol.Lookup(lf.SourceFile)
	var allows []allow
	names := make([]string, 0, len(lf.Filters))
	for name := range lf.Filters {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f, col, e := lineageColumn(c, snap, name)
		if e != nil {
			return nil, e
		}
		a := allow{col: col, codes: make([]bool, len(col.Values))}
		for _, v := range lf.Filters[name] {
			text, null, err := filterValue(f, v)
			if err != nil {
				return nil, errf(400, CodeEvidenceLineage, "filter %s: %v", name, err)
			}
			if null {
				a.null = true
			} else if code := col.Lookup(text); code >= 0 {
				a.codes[code] = true
			}
		}
		allows = append(allows, a)
	}
	for column, b := range lf.DateRanges {
		var r *capability.DateRange
		for i := range c.DateRanges {
			in := c.DateRanges[i].Instants
			if c.DateRanges[i].Column == column || in != nil && (in.From == column || in.To == column) {
				r = &c.DateRanges[i]
			}
		}
		if r == nil {
			return nil, errf(400, CodeEvidenceLineage, "%q is not the date column (or instant field) of a date range of %s", column, c.ID)
		}
		col, err := t.Column(column)
		if err != nil {
			return nil, unreadable(snap, err)
		}
		allows = append(allows, allow{col: col, codes: col.AllowRange(b.From, b.To)})
	}
	// Each excluded group: its columns and the codes (-1 for null) a row must all hold.
	type group struct {
		cols  []*columnar.Column
		codes []int32
	}
	var excludes []group
	for _, ex := range lf.Excludes {
		var g group
		absent := false
		keys := make([]string, 0, len(ex))
		for k := range ex {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, name := range keys {
			f, col, e := lineageColumn(c, snap, name)
			if e != nil {
				return nil, e
			}
			text, null, err := filterValue(f, ex[name])
			if err != nil {
				return nil, errf(400, CodeEvidenceLineage, "excludes %s: %v", name, err)
			}
			code := int32(-1)
			if !null {
				if code = col.Lookup(text); code < 0 {
					absent = true // a value no row holds: the group excludes nothing
				}
			}
			g.cols, g.codes = append(g.cols, col), append(g.codes, code)
		}
		if !absent && len(g.cols) > 0 {
			excludes = append(excludes, g)
		}
	}
	var rows []int
	if fileCode < 0 {
		return rows, nil
	}
rows:
	for r := 0; r < t.Rows; r++ {
		if fileCol.Codes[r] != fileCode {
			continue
		}
		for _, a := range allows {
			if !a.has(r) {
				continue rows
			}
		}
	groups:
		for _, g := range excludes {
			for i, col := range g.cols {
				if col.Codes[r] != g.codes[i] {
					continue groups
				}
			}
			continue rows
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// openRaw finds a data file in the raw store by its sha256, checks its name, re-hashes it and
// parses it; it returns the workbook and the hash computed now.
func (s *Service) openRaw(src snapshots.Source) (*grid.Workbook, string, *Error) {
	path := s.store.Raw().Find(src.SHA256)
	if path == "" {
		return nil, "", errf(400, CodeEvidenceUnknownFile, "no raw file with sha256 %s is in this service's raw store; re-fetch %s from %s and run citeq ingest", src.SHA256, src.File, orDash(src.URL))
	}
	if filepath.Base(path) != src.File {
		return nil, "", errf(400, CodeEvidenceFileName, "the raw file with sha256 %s is %q, not %q", src.SHA256, filepath.Base(path), src.File)
	}
	got, _, err := snapshots.HashFile(path)
	if err != nil {
		return nil, "", errf(400, CodeEvidenceUnreadable, "the raw file %s cannot be read (%v); it cannot be verified", src.File, err)
	}
	if got != src.SHA256 {
		return nil, "", errf(400, CodeEvidenceHash, "the stored copy of %s now hashes to %s, not the cited %s: it has changed on disk since ingest, so its figures cannot be verified; re-fetch the file from %s and re-ingest", src.File, got, src.SHA256, orDash(src.URL))
	}
	wb, err := s.evidence.get(got, path)
	if err != nil {
		return nil, "", errf(400, CodeEvidenceUnreadable, "the raw file %s does not parse (%v)", src.File, err)
	}
	return wb, got, nil
}

// recompute reads the cited cells of one metric's fields and recomputes it.
type recompute struct {
	m   capability.Metric
	c   *capability.Capability
	src snapshots.Source
	wb  *grid.Workbook

	// vals and dens are the values read for the metric's column and denominator (NaN for
	// null); units the unit of each row ("" for null).
	vals, dens []float64
	texts      []string // the metric column's literal text, for count_distinct
	units      []string
	// unitFromSnapshot is set when the unit column is not read from a cell of the row.
	unitFromSnapshot bool

	n                            int // rows read
	cellsRead, empty, nonNumeric int
	nonNumericSample             []Obj
	// used lists (sheet, field) → column, as read.
	used map[[2]string]int
}

// read reads the cited rows (table rows rows, at sheets and srcRows) of the raw workbook.
func (r *recompute) read(snap *Snapshot, rows []int, sheets, srcRows []string) *Error {
	r.used = map[[2]string]int{}
	unitCol := r.m.UnitColumn
	if unitCol != "" {
		r.unitFromSnapshot = true
		for _, byField := range r.src.Cells {
			if byField[unitCol] > 0 {
				r.unitFromSnapshot = false
			}
		}
	}
	var snapUnits []string
	if unitCol != "" && r.unitFromSnapshot {
		u, ok, err := snap.Table.Texts(unitCol, rows)
		if err != nil {
			return unreadable(snap, err)
		}
		for i := range u {
			if !ok[i] {
				u[i] = ""
			}
		}
		snapUnits = u
	}
	for i := range rows {
		sheet := sheets[i]
		row, err := strconv.Atoi(srcRows[i])
		if err != nil {
			return errf(500, CodeInternal, "source row %q of the fact table is not a number; report it", srcRows[i])
		}
		sh := r.wb.Sheet(sheet)
		if sh == nil {
			return errf(400, CodeEvidenceSheet, "%s has no sheet %q, which the snapshot cites; its sheets are: %s", r.src.File, sheet, join(r.wb.SheetNames()))
		}
		if row < 1 || row > sh.NumRows() {
			return errf(400, CodeEvidenceRow, "row %d is outside sheet %s of %s, which has rows 1 to %d", row, sheet, r.src.File, sh.NumRows())
		}
		r.n++
		if r.m.Column != "" {
			v, text := r.number(sh, sheet, row, r.m.Column)
			r.vals, r.texts = append(r.vals, v), append(r.texts, text)
		}
		if r.m.Denominator != "" {
			v, _ := r.number(sh, sheet, row, r.m.Denominator)
			r.dens = append(r.dens, v)
		}
		if unitCol != "" {
			if r.unitFromSnapshot {
				r.units = append(r.units, snapUnits[i])
			} else {
				_, text := r.number(sh, sheet, row, unitCol)
				r.units = append(r.units, text)
			}
		}
	}
	return nil
}

// number reads field's cell on a cited row: the number its literal text spells (NaN when
// empty or not a number) and the trimmed text ("" when empty).
func (r *recompute) number(sh *grid.Sheet, sheet string, row int, field string) (float64, string) {
	if text, inputs, ok := derivedCell(r.c, r.src, sh, sheet, row, field); ok {
		for f, col := range inputs {
			r.used[[2]string{sheet, f}] = col
		}
		return derivedNumber(text), text
	}
	col := r.src.Cells[sheet][field]
	r.used[[2]string{sheet, field}] = col
	if col == 0 {
		return math.NaN(), "" // the sheet has no column for the field: null on every row
	}
	r.cellsRead++
	cell := sh.Cell(row, col)
	text := strings.TrimSpace(cell.Value)
	if cell.Kind == grid.Empty || text == "" {
		r.empty++
		return math.NaN(), ""
	}
	f, err := parseCellNumber(text)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		if numericField(r.c, field) {
			r.nonNumeric++
			if len(r.nonNumericSample) < sampleRows {
				r.nonNumericSample = append(r.nonNumericSample, Obj{{"field", field}, {"sheet", sheet}, {"source_row", row},
					{"column", grid.ColumnName(col)}, {"value", cell.Value}})
			}
		}
		return math.NaN(), text
	}
	return f, text
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

func numericField(c *capability.Capability, name string) bool {
	f, _ := c.Field(name)
	return f.Type == capability.Integer || f.Type == capability.Number
}

// value is the metric recomputed from the values read.
func (r *recompute) value() Num {
	if r.m.Agg == capability.Count {
		return Num{V: float64(r.n), Valid: true}
	}
	// Units: the rows with a value must share one.
	if r.m.UnitColumn != "" {
		first := ""
		for i, v := range r.vals {
			if math.IsNaN(v) {
				continue
			}
			if first == "" {
				first = r.units[i]
			} else if r.units[i] != first {
				return Num{}
			}
		}
	}
	switch r.m.Agg {
	case capability.CountNonNull:
		k := 0
		for i, v := range r.vals {
			if !math.IsNaN(v) || (!numericField(r.c, r.m.Column) && r.texts[i] != "") {
				k++
			}
		}
		return Num{V: float64(k), Valid: true}
	case capability.CountDistinct:
		seen := map[string]bool{}
		for i, v := range r.vals {
			switch {
			case !math.IsNaN(v):
				seen[strconv.FormatFloat(v, 'g', -1, 64)] = true
			case r.texts[i] != "" && !numericField(r.c, r.m.Column):
				seen[r.texts[i]] = true
			}
		}
		return Num{V: float64(len(seen)), Valid: true}
	case capability.Sum, capability.Avg:
		sum, k := neumaierSum(r.vals)
		if k == 0 {
			return Num{}
		}
		if r.m.Agg == capability.Avg {
			return Num{V: sum / float64(k), Valid: true}
		}
		return Num{V: sum, Valid: true}
	case capability.Min, capability.Max:
		var best Num
		for _, v := range r.vals {
			if math.IsNaN(v) {
				continue
			}
			if !best.Valid || (r.m.Agg == capability.Min && v < best.V) || (r.m.Agg == capability.Max && v > best.V) {
				best = Num{V: v, Valid: true}
			}
		}
		return best
	case capability.Median, capability.Percentile:
		return quantileOfCells(r.m, r.vals)
	case capability.Ratio:
		num, k := neumaierSum(r.vals)
		den, kd := neumaierSum(r.dens)
		if k == 0 || kd == 0 || den == 0 {
			return Num{}
		}
		return Num{V: num / den, Valid: true}
	}
	return Num{}
}

// neumaierSum is the compensated sum of the non-NaN values, and how many there are.
func neumaierSum(vals []float64) (float64, int) {
	var sum, comp float64
	k := 0
	for _, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		k++
		t := sum + v
		if math.Abs(sum) >= math.Abs(v) {
			comp += (sum - t) + v
		} else {
			comp += (v - t) + sum
		}
		sum = t
	}
	return sum + comp, k
}

// unitText is the unit of the recomputed figure: the one unit the cited rows share, else
// the definition's.
func (r *recompute) unitText() string {
	if r.m.UnitColumn == "" {
		return r.m.Unit
	}
	unit := ""
	for i, v := range r.vals {
		if math.IsNaN(v) {
			continue
		}
		if unit == "" {
			unit = r.units[i]
		} else if r.units[i] != unit {
			return r.m.Unit
		}
	}
	if unit == "" {
		return r.m.Unit
	}
	return unit
}

// columnsDoc lists, per sheet and field read, the column and its header.
func (r *recompute) columnsDoc() []Obj {
	keys := make([][2]string, 0, len(r.used))
	for k := range r.used {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	out := make([]Obj, 0, len(keys))
	for _, k := range keys {
		col := r.used[k]
		o := Obj{{"sheet", k[0]}, {"field", k[1]}}
		if col == 0 {
			o = append(o, KV{"column", nil}, KV{"header", nil}, KV{"note", "the sheet has no column for this field: null on every cited row"})
		} else {
			header := any(nil)
			if hr := r.src.HeaderRows[k[0]]; hr > 0 {
				if sh := r.wb.Sheet(k[0]); sh != nil {
					header = normSpace(sh.Cell(hr, col).Value)
				}
			}
			o = append(o, KV{"column", grid.ColumnName(col)}, KV{"header", header})
		}
		out = append(out, o)
	}
	if r.m.UnitColumn != "" && r.unitFromSnapshot {
		out = append(out, Obj{{"sheet", nil}, {"field", r.m.UnitColumn}, {"column", nil}, {"header", nil},
			{"note", "the unit is not a cell of the row (the publisher states it once, in the series header); it is taken from the snapshot"}})
	}
	return out
}

// servedValue is metric m as the service computes it over the given table rows.
func servedValue(t *columnar.Table, m capability.Metric, rows []int) (Num, error) {
	var ops []columnar.Op
	if m.Agg == capability.Ratio {
		ops = []columnar.Op{{Agg: columnar.AggSum, Column: m.Column}, {Agg: columnar.AggSum, Column: m.Denominator}}
	} else {
		ops = []columnar.Op{opOf(m)}
	}
	var need []string
	for _, op := range ops {
		if op.Column != "" {
			need = append(need, op.Column)
		}
		if op.Unit != "" {
			need = append(need, op.Unit)
		}
	}
	if err := t.Need(need...); err != nil {
		return Num{}, err
	}
	idx := make([]int32, len(rows))
	for i, r := range rows {
		idx[i] = int32(r)
	}
	ans := t.Compute(columnar.Selection{Idx: idx}, nil, ops, nil)
	res := ans.Totals[0]
	if m.Agg == capability.Ratio {
		res = quotient(res, ans.Totals[1])
	}
	return num(res, 0), nil
}

// sameFigure reports whether two figures are the same to the 15 significant digits answers
// are written with (both null counts as the same).
func sameFigure(a, b Num) bool {
	if !a.Valid || !b.Valid {
		return a.Valid == b.Valid
	}
	return clean(a.V) == clean(b.V)
}

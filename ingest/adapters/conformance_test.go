package adapters_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// everyRowBelow is the file size, in fact rows, under which every row of a file is checked
// against its cited cells; larger files are sampled evenly.
const (
	everyRowBelow = 10000
	sampleRows    = 1000
)

// TestConformance runs every listed adapter through the checks each must pass, on the real
// files under CITEQ_RAW when the adapter finds any there, else on the fixtures under
// testdata/fixtures (laid out like the raw directory); a form of the publisher's data of which
// only the fixtures hold a file (EIA-930's six-month files beside the real region CSV) is
// checked on the fixtures too, in a subtest "fixtures":
//   - two builds of the same files give byte-identical fact tables;
//   - the snapshot is promoted, and every fact row (a sample of files with 10,000 rows or
//     more) is resolved through the evidence code path, where each value the adapter read
//     from a cell equals the literal cell the row cites;
//   - the natural key is unique and every codebook field's values resolve in its codebook;
//   - damaged copies of its first data file (a renamed header, text in a numeric cell, a
//     truncated sheet, a text export's title lines missing) are rejected for their own gate
//     and leave the catalog untouched; a sheet of a positional layout (header row 0) has no
//     header to rename. A capability in damageEveryFile has each data file of the plan damaged
//     in turn.
//
// The checks run on the newest plan of each form of the publisher's data the adapter reads
// (the source id of a plan's first data file): a USA Trade Online export and a transcription
// of API answers are each checked, not only the newest document. The cited cells are checked
// on every plan, each layout a publisher's file has had (EIA-860M's May 2016, NYISO's 2020).
// Each adapter's subtest is named by ingest.NameOf (two adapters of one capability by their
// names).
func TestConformance(t *testing.T) {
	raw := testenv.Raw(t)
	fixtures := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures")
	for _, a := range adapters.All() {
		t.Run(ingest.NameOf(a), func(t *testing.T) {
			t.Parallel()
			root := raw
			plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
			if err != nil {
				t.Fatal(err)
			}
			if len(plans) == 0 {
				root = fixtures
				if plans, err = a.Plan(ingest.NewFinder(fixtures, a.Folders())); err != nil {
					t.Fatal(err)
				}
			}
			if len(plans) == 0 {
				t.Fatalf("no files for %s in %s, nor fixtures in testdata/fixtures", strings.Join(a.Folders(), ", "), raw)
			}
			for _, f := range a.Known() {
				if !inFolders(f.Dest, a.Folders()) {
					t.Errorf("download %s lands in %s, outside the adapter's folders %v", f.URL, f.Dest, a.Folders())
				}
			}
			conform(t, a, root, plans)
			if root != raw {
				return
			}
			// The forms of which only the fixtures hold a file (a kind of file the adapter
			// reads that no real file here is): checked on the fixtures.
			fx, err := a.Plan(ingest.NewFinder(fixtures, a.Folders()))
			if err != nil {
				t.Fatal(err)
			}
			real := map[string]bool{}
			for _, f := range newestOfEachForm(plans) {
				real[f.sourceID] = true
			}
			for _, f := range newestOfEachForm(fx) {
				if !real[f.sourceID] {
					t.Run("fixtures", func(t *testing.T) { conform(t, a, fixtures, fx) })
					break
				}
			}
		})
	}
}

// conform runs the suite's checks on the adapter's plans of the files under root.
func conform(t *testing.T, a ingest.Adapter, root string, plans []ingest.Plan) {
	data := t.TempDir()
	store := &snapshots.Store{Dir: data}
	outcomes, err := ingest.Run(root, store, []ingest.Adapter{a}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s %s not promoted: %v", o.Capability, o.AsOf, o.Reasons)
		}
	}
	manifest := func(t *testing.T, asOf string) *snapshots.Manifest {
		for _, o := range outcomes {
			if o.AsOf == asOf {
				return o.Manifest
			}
		}
		t.Fatalf("no snapshot for as_of %s among %d outcomes", asOf, len(outcomes))
		return nil
	}
	forms := newestOfEachForm(plans)
	newest := map[int]bool{}
	for _, f := range forms {
		newest[f.index] = true
	}
	for i, p := range plans {
		if newest[i] {
			continue
		}
		t.Run(fmt.Sprintf("cells of plan %d of %d", i+1, len(plans)), func(t *testing.T) {
			testenv.HashPlan(t, &p)
			b, err := a.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			checkCitedCells(t, a.Capability(), data, manifest(t, b.AsOf), b)
		})
	}
	for _, f := range forms {
		check := func(t *testing.T) {
			p := f.plan
			testenv.HashPlan(t, &p)
			b := buildTwice(t, a, p)
			m := manifest(t, b.AsOf)
			checkKeyAndCodebooks(t, a.Capability(), b)
			checkCitedCells(t, a.Capability(), data, m, b)
			first, _ := ingest.SplitRoles(p.Files)
			if first == nil {
				t.Fatal("the plan has no data file")
			}
			if !damageEveryFile[a.Capability().ID] {
				checkDamagedCopies(t, a, root, store, plans, p, b, first)
				return
			}
			for _, f := range ingest.DataFiles(p.Files) {
				t.Run(filepath.Base(f.Path), func(t *testing.T) { checkDamagedCopies(t, a, root, store, plans, p, b, &f) })
			}
		}
		if len(forms) == 1 {
			check(t)
		} else {
			t.Run(f.sourceID, check)
		}
	}
}

// damageEveryFile lists the capabilities whose snapshot joins data files of different layouts
// (a third party's transcriptions of several tables): each file is damaged in turn, not only
// the first.
var damageEveryFile = map[string]bool{
	capability.PowerCapacityMarketMISO.ID: true,
}

// growing lists the forms (by source id) whose file of a period under way grows as the period
// runs, with why a truncated copy of it is not a damage: a copy cut after any line reads as
// the file the publisher published earlier in the period, dated by its own last line.
var growing = map[string]string{
	"eia930_balance": "EIA's six-month file of a half-year under way grows as the half-year runs: a copy cut after any line is the file as EIA published it earlier, dated by its own last hour (an earlier as_of beside the later one), which no gate can tell from a cut",
}

// form is the newest plan of one form of a publisher's data, and its index among the plans.
type form struct {
	sourceID string
	plan     ingest.Plan
	index    int
}

// newestOfEachForm returns, for each source id of the plans' first data files, the last plan
// of that source id, in the order of the plans.
func newestOfEachForm(plans []ingest.Plan) []form {
	last := map[string]int{}
	var ids []string
	for i, p := range plans {
		id := ""
		if d, _ := ingest.SplitRoles(p.Files); d != nil {
			id = d.SourceID
		}
		if _, ok := last[id]; !ok {
			ids = append(ids, id)
		}
		last[id] = i
	}
	out := make([]form, 0, len(ids))
	for _, id := range ids {
		out = append(out, form{id, plans[last[id]], last[id]})
	}
	slices.SortStableFunc(out, func(x, y form) int { return last[x.sourceID] - last[y.sourceID] })
	return out
}

func inFolders(dest string, folders []string) bool {
	for _, f := range folders {
		if strings.HasPrefix(dest, f+"/") {
			return true
		}
	}
	return false
}

// buildTwice builds p twice and checks that the fact tables are byte-identical.
func buildTwice(t *testing.T, a ingest.Adapter, p ingest.Plan) *ingest.Build {
	t.Helper()
	var facts [2][]byte
	var b *ingest.Build
	for i := range facts {
		var err error
		b, err = a.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "facts.parquet")
		if err := snapshots.WriteFacts(path, snapshots.Columns(a.Capability()), b.Rows); err != nil {
			t.Fatal(err)
		}
		if facts[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(facts[0], facts[1]) {
		t.Fatal("two builds of the same files wrote different fact tables")
	}
	if len(b.Rows) == 0 {
		t.Fatal("the build has no rows")
	}
	if len(b.Cells) == 0 {
		t.Fatal("the build records no cell a field was read from (use Row.SetCell)")
	}
	return b
}

func column(c *capability.Capability, name string) int {
	return slices.IndexFunc(snapshots.Columns(c), func(f capability.Field) bool { return f.Name == name })
}

func checkKeyAndCodebooks(t *testing.T, c *capability.Capability, b *ingest.Build) {
	t.Helper()
	seen := map[string]int{}
	for i, r := range b.Rows {
		var key []string
		for _, k := range c.NaturalKey {
			key = append(key, fmt.Sprint(r[column(c, k)]))
		}
		k := strings.Join(key, "\x1f")
		if j, dup := seen[k]; dup {
			t.Fatalf("natural key (%s) = (%s) on rows %d and %d", strings.Join(c.NaturalKey, ", "), strings.Join(key, ", "), j, i)
		}
		seen[k] = i
	}
	books := map[string]map[string]bool{}
	for _, cb := range b.Codebooks {
		books[cb.Name] = map[string]bool{}
		for _, code := range cb.Codes {
			books[cb.Name][code.Code] = true
		}
	}
	for _, f := range c.Fields {
		if f.Codebook == "" {
			continue
		}
		j := column(c, f.Name)
		for _, r := range b.Rows {
			v, ok := r[j].(string)
			if !ok {
				continue
			}
			if books[f.Codebook] == nil {
				t.Fatalf("field %s has values but the snapshot has no codebook %s", f.Name, f.Codebook)
			}
			if !books[f.Codebook][v] {
				t.Fatalf("%s value %q is not in its codebook", f.Name, v)
			}
		}
	}
}

// evidence is the part of the evidence answer the suite reads.
type evidence struct {
	Verified bool `json:"verified"`
	Cells    []struct {
		Column string `json:"column"`
		Value  string `json:"value"`
		Type   string `json:"type"`
	} `json:"cells"`
}

// checkCitedCells resolves fact rows through the evidence code path and compares each value
// the adapter read from a cell with that literal cell.
func checkCitedCells(t *testing.T, c *capability.Capability, data string, m *snapshots.Manifest, b *ingest.Build) {
	t.Helper()
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	urls, derived := map[string]string{}, map[string]bool{}
	for _, s := range m.Sources {
		urls[s.File] = s.URL
		derived[s.File] = s.Derived
	}
	cols := snapshots.Columns(c)
	li := func(name string) int { return column(c, name) }
	perFile := map[string][]int{}
	for i, r := range b.Rows {
		f := r[li(capability.ColSourceFile)].(string)
		perFile[f] = append(perFile[f], i)
	}
	checked := 0
	for file, idx := range perFile {
		step := 1
		if len(idx) >= everyRowBelow {
			step = len(idx) / sampleRows
		}
		for k := 0; k < len(idx); k += step {
			r := b.Rows[idx[k]]
			sheet := r[li(capability.ColSheet)].(string)
			cit := service.Citation{SourceID: r[li(capability.ColSourceID)].(string), SourceURL: urls[file], File: file, Sheet: sheet,
				Row: int(r[li(capability.ColSourceRow)].(int64)), SHA256: r[li(capability.ColRawSHA256)].(string), AsOf: m.AsOf,
				Derived: derived[file]}
			body, _ := json.Marshal(cit)
			out, e := svc.Evidence(context.Background(), body)
			if e != nil {
				t.Fatalf("row %d (%s %s row %d) does not verify: %s %s", idx[k], file, sheet, cit.Row, e.Code, e.Message)
			}
			var ev evidence
			if err := json.Unmarshal(out, &ev); err != nil || !ev.Verified {
				t.Fatalf("evidence for %s %s row %d: %v %s", file, sheet, cit.Row, err, out)
			}
			fields := map[string]bool{}
			for field := range b.Cells[ingest.CellKey{File: file, Sheet: sheet}] {
				fields[field] = true
			}
			for field := range b.Cells[ingest.CellKey{File: file, Sheet: sheet, Row: cit.Row}] {
				fields[field] = true
			}
			colOf := map[string]int{}
			for field := range fields {
				colOf[field] = ingest.CellColumn(b.Cells, file, sheet, cit.Row, field)
			}
			// A field whose column another field chooses (a wide sheet): the column recorded
			// for that field's value on the row.
			for _, f := range c.Fields {
				if f.Cell == nil || f.Cell.ColumnBy == "" {
					continue
				}
				by := r[li(f.Cell.ColumnBy)]
				if by == nil {
					continue
				}
				if col := ingest.CellColumnBy(b.Cells, file, sheet, fmt.Sprint(by), f.Name); col > 0 {
					colOf[f.Name] = col
				} else if r[li(f.Name)] != nil {
					t.Fatalf("%s %s row %d, field %s: no column recorded for %s %v", file, sheet, cit.Row, f.Name, f.Cell.ColumnBy, by)
				}
			}
			for field, col := range colOf {
				lit := grid.Cell{}
				if col <= len(ev.Cells) {
					lit = grid.Cell{Value: ev.Cells[col-1].Value, Kind: kindOf(ev.Cells[col-1].Type)}
				}
				j := li(field)
				if msg := sameValue(cols[j], r[j], lit); msg != "" {
					t.Fatalf("%s %s row %d, field %s (column %s): %s", file, sheet, cit.Row, field, grid.ColumnName(col), msg)
				}
			}
			checked++
		}
	}
	t.Logf("%d fact rows resolved through evidence and compared with their cells", checked)
	checkDerivedMarked(t, svc, c, m)
}

// checkDerivedMarked asks for records and checks that the citation of every record read from
// a derived file says so, with the publisher's original address.
func checkDerivedMarked(t *testing.T, svc *service.Service, c *capability.Capability, m *snapshots.Manifest) {
	t.Helper()
	derived := map[string]string{}
	for _, s := range m.Sources {
		if s.Derived {
			if s.OriginalURL == "" {
				t.Errorf("derived source %s has no original_url", s.File)
			}
			derived[s.File] = s.OriginalURL
		}
	}
	if len(derived) == 0 {
		return
	}
	out, e := svc.QueryJSON(context.Background(), c.Path, []byte(`{"as_of":"`+m.AsOf+`","include_records":true,"limit":50}`))
	if e != nil {
		t.Fatalf("records query: %s", e.Message)
	}
	var r struct {
		Records []struct {
			Citation struct {
				File        string `json:"source_file"`
				Derived     bool   `json:"derived"`
				OriginalURL string `json:"original_url"`
			} `json:"citation"`
		} `json:"records"`
	}
	var docs struct{ Records []map[string]any }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &docs); err != nil {
		t.Fatal(err)
	}
	for i, rec := range r.Records {
		u, ok := derived[rec.Citation.File]
		if o := c.Originals; o != nil {
			// A transcription's row is cited with the document it names as copied from.
			if doc, named := docs.Records[i][o.Document].(string); named && doc != "" {
				u = doc
			}
		}
		if ok && (!rec.Citation.Derived || rec.Citation.OriginalURL != u) {
			t.Fatalf("record citation of derived file %s: derived %v, original_url %q", rec.Citation.File, rec.Citation.Derived, rec.Citation.OriginalURL)
		}
	}
}

func kindOf(name string) grid.Kind {
	switch name {
	case "number":
		return grid.Number
	case "empty", "":
		return grid.Empty
	case "boolean":
		return grid.Bool
	}
	return grid.Text
}

// sameValue says how a stored value differs from the literal cell it was read from ("" when
// it does not): text as published (white space trimmed or folded), numbers as the cell's
// number (thousands separators aside), dates as the cell's date; a null stands for a cell
// that is blank or a publisher's mark, never for a number.
func sameValue(f capability.Field, stored any, lit grid.Cell) string {
	if f.Cell != nil && f.Cell.Format != "" {
		// A cell in a format of its own, read by the reader ingest and the evidence share.
		v, supp, _, _, err := kit.ListCell(lit.Value)
		if err != nil {
			return fmt.Sprintf("%v, but the cell %q does not read: %v", stored, lit.Value, err)
		}
		if f.Cell.Format == capability.FormatListCellWithheld {
			v = 0.0
			if supp != nil {
				v = 1.0
			}
		}
		if x, ok := stored.(int64); ok {
			stored = float64(x)
		}
		if v != stored {
			return fmt.Sprintf("%v, but the cell %q reads %v", stored, lit.Value, v)
		}
		return ""
	}
	text := strings.TrimSpace(lit.Value)
	if stored == nil {
		if f.Type == capability.Number || f.Type == capability.Integer {
			if _, err := strconv.ParseFloat(strings.ReplaceAll(text, ",", ""), 64); err == nil {
				return fmt.Sprintf("null, but the cell holds the number %q", lit.Value)
			}
		}
		return ""
	}
	switch f.Type {
	case capability.String:
		if s := stored.(string); s != text && s != kit.Squash(text) {
			return fmt.Sprintf("%q, but the cell reads %q", s, lit.Value)
		}
	case capability.Number, capability.Integer:
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.ReplaceAll(text, ",", ""), "%"), 64)
		var want float64
		switch v := stored.(type) {
		case float64:
			want = v
		case int64:
			want = float64(v)
		}
		if err != nil || x != want {
			return fmt.Sprintf("%v, but the cell reads %q", stored, lit.Value)
		}
	case capability.Date:
		d, err := kit.Date(lit)
		if err != nil || d != stored {
			return fmt.Sprintf("%v, but the cell reads %q (%v)", stored, lit.Value, err)
		}
	}
	return ""
}

// damage is one damaged copy of a data file and the gates that must reject it.
type damage struct {
	name string
	// edit damages the cells; it reports false when the file offers nothing to damage so.
	edit func(c *testenv.Cells) bool
	// want lists gates of which at least one must fail.
	want []string
}

// checkDamagedCopies ingests, beside the files of every plan, a damaged copy of data, a file of
// plan p (a document of a capability whose documents complement each other is damaged among
// the others it is composed with).
func checkDamagedCopies(t *testing.T, a ingest.Adapter, root string, store *snapshots.Store, plans []ingest.Plan, p ingest.Plan, b *ingest.Build, data *ingest.File) {
	t.Helper()
	c := a.Capability()
	file := filepath.Base(data.Path)
	var src *snapshots.Source
	for i := range b.Sources {
		if b.Sources[i].File == file {
			src = &b.Sources[i]
		}
	}
	// The sheet of the file with the most fact rows, and the columns its fields were read from.
	sheetRows := map[string]int{}
	for _, r := range b.Rows {
		if r[column(c, capability.ColSourceFile)] == file {
			sheetRows[r[column(c, capability.ColSheet)].(string)]++
		}
	}
	sheet := ""
	for s, n := range sheetRows {
		if n > sheetRows[sheet] || (n == sheetRows[sheet] && s < sheet) {
			sheet = s
		}
	}
	cells := b.Cells[ingest.CellKey{File: file, Sheet: sheet}]
	// A sheet without a header row (a positional layout) declares row 0.
	header, declared := 0, false
	if src != nil {
		header, declared = src.HeaderRows[sheet]
	}
	if !declared {
		t.Fatalf("the source %s states no header row for sheet %q (Source.HeaderRows; 0 for a positional layout)", file, sheet)
	}
	var numericField string
	var numericCol int
	var fields []string
	for f := range cells {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	// A numeric field that is neither required nor part of the natural key, so that text in
	// it fails no gate but cells_parse.
	for _, f := range fields {
		fd, _ := c.Field(f)
		if (fd.Type == capability.Number || fd.Type == capability.Integer) && numericField == "" &&
			!slices.Contains(b.Required, f) && !slices.Contains(c.NaturalKey, f) {
			numericField, numericCol = f, cells[f]
		}
	}
	// The first cited row of the sheet, and whether the sheet holds every row of the build: a
	// truncated copy of such a sheet keeps its first cited row, so that the capability keeps a
	// row (and the gates that look for a cut judge it, not the absence of rows) even where its
	// rows come late in a long file (an export of every HS heading).
	firstCited, onlySheet := 0, true
	for _, r := range b.Rows {
		if r[column(c, capability.ColSourceFile)] != file || r[column(c, capability.ColSheet)] != sheet {
			onlySheet = false
			continue
		}
		if n := int(r[column(c, capability.ColSourceRow)].(int64)); firstCited == 0 || n < firstCited {
			firstCited = n
		}
	}
	if !onlySheet {
		firstCited = 0
	}
	// The row of the sheet whose numeric field is published, to write text into.
	textRow := 0
	for _, r := range b.Rows {
		if r[column(c, capability.ColSourceFile)] == file && r[column(c, capability.ColSheet)] == sheet && numericField != "" && r[column(c, numericField)] != nil {
			textRow = int(r[column(c, capability.ColSourceRow)].(int64))
			break
		}
	}
	cases := []damage{
		{name: "renamed header", want: []string{kit.GateHeaders}, edit: func(x *testenv.Cells) bool {
			if header == 0 {
				return false // a positional layout has no header to rename
			}
			// Rename the header of every field read from this sheet, so whichever the adapter
			// needs is gone.
			for _, f := range fields {
				x.Set(sheet, header, cells[f], "Renamed "+strconv.Itoa(cells[f]))
			}
			return len(fields) > 0
		}},
		{name: "text in a numeric cell", want: []string{kit.GateCells}, edit: func(x *testenv.Cells) bool {
			if textRow == 0 {
				return false
			}
			x.Set(sheet, textRow, numericCol, "n/a")
			return true
		}},
		{name: "truncated sheet", want: []string{kit.GateComplete, kit.GateReconcile, "row_count_not_collapsed"}, edit: func(x *testenv.Cells) bool {
			n := len(x.Rows[sheet])
			x.Truncate(sheet, max(header+1, n/10, firstCited))
			return n > header+2 && n > firstCited+1
		}},
		{name: "title lines missing", want: []string{kit.GateHeaders}, edit: func(x *testenv.Cells) bool {
			// A text export's title lines above its header (a report's title and date) are
			// part of its layout; a workbook's are checked by its adapter's own tests.
			if x.Format != "csv" || header <= 1 {
				return false
			}
			x.Rows[sheet] = x.Rows[sheet][header-1:]
			return true
		}},
	}
	catBefore, err := os.ReadFile(store.CatalogPath())
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, data.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cases {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, pl := range plans {
				for _, f := range pl.Files {
					r, _ := filepath.Rel(root, f.Path)
					copyFile(t, f.Path, filepath.Join(dir, r))
				}
			}
			if why := growing[data.SourceID]; why != "" && d.name == "truncated sheet" {
				t.Skip(why)
			}
			x := testenv.ReadCells(t, data.Path)
			if !d.edit(x) {
				t.Skipf("%s offers nothing to damage this way", file)
			}
			x.Write(t, filepath.Join(dir, rel))
			outcomes, err := ingest.Run(dir, store, []ingest.Adapter{a}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var o *ingest.Outcome
			for i := range outcomes {
				if outcomes[i].Manifest != nil && !outcomes[i].Unchanged {
					o = &outcomes[i]
				}
			}
			if o == nil || o.Status != snapshots.Rejected {
				t.Fatalf("the damaged copy was not rejected: %+v", outcomes)
			}
			failed := map[string]bool{}
			for _, g := range o.Manifest.Gates {
				if !g.Passed {
					failed[g.Name] = true
				}
			}
			headersFailed := failed[kit.GateHeaders]
			hit := false
			for _, g := range d.want {
				hit = hit || failed[g]
				delete(failed, g)
			}
			// Gates that a damage fails as a consequence: the copy claims an as_of already
			// served, fewer or different values no longer agree with a second reading, and a
			// sheet not read for want of its header leaves no row to type.
			for g := range failed {
				if g == "as_of_immutable" || g == "row_count_not_collapsed" || g == kit.GateReconcile || strings.HasSuffix(g, "_agrees") ||
					g == "required_columns_typed" && o.Rows == 0 && headersFailed {
					delete(failed, g)
				}
			}
			if !hit {
				t.Errorf("none of %v failed; reasons %v", d.want, o.Reasons)
			}
			if len(failed) > 0 {
				t.Errorf("other gates failed too: %v", o.Reasons)
			}
			if _, err := os.Stat(filepath.Join(o.Manifest.Dir, snapshots.FactsFile)); err == nil {
				t.Error("a rejected snapshot has a fact table")
			}
			catAfter, _ := os.ReadFile(store.CatalogPath())
			if !bytes.Equal(catBefore, catAfter) {
				t.Error("the catalog changed")
			}
		})
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

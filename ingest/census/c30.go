// Package census ingests the U.S. Census Bureau's files: the C30 value of construction put
// in place workbooks and, when their files arrive, the international trade API responses.
package census

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Publisher is the agency every file of this package is cited to.
const Publisher = "U.S. Census Bureau"

// C30Folder is the raw directory's folder of the C30 workbooks. The third party's extract
// in census_c30_derived is another folder, which this adapter does not read.
const C30Folder = "aiinfra_robotics/census_c30"

const (
	c30HeaderRow    = 4
	c30FirstDataRow = 5
	c30C30Publisher = "U.S. Census Bureau (Value of Construction Put in Place, C30)"
	c30Unit         = "millions of USD, seasonally adjusted annual rate"
	noDataAsOf      = "1900-01-01" // dates a build that read nothing; its gates reject it
)

// c30Workbook is one of the two workbooks.
type c30Workbook struct {
	file, sheet, sourceID, url string
}

var c30Workbooks = []c30Workbook{
	{"privsatime.xlsx", "Private SA", "CENSUS:C30:privsatime", "https://www.census.gov/construction/c30/xlsx/privsatime.xlsx"},
	{"pubsatime.xlsx", "Public SA", "CENSUS:C30:pubsatime", "https://www.census.gov/construction/c30/xlsx/pubsatime.xlsx"},
}

// C30 ingests ai_infrastructure.construction from the C30 seasonally adjusted workbooks.
type C30 struct{}

// Capability implements ingest.Adapter.
func (C30) Capability() *capability.Capability { return capability.AIInfrastructureConstruction }

// Version implements ingest.Adapter.
func (C30) Version() string { return "census-c30/1" }

// Folders implements ingest.Adapter.
func (C30) Folders() []string { return []string{C30Folder} }

// Known implements ingest.Adapter.
func (C30) Known() []fetch.Source {
	var out []fetch.Source
	for _, w := range c30Workbooks {
		out = append(out, fetch.Source{URL: w.url, Kind: fetch.XLSX, Dest: C30Folder + "/" + w.file})
	}
	return out
}

// Plan implements ingest.Adapter: one snapshot of the workbooks found.
func (C30) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	var files []ingest.File
	for _, w := range c30Workbooks {
		ps, err := finder.Named(w.file)
		if err != nil {
			return nil, fmt.Errorf("census c30 plan: %w", err)
		}
		for _, p := range ps {
			files = append(files, ingest.File{Path: p, SourceID: w.sourceID, Publisher: c30C30Publisher, URL: w.url, Role: ingest.RoleData})
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	return []ingest.Plan{{Files: files}}, nil
}

// c30Column is one value column as the adapter expects it.
type c30Column struct {
	col                      int
	sector, line, path, want string
	parent                   string
	level                    int
}

// columnsOf lays out the value columns the workbook must have, with their hierarchy.
func columnsOf(file string) []c30Column {
	var out []c30Column
	add := func(sector string, lines []c30Line, header func(c30Line) string) {
		var stack []c30Line
		for _, l := range lines {
			for len(stack) > 0 && stack[len(stack)-1].level >= l.level {
				stack = stack[:len(stack)-1]
			}
			var names []string
			for _, s := range stack {
				names = append(names, s.label)
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].label
			}
			stack = append(stack, l)
			out = append(out, c30Column{col: len(out) + 2, sector: sector, line: l.label, path: strings.Join(append(names, l.label), " > "),
				want: header(l), parent: parent, level: l.level})
		}
	}
	if file == "privsatime.xlsx" {
		add("private", privateLines, func(l c30Line) string { return l.label })
		return out
	}
	for _, b := range publicBlocks {
		lines := []c30Line{{b.total, 0}}
		for _, t := range publicTypes {
			skip := false
			for _, s := range b.skip {
				skip = skip || s == t.label
			}
			if !skip {
				lines = append(lines, t)
			}
		}
		total := b.total
		add(b.sector, lines, func(l c30Line) string {
			if l.label == total {
				return l.label
			}
			return b.prefix + " " + l.label
		})
	}
	return out
}

var footnoteDigits = regexp.MustCompile(`([A-Za-z)])\d$`)

// cleanHeader folds a C30 header cell: the "_x000D_" escape Excel leaves in the line break
// becomes a space, white space is folded, and a footnote digit glued to the text is dropped.
func cleanHeader(s string) string {
	s = kit.Squash(strings.ReplaceAll(s, "_x000D_", " "))
	return footnoteDigits.ReplaceAllString(s, "$1")
}

var (
	monthLabel = regexp.MustCompile(`^([A-Z][a-z]{2})-(\d{2})([pr]?)$`)
	sourceLine = regexp.MustCompile(`^Source: U\.S\. Census Bureau, Construction Spending, ([A-Z][a-z]+ \d{1,2}, \d{4})`)
)

// parseMonth reads a Date cell such as "May-26p": the month, and its mark.
func parseMonth(s string) (time.Time, string, error) {
	m := monthLabel.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return time.Time{}, "", fmt.Errorf("%q is not a Mon-YY month", s)
	}
	t, err := time.Parse("Jan", m[1])
	if err != nil {
		return time.Time{}, "", fmt.Errorf("%q: %w", s, err)
	}
	yy, _ := strconv.Atoi(m[2])
	year := 2000 + yy
	if yy >= 50 {
		year = 1900 + yy
	}
	mark := map[string]string{"p": "preliminary", "r": "revised", "": "not_marked"}[m[3]]
	return time.Date(year, t.Month(), 1, 0, 0, 0, 0, time.UTC), mark, nil
}

// c30Build is the state of one build.
type c30Build struct {
	rows                      *ingest.Rows
	bad                       kit.Problems
	missing, found, short     []string
	parsed                    []string
	books                     map[string]*snapshots.Code
	order                     []string
	asOf                      string
	unpublished, notAvailable int
}

// Build implements ingest.Adapter.
func (C30) Build(p ingest.Plan) (*ingest.Build, error) {
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"value_musd": {Min: 0, Max: 1e8}, "year": {Min: 1990, Max: 2100}, "level": {Min: 0, Max: 4}},
		Required: []string{"sector", "line", "line_path", "level", "observation_date", "period", "mark", "unit"},
	}
	st := &c30Build{rows: ingest.NewRows(capability.AIInfrastructureConstruction), books: map[string]*snapshots.Code{}}
	for i := range p.Files {
		f := &p.Files[i]
		src, err := st.readWorkbook(f)
		if err != nil {
			return nil, err
		}
		if src != nil {
			b.Sources = append(b.Sources, *src)
		}
	}
	asOf := st.asOf
	if asOf == "" {
		asOf = noDataAsOf
	}
	facts, err := st.rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("census c30: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, st.rows.Cells()
	book := snapshots.Codebook{Name: "line_path", Description: "the published lines of the C30 workbooks, with their ancestors (from the header row; the hierarchy follows the column order)"}
	for _, k := range st.order {
		book.Codes = append(book.Codes, *st.books[k])
	}
	b.Codebooks = ingest.CountCodes(capability.AIInfrastructureConstruction, []snapshots.Codebook{book}, facts)
	detail := strings.Join(st.parsed, "; ") + fmt.Sprintf("; %d blank cells (lines not yet published) and %d public detail cells written 0 before 2002 (not available) are not served", st.unpublished, st.notAvailable)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, st.missing, strings.Join(st.found, "; ")),
		st.bad.Gate(kit.GateCells, detail),
		kit.Failures(kit.GateComplete, st.short, "every sheet runs month by month from its header to its source line"))
	return b, nil
}

// readWorkbook reads one workbook's rows; it returns the source (nil when its sheet or
// header is not as expected, which the headers gate reports).
func (st *c30Build) readWorkbook(f *ingest.File) (*snapshots.Source, error) {
	name := filepath.Base(f.Path)
	var w c30Workbook
	for _, x := range c30Workbooks {
		if x.file == name {
			w = x
		}
	}
	if w.file == "" {
		return nil, fmt.Errorf("census c30: %s: no workbook of this name is read", name)
	}
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("census c30: %w", err)
	}
	sh := wb.Sheet(w.sheet)
	if sh == nil {
		st.missing = append(st.missing, fmt.Sprintf("%s: no sheet %q (sheets: %s)", name, w.sheet, strings.Join(wb.SheetNames(), ", ")))
		return nil, nil
	}
	cols := columnsOf(name)
	var wrong []string
	if got := strings.TrimSpace(sh.Cell(c30HeaderRow, 1).Value); got != "Date" {
		wrong = append(wrong, fmt.Sprintf("A%d is %q, not Date", c30HeaderRow, got))
	}
	headers := map[int]string{}
	for _, c := range cols {
		raw := sh.Cell(c30HeaderRow, c.col).Value
		headers[c.col] = kit.Squash(strings.ReplaceAll(raw, "_x000D_", " "))
		if got := cleanHeader(raw); got != c.want {
			wrong = append(wrong, fmt.Sprintf("%s%d is %q, not %q", grid.ColumnName(c.col), c30HeaderRow, got, c.want))
		}
	}
	if len(wrong) > 0 {
		if len(wrong) > 3 {
			wrong = append(wrong[:3], fmt.Sprintf("and %d more", len(wrong)-3))
		}
		st.missing = append(st.missing, fmt.Sprintf("%s sheet %s: %s", name, w.sheet, strings.Join(wrong, "; ")))
		return nil, nil
	}
	st.found = append(st.found, fmt.Sprintf("%s: Date and %d lines in row %d", name, len(cols), c30HeaderRow))
	for _, c := range cols {
		key := c.path
		if code, ok := st.books[key]; ok {
			if !strings.Contains(code.Group, c.sector) {
				code.Group += ", " + c.sector
			}
			continue
		}
		st.books[key] = &snapshots.Code{Code: key, Description: headers[c.col], Group: c.sector, InAgencyTable: true,
			Source: &snapshots.CodeSource{SourceFile: name, Sheet: w.sheet, SourceRow: c30HeaderRow, SHA256: f.SHA256}}
		st.order = append(st.order, key)
	}
	months, values := 0, 0
	var prev time.Time
	r := c30FirstDataRow
	for ; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 || strings.TrimSpace(row[0].Value) == "" {
			break
		}
		label := strings.TrimSpace(row[0].Value)
		t, mark, err := parseMonth(label)
		if err != nil {
			st.bad.Add("%s!A%d: %v", name, r, err)
			continue
		}
		if !prev.IsZero() && !t.Equal(prev.AddDate(0, -1, 0)) {
			st.short = append(st.short, fmt.Sprintf("%s!A%d: %s follows %s (months run newest first, one by one)", name, r, t.Format("2006-01"), prev.Format("2006-01")))
		}
		prev = t
		months++
		period := t.Format("2006-01")
		for _, c := range cols {
			cell := sh.Cell(r, c.col)
			v, err := kit.Number(cell)
			if err != nil {
				st.bad.Add("%s!%s%d: %v", name, grid.ColumnName(c.col), r, err)
				continue
			}
			if v == nil {
				st.unpublished++
				continue
			}
			if name == "pubsatime.xlsx" && c.level > 0 && t.Year() < 2002 && v.(float64) == 0 {
				st.notAvailable++
				continue
			}
			var parent any
			if c.parent != "" {
				parent = c.parent
			}
			st.rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: w.sheet, Row: r, SHA256: f.SHA256}).
				Set("sector", c.sector).
				Set("line", c.line).
				Set("line_path", c.path).
				Set("parent_line", parent).
				Set("level", c.level).
				Set("column_header", headers[c.col]).
				Set("source_column", grid.ColumnName(c.col)).
				Set("observation_date", t.Format("2006-01-02")).
				Set("period", period).
				Set("year", t.Year()).
				SetCell("period_label", 1, label).
				Set("mark", mark).
				SetCell("value_musd", c.col, v).
				Set("unit", c30Unit).
				Key(c.sector + ":" + c.path + ":" + period)
			values++
		}
	}
	release := ""
	for ; r <= sh.NumRows(); r++ {
		if m := sourceLine.FindStringSubmatch(strings.TrimSpace(sh.Cell(r, 1).Value)); m != nil {
			t, err := kit.ParseDate(m[1])
			if err != nil {
				return nil, fmt.Errorf("census c30: %s row %d: release date: %w", name, r, err)
			}
			release = t.Format("2006-01-02")
			break
		}
	}
	if release == "" {
		st.short = append(st.short, fmt.Sprintf("%s sheet %s: no \"Source: U.S. Census Bureau, Construction Spending, <date>\" line after the %d months read: the sheet is cut short", name, w.sheet, months))
	} else if release > st.asOf {
		st.asOf = release
	}
	st.parsed = append(st.parsed, fmt.Sprintf("%s: %d months, %d values", name, months, values))
	src := f.Source()
	src.Title = strings.TrimSpace(sh.Cell(1, 1).Value)
	src.Release = release
	src.HeaderRows = map[string]int{w.sheet: c30HeaderRow}
	return &src, nil
}

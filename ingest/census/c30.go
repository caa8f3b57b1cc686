// Package census ingests the U.S. Census Bureau's files: the C30 value of construction put
// in place workbooks and, when their files arrive, the international trade API responses.
package census

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/fetch"
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

// C30 ingests ai_infrastructure.construction from the C30 seasonally adjusted workbooks, one
// snapshot of both: a row per sector, line and month, from the value column of each line.
var C30 = kit.New(&kit.Spec{
	Cap:      capability.AIInfrastructureConstruction,
	Version:  "census-c30/1",
	Folders:  []string{C30Folder},
	Known:    c30Known(),
	Files:    []*kit.File{c30File(c30Workbooks[0]), c30File(c30Workbooks[1])},
	Together: true,
	State:    func() any { return &c30Build{books: map[string]*snapshots.Code{}} },
	AsOf: func(b *kit.Book) (string, error) {
		if asOf := b.State.(*c30Build).asOf; asOf != "" {
			return asOf, nil
		}
		return noDataAsOf, nil
	},
	Gates: func(b *kit.Book) []snapshots.Gate {
		st := b.State.(*c30Build)
		book := snapshots.Codebook{Name: "line_path", Description: "the published lines of the C30 workbooks, with their ancestors (from the header row; the hierarchy follows the column order)"}
		for _, k := range st.order {
			book.Codes = append(book.Codes, *st.books[k])
		}
		b.Codebooks = []snapshots.Codebook{book}
		detail := strings.Join(st.parsed, "; ") + fmt.Sprintf("; %d blank cells (lines not yet published) and %d public detail cells written 0 before 2002 (not available) are not served", st.unpublished, st.notAvailable)
		return []snapshots.Gate{
			b.HeadersGate(strings.Join(b.Found, "; ")),
			b.CellsGate(detail),
			b.CompleteGate("every sheet runs month by month from its header to its source line"),
		}
	},
	Ranges:   map[string]snapshots.Range{"value_musd": {Min: 0, Max: 1e8}, "year": {Min: 1990, Max: 2100}, "level": {Min: 0, Max: 4}},
	Required: []string{"sector", "line", "line_path", "level", "observation_date", "period", "mark", "unit"},
})

func c30Known() []fetch.Source {
	var out []fetch.Source
	for _, w := range c30Workbooks {
		out = append(out, fetch.Source{URL: w.url, Kind: fetch.XLSX, Dest: C30Folder + "/" + w.file})
	}
	return out
}

// c30File is one workbook: its sheet, a row per month from row 5 (newest first) down to the
// first blank label, then the source line with the release date.
func c30File(w c30Workbook) *kit.File {
	return &kit.File{
		Names:    []string{w.file},
		SourceID: w.sourceID, Publisher: c30C30Publisher,
		URL: func(string, []string) string { return w.url },
		Sheets: []*kit.Sheet{{
			Name: w.sheet, Header: c30HeaderRow, First: c30FirstDataRow,
			Columns: []kit.Column{{Field: "period_label", At: 1}},
			Begin:   c30Header,
			Stop:    func(r *kit.Row) bool { return strings.TrimSpace(r.CellAt(1).Value) == "" },
			IsRow:   func(*kit.Row) bool { return true },
			Each:    c30Month,
		}},
		Close: c30Release,
	}
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
	parsed                    []string
	books                     map[string]*snapshots.Code
	order                     []string
	asOf                      string
	unpublished, notAvailable int
	// the workbook being read: its columns, the previous month, months and values read
	cols           []c30Column
	headers        map[int]string
	prev           time.Time
	months, values int
}

// c30Header checks the header row holds Date and the workbook's lines in order, and records
// each line in the line_path codebook; a sheet whose header is not the workbook's is
// reported and not read.
func c30Header(s *kit.SheetRead) bool {
	b, st, name := s.File.Book, s.File.Book.State.(*c30Build), s.File.Name
	st.cols, st.headers, st.prev, st.months, st.values = columnsOf(name), map[int]string{}, time.Time{}, 0, 0
	var wrong []string
	if got := strings.TrimSpace(s.Cell(c30HeaderRow, 1).Value); got != "Date" {
		wrong = append(wrong, fmt.Sprintf("A%d is %q, not Date", c30HeaderRow, got))
	}
	for _, c := range st.cols {
		raw := s.Cell(c30HeaderRow, c.col).Value
		st.headers[c.col] = kit.Squash(strings.ReplaceAll(raw, "_x000D_", " "))
		if got := cleanHeader(raw); got != c.want {
			wrong = append(wrong, fmt.Sprintf("%s%d is %q, not %q", grid.ColumnName(c.col), c30HeaderRow, got, c.want))
		}
	}
	if len(wrong) > 0 {
		if len(wrong) > 3 {
			wrong = append(wrong[:3], fmt.Sprintf("and %d more", len(wrong)-3))
		}
		b.Missing = append(b.Missing, fmt.Sprintf("%s sheet %s: %s", name, s.Name, strings.Join(wrong, "; ")))
		s.File.Omit = true
		return false
	}
	b.Found = append(b.Found, fmt.Sprintf("%s: Date and %d lines in row %d", name, len(st.cols), c30HeaderRow))
	for _, c := range st.cols {
		key := c.path
		if code, ok := st.books[key]; ok {
			if !strings.Contains(code.Group, c.sector) {
				code.Group += ", " + c.sector
			}
			continue
		}
		st.books[key] = &snapshots.Code{Code: key, Description: st.headers[c.col], Group: c.sector, InAgencyTable: true,
			Source: &snapshots.CodeSource{SourceFile: name, Sheet: s.Name, SourceRow: c30HeaderRow, SHA256: s.File.SHA256}}
		st.order = append(st.order, key)
	}
	return true
}

// c30Month adds a month's row of every line with a published value.
func c30Month(r *kit.Row) {
	st := r.Book.State.(*c30Build)
	label := strings.TrimSpace(r.CellAt(1).Value)
	t, mark, err := parseMonth(label)
	if err != nil {
		r.Problem(1, "Date", "%v", err)
		return
	}
	if !st.prev.IsZero() && !t.Equal(st.prev.AddDate(0, -1, 0)) {
		r.Book.Incomplete = append(r.Book.Incomplete, fmt.Sprintf("%s!A%d: %s follows %s (months run newest first, one by one)", r.File.Name, r.N, t.Format("2006-01"), st.prev.Format("2006-01")))
	}
	st.prev = t
	st.months++
	period := t.Format("2006-01")
	for _, c := range st.cols {
		cell := r.CellAt(c.col)
		v, err := kit.Number(cell)
		if err != nil {
			r.Problem(c.col, c.line, "%v", err)
			continue
		}
		if v == nil {
			st.unpublished++
			continue
		}
		if r.File.Name == "pubsatime.xlsx" && c.level > 0 && t.Year() < 2002 && v.(float64) == 0 {
			st.notAvailable++
			continue
		}
		var parent any
		if c.parent != "" {
			parent = c.parent
		}
		r.Add().
			Set("sector", c.sector).
			Set("line", c.line).
			Set("line_path", c.path).
			Set("parent_line", parent).
			Set("level", c.level).
			Set("column_header", st.headers[c.col]).
			Set("source_column", grid.ColumnName(c.col)).
			Set("observation_date", t.Format("2006-01-02")).
			Set("period", period).
			Set("year", t.Year()).
			Set("mark", mark).
			SetCell("value_musd", c.col, v).
			Set("unit", c30Unit).
			Key(c.sector + ":" + c.path + ":" + period)
		st.values++
	}
}

// c30Release reads the release date from the source line after the months: the snapshot is
// as of the latest workbook's.
func c30Release(fr *kit.FileRead) error {
	st := fr.Book.State.(*c30Build)
	if len(fr.Sheets) == 0 || fr.Omit {
		fr.Omit = true
		return nil
	}
	s := fr.Sheets[0]
	release := ""
	for r := s.End; r <= s.NumRows(); r++ {
		if m := sourceLine.FindStringSubmatch(strings.TrimSpace(s.Cell(r, 1).Value)); m != nil {
			t, err := kit.ParseDate(m[1])
			if err != nil {
				return fmt.Errorf("census c30: %s row %d: release date: %w", fr.Name, r, err)
			}
			release = t.Format("2006-01-02")
			break
		}
	}
	if release == "" {
		fr.Book.Incomplete = append(fr.Book.Incomplete, fmt.Sprintf("%s sheet %s: no \"Source: U.S. Census Bureau, Construction Spending, <date>\" line after the %d months read: the sheet is cut short", fr.Name, s.Name, st.months))
	} else if release > st.asOf {
		st.asOf = release
	}
	st.parsed = append(st.parsed, fmt.Sprintf("%s: %d months, %d values", fr.Name, st.months, st.values))
	fr.Source.Title = strings.TrimSpace(s.Cell(1, 1).Value)
	fr.Source.Release = release
	return nil
}

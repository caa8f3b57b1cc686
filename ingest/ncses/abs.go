// Package ncses ingests the tables of the National Center for Science and Engineering
// Statistics (NSF): the Annual Business Survey tables on technology use, in a third party's
// CSV conversion (derived files).
package ncses

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Publisher is who every table of this package is cited to.
const Publisher = "NSF National Center for Science and Engineering Statistics (NCSES) and U.S. Census Bureau, Annual Business Survey"

// ABSFolder is the raw directory's folder of the converted ABS tables.
const ABSFolder = "aiinfra_robotics/ncses_abs"

const (
	// officialURL is the NCSES address of the survey's data the tables were converted from.
	officialURL = "https://ncses.nsf.gov/surveys/annual-business-survey"
	// copyURL is where the converted CSVs were taken from (the table id completes it).
	copyURL    = "https://github.com/bq-org/ncses_stats_explorer_placeholder/blob/1f879ab65ed260668840db406611ddc10e8455bc/output/tables/%s/data.csv"
	noDataAsOf = "1900-01-01"
)

// ABS ingests robotics.adoption from the converted Annual Business Survey tables, one
// snapshot of every table found: a row per published cell. NCSES publishes these tables as
// web pages, not as files at a stable address, so nothing is downloaded; the converted CSVs
// are placed by hand.
var ABS = kit.New(&kit.Spec{
	Cap:     capability.RoboticsAdoption,
	Version: "ncses-abs/1",
	Folders: []string{ABSFolder},
	Files: []*kit.File{{
		Match: tableNames(),
		Source: func(name string, _ []string) (string, string, string) {
			t, _ := tableOf(name)
			return "NCSES-ABS-table-" + t.id, Publisher, fmt.Sprintf(copyURL, t.id)
		},
		Derived: true, OriginalURL: officialURL,
		Together: true,
		Open: func(fr *kit.FileRead) error {
			st := fr.Book.State.(*absBuild)
			st.table, _ = tableOf(fr.Name)
			st.rowsRead, st.cells = 0, 0
			return nil
		},
		Sheets: []*kit.Sheet{{
			Header: 1,
			Columns: []kit.Column{
				{Field: "table_id", At: 1},
				{Field: "row_id", At: 2},
			},
			Begin: absLayout,
			IsRow: func(r *kit.Row) bool { return len(r.Sheet.Sheet.Row(r.N)) > 0 },
			Each:  absRow,
		}},
		Close: absTableRead,
	}},
	State: func() any { return &absBuild{} },
	AsOf: func(b *kit.Book) (string, error) {
		if y := b.State.(*absBuild).latestYear; y != "" {
			return y + "-12-31", nil
		}
		return noDataAsOf, nil
	},
	Gates: func(b *kit.Book) []snapshots.Gate {
		st := b.State.(*absBuild)
		detail := strings.Join(st.read, "; ") + fmt.Sprintf("; %d cells withheld (D) kept as suppression atoms; %d group-heading rows and %d blank cells hold no value", st.suppressed, st.heads, st.blank)
		return []snapshots.Gate{
			b.HeadersGate(strings.Join(b.Found, "; ")),
			b.CellsGate(detail),
			b.CompleteGate("every table has all its published rows, r001 onwards"),
		}
	},
	Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 1e9}, "hierarchy_depth": {Min: 1, Max: 6}},
	Required: []string{"table_id", "data_year", "breakdown", "row_id", "column_name", "technology", "measure", "unit"},
})

// tableNames matches the file name of every table.
func tableNames() *regexp.Regexp {
	var names []string
	for _, t := range absTables {
		names = append(names, regexp.QuoteMeta(t.file))
	}
	return regexp.MustCompile(`^(` + strings.Join(names, "|") + `)$`)
}

func tableOf(name string) (absTable, bool) {
	for _, t := range absTables {
		if t.file == name {
			return t, true
		}
	}
	return absTable{}, false
}

// column is what one value column of a table holds.
type column struct {
	col                                 int
	header                              string
	measure, unit                       string
	technology, response, sector, sizeC string
}

// absBuild is the state of one build, and of the table being read.
type absBuild struct {
	read                     []string
	suppressed, blank, heads int
	latestYear               string

	table           absTable
	cols            []column
	rowsRead, cells int
}

// layout checks the header row of table t and returns its value columns.
func layout(t absTable, h *kit.Header) ([]column, []string) {
	var problems []string
	dims := industryDims
	switch t.kind {
	case "size":
		dims = sizeDims
	case "tech_by_sector", "tech_by_size":
		dims = techDims
	}
	want := append([]string{"table_id", "row_id"}, dims...)
	for i, l := range want {
		if h.Label(i+1) != l {
			problems = append(problems, fmt.Sprintf("column %s is %q, not %s", grid.ColumnName(i+1), h.Label(i+1), l))
		}
	}
	var cols []column
	for c := len(want) + 1; c <= len(h.Labels()); c++ {
		l := h.Label(c)
		col := column{col: c, header: l, measure: "percent_of_companies", unit: "percent of companies", technology: t.technology}
		switch {
		case l == companiesColumn && (t.kind == "industry" || t.kind == "size"):
			col.measure, col.unit = "companies_number", "companies"
		case t.kind == "tech_by_sector" && sectors[l] != "":
			col.sector, col.response = sectors[l], "using"
		case t.kind == "tech_by_size" && sizes[l] != "":
			col.sizeC, col.response = sizes[l], "using"
		case t.technology == "" && technologies[l] != "":
			col.technology, col.response = technologies[l], "using"
		case t.technology != "" && answers[l] != "":
			col.response = answers[l]
		default:
			problems = append(problems, fmt.Sprintf("column %s header %q is not a value column of table %s", grid.ColumnName(c), l, t.id))
			continue
		}
		cols = append(cols, col)
	}
	if len(cols) == 0 {
		problems = append(problems, "no value column")
	}
	return cols, problems
}

// absLayout checks the table's header row and finds its value columns; a table whose header
// is not its own is reported and not read.
func absLayout(s *kit.SheetRead) bool {
	b, st := s.File.Book, s.File.Book.State.(*absBuild)
	cols, problems := layout(st.table, s.Header)
	if len(problems) > 0 {
		b.Missing = append(b.Missing, fmt.Sprintf("%s: %s", s.File.Name, strings.Join(problems, "; ")))
		s.File.Omit = true
		return false
	}
	st.cols = cols
	b.Found = append(b.Found, fmt.Sprintf("%s: %d value columns", s.File.Name, len(cols)))
	return true
}

// absRow adds a row's published cells, one row each: a row without any is a group heading.
func absRow(r *kit.Row) {
	st, t := r.Book.State.(*absBuild), r.Book.State.(*absBuild).table
	st.rowsRead++
	rowID := r.Text("row_id")
	if want := fmt.Sprintf("r%03d", st.rowsRead); rowID != want {
		r.Book.Incomplete = append(r.Book.Incomplete, fmt.Sprintf("%s line %d: row %q where %s was expected", r.File.Name, r.N, rowID, want))
	}
	if id := r.Text("table_id"); id != t.id {
		r.Problem(1, "table_id", "%q, not %s", id, t.id)
		return
	}
	dim := rowDims(t, r.Sheet.Header, r.Sheet.Sheet, r.N)
	type parsed struct {
		c             column
		v, supp, flag any
	}
	var vals []parsed
	for _, c := range st.cols {
		v, supp, flag, blank, err := kit.ListCell(r.CellAt(c.col).Value)
		if err != nil {
			r.Problem(c.col, c.header, "%v", err)
			continue
		}
		if blank {
			st.blank++
			continue
		}
		vals = append(vals, parsed{c, v, supp, flag})
	}
	if len(vals) == 0 {
		st.heads++
		st.blank -= len(st.cols)
		return
	}
	for _, pv := range vals {
		c := pv.c
		var tech any = c.technology
		industry, industryPath, size, sizePath := dim.industry, dim.industryPath, dim.size, dim.sizePath
		breakdown := map[string]string{"industry": "industry", "size": "company_size", "tech_by_sector": "sector", "tech_by_size": "company_size"}[t.kind]
		switch t.kind {
		case "tech_by_sector", "tech_by_size":
			tech = dim.technology
			if c.sector != "" {
				industry, industryPath = c.sector, c.sector
			}
			if c.sizeC != "" {
				size, sizePath = c.sizeC, c.sizeC
			}
		}
		withheld := 0
		if pv.supp != nil {
			st.suppressed++
			withheld = 1
		}
		var response any
		if c.response != "" {
			response = c.response
		}
		r.Add().
			Set("table_title", t.title).
			Set("data_year", t.dataYear).
			Set("survey", t.survey).
			Set("breakdown", breakdown).
			Set("column_name", c.header).
			Set("source_column", grid.ColumnName(c.col)).
			Set("industry", industry).
			Set("industry_path", industryPath).
			Set("naics_code", dim.naics).
			Set("company_size", size).
			Set("company_size_path", sizePath).
			Set("hierarchy_depth", dim.depth).
			Set("technology", tech).
			Set("response", response).
			Set("measure", c.measure).
			Set("unit", c.unit).
			SetCell("value", c.col, pv.v).
			Set("suppression", pv.supp).
			SetCell("withheld", c.col, withheld).
			Set("flag", pv.flag).
			Key(t.id + ":" + rowID + ":" + c.header)
		st.cells++
	}
}

// absTableRead checks the table has all its published rows and says what was read.
func absTableRead(fr *kit.FileRead) error {
	if fr.Omit {
		return nil
	}
	st, t := fr.Book.State.(*absBuild), fr.Book.State.(*absBuild).table
	if st.rowsRead != t.rows {
		fr.Book.Incomplete = append(fr.Book.Incomplete, fmt.Sprintf("%s: %d rows, the published table has %d", fr.Name, st.rowsRead, t.rows))
	}
	if st.latestYear == "" || yearEnd(t.dataYear) > st.latestYear {
		st.latestYear = yearEnd(t.dataYear)
	}
	st.read = append(st.read, fmt.Sprintf("table %s: %d rows, %d cells", t.id, st.rowsRead, st.cells))
	fr.Source.Title = t.title + " (NCSES table " + t.id + ", " + t.survey + ")"
	fr.Source.Release = t.survey + ", data year " + t.dataYear
	return nil
}

// yearEnd is the last year of a data year such as "2016-18".
func yearEnd(dataYear string) string {
	if i := strings.Index(dataYear, "-"); i > 0 {
		return dataYear[:2] + dataYear[i+1:]
	}
	return dataYear
}

// dims is a row's dimensions.
type dims struct {
	industry, industryPath, naics, size, sizePath, technology any
	depth                                                     any
}

// rowDims reads the row dimension columns of row r (HTML entities decoded, white space
// trimmed).
func rowDims(t absTable, h *kit.Header, sh *grid.Sheet, r int) dims {
	text := func(label string) any {
		if c := h.Col(label); c > 0 {
			if s := strings.TrimSpace(html.UnescapeString(sh.Cell(r, c).Value)); s != "" {
				return s
			}
		}
		return nil
	}
	last := func(path any) any {
		if path == nil {
			return nil
		}
		parts := strings.Split(path.(string), " -> ")
		return strings.TrimSpace(parts[len(parts)-1])
	}
	depth := func(label string) any {
		if c := h.Col(label); c > 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(sh.Cell(r, c).Value)); err == nil {
				return n
			}
		}
		return nil
	}
	var d dims
	switch t.kind {
	case "industry":
		d.industryPath = text("industry_full_path")
		d.industry = last(d.industryPath)
		d.naics = text("field_naics_code")
		d.depth = depth("industry_hierarchy_depth")
	case "size":
		d.sizePath = text("employment_size_full_path")
		d.size = last(d.sizePath)
		d.depth = depth("employment_size_hierarchy_depth")
	default:
		d.technology = text("technology")
	}
	return d
}

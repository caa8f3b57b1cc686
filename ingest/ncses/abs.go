// Package ncses ingests the tables of the National Center for Science and Engineering
// Statistics (NSF): the Annual Business Survey tables on technology use, in a third party's
// CSV conversion (derived files).
package ncses

import (
	"fmt"
	"html"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
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

// ABS ingests robotics.adoption from the converted Annual Business Survey tables.
type ABS struct{}

// Capability implements ingest.Adapter.
func (ABS) Capability() *capability.Capability { return capability.RoboticsAdoption }

// Version implements ingest.Adapter.
func (ABS) Version() string { return "ncses-abs/1" }

// Folders implements ingest.Adapter.
func (ABS) Folders() []string { return []string{ABSFolder} }

// Known implements ingest.Adapter: NCSES publishes these tables as web pages, not as files
// at a stable address, so nothing is downloaded; the converted CSVs are placed by hand.
func (ABS) Known() []fetch.Source { return nil }

func tableOf(name string) (absTable, bool) {
	for _, t := range absTables {
		if t.file == name {
			return t, true
		}
	}
	return absTable{}, false
}

// Plan implements ingest.Adapter: one snapshot of every table found.
func (ABS) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { _, ok := tableOf(n); return ok })
	if err != nil {
		return nil, fmt.Errorf("ncses abs plan: %w", err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	var files []ingest.File
	for _, p := range paths {
		t, _ := tableOf(filepath.Base(p))
		files = append(files, ingest.File{Path: p, SourceID: "NCSES-ABS-table-" + t.id, Publisher: Publisher,
			URL: fmt.Sprintf(copyURL, t.id), Role: ingest.RoleData, Derived: true, OriginalURL: officialURL})
	}
	return []ingest.Plan{{Files: files}}, nil
}

// column is what one value column of a table holds.
type column struct {
	col                                 int
	header                              string
	measure, unit                       string
	technology, response, sector, sizeC string
}

// absBuild is the state of one build.
type absBuild struct {
	rows                        *ingest.Rows
	bad                         kit.Problems
	missing, found, short, read []string
	suppressed, blank, heads    int
	latestYear                  string
}

// Build implements ingest.Adapter.
func (ABS) Build(p ingest.Plan) (*ingest.Build, error) {
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 1e9}, "hierarchy_depth": {Min: 1, Max: 6}},
		Required: []string{"table_id", "data_year", "breakdown", "row_id", "column_name", "technology", "measure", "unit"},
	}
	st := &absBuild{rows: ingest.NewRows(capability.RoboticsAdoption)}
	for i := range p.Files {
		src, err := st.readTable(&p.Files[i])
		if err != nil {
			return nil, err
		}
		if src != nil {
			b.Sources = append(b.Sources, *src)
		}
	}
	asOf := noDataAsOf
	if st.latestYear != "" {
		asOf = st.latestYear + "-12-31"
	}
	facts, err := st.rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("ncses abs: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, st.rows.Cells()
	detail := strings.Join(st.read, "; ") + fmt.Sprintf("; %d cells withheld (D) kept as suppression atoms; %d group-heading rows and %d blank cells hold no value", st.suppressed, st.heads, st.blank)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, st.missing, strings.Join(st.found, "; ")),
		st.bad.Gate(kit.GateCells, detail),
		kit.Failures(kit.GateComplete, st.short, "every table has all its published rows, r001 onwards"))
	return b, nil
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

// readTable reads one converted table; it returns its source (nil when its header is not
// the table's, which the headers gate reports).
func (st *absBuild) readTable(f *ingest.File) (*snapshots.Source, error) {
	name := filepath.Base(f.Path)
	t, ok := tableOf(name)
	if !ok {
		return nil, fmt.Errorf("ncses abs: %s: no table of this name is read", name)
	}
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("ncses abs: %w", err)
	}
	sh := wb.Sheets[0]
	h := kit.HeaderAt(sh, 1)
	cols, problems := layout(t, h)
	if len(problems) > 0 {
		st.missing = append(st.missing, fmt.Sprintf("%s: %s", name, strings.Join(problems, "; ")))
		return nil, nil
	}
	st.found = append(st.found, fmt.Sprintf("%s: %d value columns", name, len(cols)))
	rowsRead, cells := 0, 0
	for r := 2; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 {
			continue
		}
		rowsRead++
		rowID := strings.TrimSpace(sh.Cell(r, 2).Value)
		if want := fmt.Sprintf("r%03d", rowsRead); rowID != want {
			st.short = append(st.short, fmt.Sprintf("%s line %d: row %q where %s was expected", name, r, rowID, want))
		}
		if id := strings.TrimSpace(sh.Cell(r, 1).Value); id != t.id {
			st.bad.Add("%s line %d: table_id %q, not %s", name, r, id, t.id)
			continue
		}
		dim := rowDims(t, h, sh, r)
		type parsed struct {
			c             column
			v, supp, flag any
		}
		var vals []parsed
		for _, c := range cols {
			v, supp, flag, blank, err := kit.ListCell(sh.Cell(r, c.col).Value)
			if err != nil {
				st.bad.Add("%s line %d column %s: %v", name, r, c.header, err)
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
			st.blank -= len(cols)
			continue
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
			st.rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}).
				SetCell("table_id", 1, t.id).
				Set("table_title", t.title).
				Set("data_year", t.dataYear).
				Set("survey", t.survey).
				Set("breakdown", breakdown).
				SetCell("row_id", 2, rowID).
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
			cells++
		}
	}
	if rowsRead != t.rows {
		st.short = append(st.short, fmt.Sprintf("%s: %d rows, the published table has %d", name, rowsRead, t.rows))
	}
	if st.latestYear == "" || yearEnd(t.dataYear) > st.latestYear {
		st.latestYear = yearEnd(t.dataYear)
	}
	st.read = append(st.read, fmt.Sprintf("table %s: %d rows, %d cells", t.id, rowsRead, cells))
	src := f.Source()
	src.Title = t.title + " (NCSES table " + t.id + ", " + t.survey + ")"
	src.Release = t.survey + ", data year " + t.dataYear
	src.HeaderRows = map[string]int{sh.Name: 1}
	return &src, nil
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

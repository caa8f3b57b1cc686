package eia

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
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

// EIA860M ingests power.capacity from the EIA-860M monthly generator inventory workbooks
// (<month>_generator<year>.xlsx), one snapshot per workbook, with codebooks from the
// EIA-860 layout file's code tables and the EIA-861 balancing authority list.
type EIA860M struct{}

const (
	eia860mSourceID = "eia860m"
	// Publisher is the agency every adapter of this package cites.
	Publisher = "U.S. Energy Information Administration"
)

// Capability implements Adapter.
func (EIA860M) Capability() *capability.Capability { return capability.PowerCapacity }

// Version implements Adapter.
func (EIA860M) Version() string { return "eia860m/1" }

var (
	generatorFile = regexp.MustCompile(`^(?i)(january|february|march|april|may|june|july|august|september|october|november|december)_generator(\d{4})\.xlsx$`)
	layoutFile    = regexp.MustCompile(`^LayoutY(\d{4})\.xlsx$`)
	baFile        = regexp.MustCompile(`^Balancing_Authority_(\d{4})\.xlsx$`)
)

// Known implements Adapter.
func (EIA860M) Known() []fetch.Source {
	return []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia860m/archive/xls/may_generator2016.xlsx", Kind: fetch.XLSX, Dest: "eia/eia860m/may_generator2016.xlsx"},
		// A vintage in the current layout (header in row 3, the columns the 2016 file lacks,
		// the Puerto Rico sheets).
		{URL: "https://www.eia.gov/electricity/data/eia860m/archive/xls/december_generator2025.xlsx", Kind: fetch.XLSX, Dest: "eia/eia860m/december_generator2025.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Balancing_Authority_2018.xlsx", Dest: "eia/eia861/Balancing_Authority_2018.xlsx"},
	}
}

// Folders implements Adapter.
func (EIA860M) Folders() []string { return []string{"eia/eia860m", "eia/eia860", "eia/eia861"} }

// Plan implements Adapter: every generator workbook is one snapshot; the newest layout file
// and balancing authority list found are its reference files.
func (EIA860M) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	gens, err := files.Find(generatorFile.MatchString)
	if err != nil {
		return nil, err
	}
	if len(gens) == 0 {
		return nil, nil
	}
	var refs []ingest.File
	if p, err := newest(files, layoutFile); err != nil {
		return nil, err
	} else if p != "" {
		y := layoutFile.FindStringSubmatch(filepath.Base(p))[1]
		refs = append(refs, ingest.File{Path: p, SourceID: "eia860", Publisher: Publisher, Role: "reference",
			URL: eia860URL(y, filepath.Base(p))})
	}
	if p, err := newest(files, baFile); err != nil {
		return nil, err
	} else if p != "" {
		y := baFile.FindStringSubmatch(filepath.Base(p))[1]
		refs = append(refs, ingest.File{Path: p, SourceID: "eia861", Publisher: Publisher, Role: "reference",
			URL: eia861URL(y, filepath.Base(p))})
	}
	var plans []ingest.Plan
	for _, g := range gens {
		name := filepath.Base(g)
		month, _ := reportMonthFromName(name)
		files := []ingest.File{{Path: g, SourceID: eia860mSourceID, Publisher: Publisher, Role: "data",
			URL: "https://www.eia.gov/electricity/data/eia860m/archive/xls/" + name}}
		plans = append(plans, ingest.Plan{AsOfHint: monthEnd(month), Files: append(files, refs...)})
	}
	return plans, nil
}

// yearReference returns the reference file named sameYear when the finder has one, else
// fallback (the newest of its kind, or "" when there is none).
func yearReference(files *ingest.Finder, sameYear, fallback string) (string, error) {
	same, err := files.Named(sameYear)
	if err != nil || len(same) == 0 {
		return fallback, err
	}
	return same[0], nil
}

func newest(files *ingest.Finder, re *regexp.Regexp) (string, error) {
	ps, err := files.Find(re.MatchString)
	if err != nil || len(ps) == 0 {
		return "", err
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if re.FindStringSubmatch(filepath.Base(p))[1] > re.FindStringSubmatch(filepath.Base(best))[1] {
			best = p
		}
	}
	return best, nil
}

func reportMonthFromName(name string) (time.Time, bool) {
	m := generatorFile.FindStringSubmatch(name)
	if m == nil {
		return time.Time{}, false
	}
	month := strings.ToLower(m[1])
	t, err := time.Parse("January 2006", strings.ToUpper(month[:1])+month[1:]+" "+m[2])
	return t, err == nil
}

func monthEnd(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.AddDate(0, 1, -1).Format("2006-01-02")
}

// sheetSpec describes one sheet of the inventory.
type sheetSpec struct {
	name, lifecycle string
	// required headers beyond the shared ones.
	extra []string
	// optional sheets are read when the workbook has them: the Puerto Rico sheets
	// (Operating_PR, Planned_PR, Retired_PR) of later vintages. Their NOTES footnote is not
	// required, since no layout note states that they carry one.
	optional bool
}

var inventorySheets = []sheetSpec{
	{"Operating", "operating", []string{"Operating Month", "Operating Year", "Status"}, false},
	{"Planned", "planned", []string{"Planned Operation Month", "Planned Operation Year", "Status"}, false},
	{"Retired", "retired", []string{"Retirement Month", "Retirement Year", "Operating Month", "Operating Year"}, false},
	{"Canceled or Postponed", "canceled_or_postponed", nil, false},
	{"Operating_PR", "operating", []string{"Operating Month", "Operating Year", "Status"}, true},
	{"Planned_PR", "planned", []string{"Planned Operation Month", "Planned Operation Year", "Status"}, true},
	{"Retired_PR", "retired", []string{"Retirement Month", "Retirement Year", "Operating Month", "Operating Year"}, true},
}

// sharedHeaders are the columns every sheet of every vintage publishes (columns A–L in 2016;
// later vintages move them and add others, all read by header name).
var sharedHeaders = []string{"Entity ID", "Entity Name", "Plant ID", "Plant Name", "Sector", "Plant State", "Generator ID",
	"Nameplate Capacity (MW)", "Net Summer Capacity (MW)", "Technology", "Energy Source Code", "Prime Mover Code"}

// inventoryHeaderRow is where the 2016 vintage puts its header row (title in row 1); later
// vintages leave row 2 blank and put it in row 3. The header row is the first whose column A
// reads "Entity ID"; this row is assumed when none does (and the missing labels fail
// headers_present).
const inventoryHeaderRow = 2

// headerRowOf finds the sheet's header row among its first rows by the "Entity ID" label in
// column A.
func headerRowOf(sh *grid.Sheet) int {
	for r := 1; r <= min(10, sh.NumRows()); r++ {
		if kit.Norm(sh.Cell(r, 1).Value) == kit.Norm("Entity ID") {
			return r
		}
	}
	return inventoryHeaderRow
}

var titleMonth = regexp.MustCompile(`as of ([A-Z][a-z]+ \d{4})`)

var statusCode = regexp.MustCompile(`^\(([A-Z0-9]+)\)`)

// statesAndDC are the jurisdictions counted in default U.S. metrics.
var statesAndDC = strings.Fields("AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY")

// Build implements Adapter.
func (a EIA860M) Build(p ingest.Plan) (*ingest.Build, error) {
	data, refs := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("no generator workbook in the plan")
	}
	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(data.Path)
	month, _ := reportMonthFromName(name)
	var checks []snapshots.Gate
	// The sheet titles state the report month; they must agree with the file name.
	titleGate := snapshots.Gate{Name: "report_month_consistent", Passed: true}
	for _, s := range inventorySheets {
		sh := wb.Sheet(s.name)
		if sh == nil {
			continue
		}
		m := titleMonth.FindStringSubmatch(sh.Cell(1, 1).Value)
		if m == nil {
			continue
		}
		t, err := time.Parse("January 2006", m[1])
		if err != nil {
			continue
		}
		if month.IsZero() {
			month = t
		}
		if !t.Equal(month) {
			titleGate.Passed = false
			titleGate.Detail = fmt.Sprintf("sheet %s title says %s but the file name %s says %s", s.name, m[1], name, month.Format("January 2006"))
		}
	}
	if month.IsZero() {
		return nil, fmt.Errorf("%s: no report month in the file name or the sheet titles", name)
	}
	if titleGate.Passed {
		titleGate.Detail = "sheet titles and file name agree on " + month.Format("January 2006")
	}
	checks = append(checks, titleGate)
	reportMonth := month.Format("2006-01")
	asOf := monthEnd(month)

	codebooks, fuelGroup, cbCheck, err := a.codebooks(refs)
	if err != nil {
		return nil, err
	}
	checks = append(checks, cbCheck)

	src := data.Source()
	src.Release = reportMonth
	src.Title = "EIA-860M Preliminary Monthly Electric Generator Inventory, as of " + month.Format("January 2006")
	src.HeaderRows = map[string]int{}
	rows := ingest.NewRows(capability.PowerCapacity)
	var bad kit.Problems
	var rec kit.Reconcile
	var missing, incomplete []string
	for _, s := range inventorySheets {
		sh := wb.Sheet(s.name)
		if sh == nil {
			if !s.optional {
				missing = append(missing, fmt.Sprintf("sheet %q is missing", s.name))
			}
			continue
		}
		headerRow := headerRowOf(sh)
		src.HeaderRows[s.name] = headerRow
		hdr := kit.HeaderAt(sh, headerRow)
		if absent := hdr.Missing(append(append([]string{}, sharedHeaders...), s.extra...)...); len(absent) > 0 {
			missing = append(missing, fmt.Sprintf("sheet %s row %d lacks %q", s.name, headerRow, absent))
			continue
		}
		// The agency closes every main sheet with a NOTES footnote; a sheet cut short has none.
		last := sh.Row(sh.NumRows())
		if !s.optional && (len(last) == 0 || !strings.HasPrefix(strings.TrimSpace(last[0].Value), "NOTES")) {
			incomplete = append(incomplete, fmt.Sprintf("sheet %s ends at row %d without the agency's NOTES footnote", s.name, sh.NumRows()))
		}
		n0 := rows.Len()
		var sheetMW float64
		for r := headerRow + 1; r <= sh.NumRows(); r++ {
			if _, err := kit.Int(sh.Cell(r, 1)); err != nil || sh.Cell(r, 1).Kind == grid.Empty {
				continue // title, blank and footnote rows: not data
			}
			row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: s.name, Row: r, SHA256: data.SHA256})
			cell := func(h string) (int, grid.Cell) {
				c := hdr.Col(h)
				if c == 0 {
					return 0, grid.Cell{}
				}
				return c, sh.Cell(r, c)
			}
			num := func(field, h string) any {
				c, cl := cell(h)
				v, err := kit.Number(cl)
				if err != nil {
					bad.Add("%s!%s%d %s: %v", s.name, grid.ColumnName(c), r, h, err)
				}
				row.SetCell(field, c, v)
				return v
			}
			integer := func(field, h string) any {
				c, cl := cell(h)
				v, err := kit.Int(cl)
				if err != nil {
					bad.Add("%s!%s%d %s: %v", s.name, grid.ColumnName(c), r, h, err)
				}
				row.SetCell(field, c, v)
				return v
			}
			text := func(field, h string) any {
				c, cl := cell(h)
				v := kit.Text(cl)
				row.SetCell(field, c, v)
				return v
			}
			row.Set("report_month", reportMonth)
			row.Set("lifecycle", s.lifecycle)
			row.Set("sheet_name", s.name)
			text("eia_entity_identity_name", "Entity Name")
			plant := integer("eia_plant_id", "Plant ID")
			text("plant_name", "Plant Name")
			gen := text("generator_id", "Generator ID")
			text("unit_code", "Unit Code")
			st := text("state", "Plant State")
			text("county", "County")
			text("balancing_authority_code", "Balancing Authority Code")
			num("lat", "Latitude")
			num("lon", "Longitude")
			text("sector", "Sector")
			text("technology", "Technology")
			if esc := text("energy_source_code", "Energy Source Code"); esc != nil {
				if g, ok := fuelGroup[esc.(string)]; ok {
					row.Set("fuel_group", g)
				}
			}
			text("prime_mover_code", "Prime Mover Code")
			mw := num("nameplate_mw", "Nameplate Capacity (MW)")
			num("net_summer_mw", "Net Summer Capacity (MW)")
			num("net_winter_mw", "Net Winter Capacity (MW)")
			num("nameplate_energy_mwh", "Nameplate Energy Capacity (MWh)")
			num("dc_net_capacity_mw", "DC Net Capacity (MW)")
			if status := text("status_raw", "Status"); status != nil {
				if m := statusCode.FindStringSubmatch(status.(string)); m != nil {
					row.Set("status_code", s.lifecycle+"."+m[1])
				} else {
					bad.Add("%s!%s%d Status: %q has no (CODE)", s.name, grid.ColumnName(hdr.Col("Status")), r, status)
				}
			}
			for _, d := range inventoryDates {
				mo := integer(d.prefix+"_month", d.monthH)
				yr := integer(d.prefix+"_year", d.yearH)
				if mo != nil && yr != nil && mo.(int64) >= 1 && mo.(int64) <= 12 {
					row.Set(d.prefix+"_date", fmt.Sprintf("%04d-%02d-01", yr.(int64), mo.(int64)))
				}
			}
			scope := "us_territory"
			if st != nil && slices.Contains(statesAndDC, st.(string)) {
				scope = "us_state_or_dc"
			}
			row.Set("region_scope", scope)
			row.Set("included_in_default_us_metrics", scope == "us_state_or_dc")
			row.Key(fmt.Sprintf("%s:%s:%s:%v:%v", data.SourceID, reportMonth, s.lifecycle, orEmpty(plant), orEmpty(gen)))
			if v, ok := mw.(float64); ok {
				sheetMW += v
			}
		}
		// Reconcile with the sheet read a second way: every row with an id in column A is a
		// generator, and column H (by header) sums to the same nameplate total.
		dataRows, rawMW := sheetTotals(sh, headerRow, hdr.Col("Nameplate Capacity (MW)"))
		rec.Sheet(s.name, rows.Len()-n0, sheetMW, dataRows, rawMW, "MW")
	}
	checks = append(checks,
		kit.Failures(kit.GateHeaders, missing, "all four sheets (and any Puerto Rico sheet) have the expected header row"),
		kit.Failures(kit.GateComplete, incomplete, "each of the four sheets ends with its NOTES footnote"),
		rec.Gate(),
		bad.Gate(kit.GateCells, "every numeric cell parses or is a published blank"))
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	codebooks = ingest.CountCodes(capability.PowerCapacity, codebooks, facts)
	sources := []snapshots.Source{src}
	for _, f := range refs {
		sources = append(sources, f.Source())
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: sources, Codebooks: codebooks, Checks: checks, Cells: rows.Cells(),
		Ranges: map[string]snapshots.Range{
			"nameplate_mw": {Min: 0, Max: 5000}, "net_summer_mw": {Min: -100, Max: 5000}, "net_winter_mw": {Min: -100, Max: 5000},
			"lat": {Min: -90, Max: 90}, "lon": {Min: -180, Max: 180},
			"operating_year": {Min: 1870, Max: 2100}, "planned_operation_year": {Min: 1900, Max: 2100},
			"planned_retirement_year": {Min: 1900, Max: 2150}, "retirement_year": {Min: 1870, Max: 2100},
			"operating_month": unknownMonth, "planned_operation_month": unknownMonth,
			"planned_retirement_month": unknownMonth, "retirement_month": unknownMonth,
		},
		Required: []string{"lifecycle", "eia_plant_id", "generator_id", "state", "source_record_key"},
	}, nil
}

// inventoryDates are the month and year columns of the inventory, each giving a date.
var inventoryDates = []struct{ prefix, monthH, yearH string }{
	{"operating", "Operating Month", "Operating Year"},
	{"planned_operation", "Planned Operation Month", "Planned Operation Year"},
	{"planned_retirement", "Planned Retirement Month", "Planned Retirement Year"},
	{"retirement", "Retirement Month", "Retirement Year"},
}

// unknownMonth admits the months 1–12 and the values the agency writes for a month it does
// not know, 88 and 0
// (kept as published; the derived date is then null).
var unknownMonth = snapshots.Range{Min: 1, Max: 12, Also: []float64{0, 88}}

// sheetTotals counts the rows below the header row whose column A holds an id, and sums
// column c over them.
func sheetTotals(sh *grid.Sheet, headerRow, c int) (int, float64) {
	n, sum := 0, 0.0
	for r := headerRow + 1; r <= sh.NumRows(); r++ {
		a := sh.Cell(r, 1)
		if a.Kind != grid.Number {
			continue
		}
		n++
		if f, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, c).Value), 64); err == nil {
			sum += f
		}
	}
	return n, sum
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

package eia

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// EIA860M ingests power.capacity from the EIA-860M monthly generator inventory workbooks
// (<month>_generator<year>.xlsx), one snapshot per workbook, with codebooks from the newest
// EIA-860 layout file's code tables and the newest EIA-861 balancing authority list.
var EIA860M = kit.New(&kit.Spec{
	Cap:     capability.PowerCapacity,
	Version: "eia860m/1",
	Folders: []string{"eia/eia860m", "eia/eia860", "eia/eia861"},
	Known: []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia860m/archive/xls/may_generator2016.xlsx", Kind: fetch.XLSX, Dest: "eia/eia860m/may_generator2016.xlsx"},
		// A vintage in the current layout (header in row 3, the columns the 2016 file lacks,
		// the Puerto Rico sheets).
		{URL: "https://www.eia.gov/electricity/data/eia860m/archive/xls/december_generator2025.xlsx", Kind: fetch.XLSX, Dest: "eia/eia860m/december_generator2025.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia860/xls/eia8602024.zip", Kind: fetch.XLSX, ZipMember: "LayoutY2024.xlsx", Dest: "eia/eia860/LayoutY2024.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Balancing_Authority_2018.xlsx", Dest: "eia/eia861/Balancing_Authority_2018.xlsx"},
	},
	Files: []*kit.File{{
		Match:    generatorFile,
		SourceID: eia860mSourceID, Publisher: Publisher,
		URL: func(name string, _ []string) string {
			return "https://www.eia.gov/electricity/data/eia860m/archive/xls/" + name
		},
		Hint: func(path string, _ []string) string {
			month, _ := reportMonthFromName(filepath.Base(path))
			return monthEnd(month)
		},
		Open:   reportMonth,
		Sheets: inventory(),
	}},
	Refs: []*kit.Ref{
		{Match: layoutFile, SourceID: "eia860", Publisher: Publisher, URL: func(name string, m []string) string { return eia860URL(m[1], name) }},
		{Match: baFile, SourceID: "eia861", Publisher: Publisher, URL: func(name string, m []string) string { return eia861URL(m[1], name) }},
	},
	State: func() any { return &inventoryState{} },
	Codebooks: func(b *kit.Book) error {
		st := b.State.(*inventoryState)
		var err error
		b.Codebooks, st.fuelGroup, b.CodebookGate, err = inventoryCodebooks(b.Refs)
		return err
	},
	Gates: func(b *kit.Book) []snapshots.Gate {
		return []snapshots.Gate{
			b.State.(*inventoryState).titleGate,
			b.CodebookGate,
			b.HeadersGate("all four sheets (and any Puerto Rico sheet) have the expected header row"),
			b.CompleteGate("each of the four sheets ends with its NOTES footnote"),
			b.Rec.Gate(),
			b.CellsGate("every numeric cell parses or is a published blank"),
		}
	},
	Ranges: map[string]snapshots.Range{
		"nameplate_mw": {Min: 0, Max: 5000}, "net_summer_mw": {Min: -100, Max: 5000}, "net_winter_mw": {Min: -100, Max: 5000},
		"lat": {Min: -90, Max: 90}, "lon": {Min: -180, Max: 180},
		"operating_year": {Min: 1870, Max: 2100}, "planned_operation_year": {Min: 1900, Max: 2100},
		"planned_retirement_year": {Min: 1900, Max: 2150}, "retirement_year": {Min: 1870, Max: 2100},
		"operating_month": unknownMonth, "planned_operation_month": unknownMonth,
		"planned_retirement_month": unknownMonth, "retirement_month": unknownMonth,
	},
	Required: []string{"lifecycle", "eia_plant_id", "generator_id", "state", "source_record_key"},
})

const (
	eia860mSourceID = "eia860m"
	// Publisher is the agency every adapter of this package cites.
	Publisher = "U.S. Energy Information Administration"
)

var (
	generatorFile = regexp.MustCompile(`^(?i)(january|february|march|april|may|june|july|august|september|october|november|december)_generator(\d{4})\.xlsx$`)
	layoutFile    = regexp.MustCompile(`^LayoutY(\d{4})\.xlsx$`)
	baFile        = regexp.MustCompile(`^Balancing_Authority_(\d{4})\.xlsx$`)
)

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

// inventorySheet describes one sheet of the inventory.
type inventorySheet struct {
	name, lifecycle string
	// required headers beyond the shared ones.
	extra []string
	// optional sheets are read when the workbook has them: the Puerto Rico sheets
	// (Operating_PR, Planned_PR, Retired_PR) of later vintages. Their NOTES footnote is not
	// required, since no layout note states that they carry one.
	optional bool
}

var inventorySheets = []inventorySheet{
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

// inventoryColumns are the columns read from every sheet, by field; a sheet must have the
// shared headers and its own required ones, the others are read where a vintage has them.
var inventoryColumns = []kit.Column{
	{Header: "Entity ID"},
	{Field: "eia_entity_identity_name", Header: "Entity Name"},
	{Field: "eia_plant_id", Header: "Plant ID", Kind: kit.AsInt},
	{Field: "plant_name", Header: "Plant Name"},
	{Field: "generator_id", Header: "Generator ID"},
	{Field: "unit_code", Header: "Unit Code"},
	{Field: "state", Header: "Plant State"},
	{Field: "county", Header: "County"},
	{Field: "balancing_authority_code", Header: "Balancing Authority Code"},
	{Field: "lat", Header: "Latitude", Kind: kit.AsNumber},
	{Field: "lon", Header: "Longitude", Kind: kit.AsNumber},
	{Field: "sector", Header: "Sector"},
	{Field: "technology", Header: "Technology"},
	{Field: "energy_source_code", Header: "Energy Source Code"},
	{Field: "prime_mover_code", Header: "Prime Mover Code"},
	{Field: "nameplate_mw", Header: "Nameplate Capacity (MW)", Kind: kit.AsNumber},
	{Field: "net_summer_mw", Header: "Net Summer Capacity (MW)", Kind: kit.AsNumber},
	{Field: "net_winter_mw", Header: "Net Winter Capacity (MW)", Kind: kit.AsNumber},
	{Field: "nameplate_energy_mwh", Header: "Nameplate Energy Capacity (MWh)", Kind: kit.AsNumber},
	{Field: "dc_net_capacity_mw", Header: "DC Net Capacity (MW)", Kind: kit.AsNumber},
	{Field: "status_raw", Header: "Status"},
	{Field: "operating_month", Header: "Operating Month", Kind: kit.AsInt},
	{Field: "operating_year", Header: "Operating Year", Kind: kit.AsInt},
	{Field: "planned_operation_month", Header: "Planned Operation Month", Kind: kit.AsInt},
	{Field: "planned_operation_year", Header: "Planned Operation Year", Kind: kit.AsInt},
	{Field: "planned_retirement_month", Header: "Planned Retirement Month", Kind: kit.AsInt},
	{Field: "planned_retirement_year", Header: "Planned Retirement Year", Kind: kit.AsInt},
	{Field: "retirement_month", Header: "Retirement Month", Kind: kit.AsInt},
	{Field: "retirement_year", Header: "Retirement Year", Kind: kit.AsInt},
}

// inventoryDates are the month and year fields of the inventory, each pair giving a date.
var inventoryDates = []string{"operating", "planned_operation", "planned_retirement", "retirement"}

// inventory declares the sheets of the inventory.
func inventory() []*kit.Sheet {
	var out []*kit.Sheet
	for _, is := range inventorySheets {
		required := append(append([]string{}, sharedHeaders...), is.extra...)
		var cols []kit.Column
		for _, c := range inventoryColumns {
			c.Optional = !slices.Contains(required, c.Header)
			cols = append(cols, c)
		}
		out = append(out, &kit.Sheet{
			Name: is.name, Optional: is.optional, HeaderAt: headerRowOf, Columns: cols,
			Set:   map[string]any{"lifecycle": is.lifecycle, "sheet_name": is.name},
			Begin: notesFootnote(is.optional),
			// Title, blank and footnote rows are not data: a generator's row has an id in
			// column A.
			IsRow: func(r *kit.Row) bool {
				_, err := kit.Int(r.CellAt(1))
				return err == nil && r.CellAt(1).Kind != grid.Empty
			},
			Row: generator,
			// The second reading: every row with an id in column A is a generator, and the
			// nameplate column sums to the same total.
			Tally: &kit.Tally{Mark: "Entity ID", Sum: []string{"Nameplate Capacity (MW)"}, Field: "nameplate_mw", Unit: "MW"},
		})
	}
	return out
}

// notesFootnote checks a main sheet ends with the agency's NOTES footnote (a sheet cut short
// has none).
func notesFootnote(optional bool) func(s *kit.SheetRead) bool {
	return func(s *kit.SheetRead) bool {
		last := s.Sheet.Row(s.NumRows())
		if !optional && (len(last) == 0 || !strings.HasPrefix(strings.TrimSpace(last[0].Value), "NOTES")) {
			s.File.Book.Incomplete = append(s.File.Book.Incomplete, fmt.Sprintf("sheet %s ends at row %d without the agency's NOTES footnote", s.Name, s.NumRows()))
		}
		return true
	}
}

// inventoryState is what one build reads besides the rows.
type inventoryState struct {
	reportMonth string
	fuelGroup   map[string]string
	titleGate   snapshots.Gate
}

// reportMonth reads the report month from the file name and the sheet titles, which must
// agree.
func reportMonth(fr *kit.FileRead) error {
	st := fr.Book.State.(*inventoryState)
	month, _ := reportMonthFromName(fr.Name)
	st.titleGate = snapshots.Gate{Name: "report_month_consistent", Passed: true}
	for _, s := range inventorySheets {
		sh := fr.WB.Sheet(s.name)
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
			st.titleGate.Passed = false
			st.titleGate.Detail = fmt.Sprintf("sheet %s title says %s but the file name %s says %s", s.name, m[1], fr.Name, month.Format("January 2006"))
		}
	}
	if month.IsZero() {
		return fmt.Errorf("%s: no report month in the file name or the sheet titles", fr.Name)
	}
	if st.titleGate.Passed {
		st.titleGate.Detail = "sheet titles and file name agree on " + month.Format("January 2006")
	}
	st.reportMonth = month.Format("2006-01")
	fr.Book.AsOf = monthEnd(month)
	fr.Source.Release = st.reportMonth
	fr.Source.Title = "EIA-860M Preliminary Monthly Electric Generator Inventory, as of " + month.Format("January 2006")
	return nil
}

// generator completes one generator's row: its report month, fuel group, status code, dates,
// region and key.
func generator(r *kit.Row) {
	st := r.Book.State.(*inventoryState)
	lifecycle := r.Sheet.Spec.Set["lifecycle"].(string)
	r.Set("report_month", st.reportMonth)
	if esc, ok := r.Value("energy_source_code").(string); ok {
		if g, ok := st.fuelGroup[esc]; ok {
			r.Set("fuel_group", g)
		}
	}
	if status, ok := r.Value("status_raw").(string); ok {
		if m := statusCode.FindStringSubmatch(status); m != nil {
			r.Set("status_code", lifecycle+"."+m[1])
		} else {
			r.Problem(r.Sheet.Col("status_raw"), "Status", "%q has no (CODE)", status)
		}
	}
	for _, d := range inventoryDates {
		mo, yr := r.Value(d+"_month"), r.Value(d+"_year")
		if mo != nil && yr != nil && mo.(int64) >= 1 && mo.(int64) <= 12 {
			r.Set(d+"_date", fmt.Sprintf("%04d-%02d-01", yr.(int64), mo.(int64)))
		}
	}
	scope := "us_territory"
	if st, ok := r.Value("state").(string); ok && slices.Contains(statesAndDC, st) {
		scope = "us_state_or_dc"
	}
	r.Set("region_scope", scope)
	r.Set("included_in_default_us_metrics", scope == "us_state_or_dc")
	r.Key(fmt.Sprintf("%s:%s:%s:%v:%v", r.File.SourceID, st.reportMonth, lifecycle, orEmpty(r.Value("eia_plant_id")), orEmpty(r.Value("generator_id"))))
}

// unknownMonth admits the months 1–12 and the values the agency writes for a month it does
// not know, 88 and 0
// (kept as published; the derived date is then null).
var unknownMonth = snapshots.Range{Min: 1, Max: 12, Also: []float64{0, 88}}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

package eia

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// RetailSales ingests power.retail_sales from the EIA-861 "Sales to Ultimate Customers"
// workbook (Sales_Ult_Cust_<year>.xlsx, sheets States and Territories), with the balancing
// authority codebook from the same year's Balancing_Authority_<year>.xlsx (else the newest).
var RetailSales = kit.New(&kit.Spec{
	Cap:     capability.PowerRetailSales,
	Version: "eia861sales/1",
	Folders: []string{"eia/eia861"},
	Known: []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Sales_Ult_Cust_2018.xlsx", Dest: "eia/eia861/Sales_Ult_Cust_2018.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Balancing_Authority_2018.xlsx", Dest: "eia/eia861/Balancing_Authority_2018.xlsx"},
	},
	Files: []*kit.File{{
		Match:    salesFile,
		SourceID: eia861SourceID, Publisher: Publisher,
		URL:    func(name string, m []string) string { return eia861URL(m[1], name) },
		Hint:   func(_ string, m []string) string { return m[1] + "-12-31" },
		Open:   salesWorkbook,
		Sheets: []*kit.Sheet{salesSheet("States", "us_state_or_dc"), salesSheet("Territories", "us_territory")},
	}},
	Refs: []*kit.Ref{{Match: baFile, SourceID: eia861SourceID, Publisher: Publisher, SameYear: true,
		URL:  func(name string, m []string) string { return eia861URL(m[1], name) },
		Name: func(year string) string { return "Balancing_Authority_" + year + ".xlsx" },
		Year: func(m []string) string { return m[1] }}},
	State:     func() any { return &salesState{} },
	Codebooks: baCodebook,
	Gates:     salesGates,
	Ranges:    map[string]snapshots.Range{"data_year": {Min: 1990, Max: 2100}},
	Required:  []string{"data_year", "utility_number", "part", "state", "source_record_key"},
})

const eia861SourceID = "eia861"

var salesFile = regexp.MustCompile(`^Sales_Ult_Cust_(\d{4})\.xlsx$`)

func eia861URL(year, member string) string {
	return fmt.Sprintf("https://www.eia.gov/electricity/data/eia861/archive/zip/f861%s.zip (zip member %s)", year, member)
}

const salesHeaderRow = 3

// salesMeasures are the three measures of each sector: the banner of row 2 and the unit of
// row 3, with the field suffix.
var salesMeasures = []struct{ banner, unit, suffix string }{
	{"Revenues", "Thousand Dollars", "_revenue_kusd"},
	{"Sales", "Megawatthours", "_sales_mwh"},
	{"Customers", "Count", "_customers"},
}

var retailSectorNames = []string{"residential", "commercial", "industrial", "transportation", "total"}

// salesSheet is one of the two sheets of fact rows, with its region scope.
func salesSheet(name, scope string) *kit.Sheet {
	cols := []kit.Column{
		{Field: "data_year", Header: "Data Year", Kind: kit.AsInt},
		{Field: "utility_number", Header: "Utility Number", Kind: kit.AsInt},
		{Field: "utility_name", Header: "Utility Name"},
		{Field: "part", Header: "Part"},
		{Field: "service_type", Header: "Service Type"},
		// The label goes on with the codes' meanings ("Data Type O = Observed ...").
		{Field: "data_type", Header: "Data Type"},
		{Field: "state", Header: "State"},
		{Field: "ownership", Header: "Ownership"},
		{Field: "ba_code", Header: "BA Code"},
	}
	for _, sector := range retailSectorNames {
		for _, ms := range salesMeasures {
			cols = append(cols, kit.Column{Field: sector + ms.suffix, Header: strings.ToUpper(sector) + " " + ms.banner + " " + ms.unit,
				Kind: kit.AsNumber, Find: measureColumn(sector, ms.banner, ms.unit)})
		}
	}
	return &kit.Sheet{
		Name: name, Header: salesHeaderRow, Columns: cols,
		Fold: func(l string) string {
			n := kit.Norm(l)
			if strings.HasPrefix(n, "data type") {
				return "data type"
			}
			return n
		},
		Set:   map[string]any{"sheet_name": name, "region_scope": scope},
		Begin: partsNote,
		IsRow: func(r *kit.Row) bool { return r.Cell("utility_number").Kind == grid.Number },
		Row:   salesLine,
		Tally: &kit.Tally{Mark: "Utility Number", SumCols: func(s *kit.SheetRead) []int { return []int{s.Col("total_sales_mwh")} },
			Field: "total_sales_mwh", Unit: "MWh"},
	}
}

// measureColumn finds a sector measure's column from the three header rows: the sector
// banner of row 1 (written once over its three columns), the measure of row 2 and the unit
// of row 3.
func measureColumn(sector, measure, unit string) func(s *kit.SheetRead) int {
	return func(s *kit.SheetRead) int {
		banner := ""
		for c := 1; c <= len(s.Sheet.Row(salesHeaderRow)); c++ {
			if b := strings.TrimSpace(s.Cell(1, c).Value); b != "" {
				banner = strings.ToLower(b)
			}
			if banner == sector && strings.TrimSpace(s.Cell(2, c).Value) == measure && strings.TrimSpace(s.Cell(salesHeaderRow, c).Value) == unit {
				return c
			}
		}
		return 0
	}
}

// salesState is what the lines of one build add up to.
type salesState struct {
	year               int
	sectorBad, yearBad []string
}

// salesWorkbook reads the report year from the file name.
func salesWorkbook(fr *kit.FileRead) error {
	year, _ := strconv.Atoi(fr.Match[1])
	fr.Book.State.(*salesState).year = year
	fr.Book.AsOf = fr.Match[1] + "-12-31"
	fr.Source.Release, fr.Source.Title = fr.Match[1], fmt.Sprintf("EIA-861 %d Sales to Ultimate Customers", year)
	return nil
}

// partsNote checks the sheet ends with the agency's note on the parts.
func partsNote(s *kit.SheetRead) bool {
	if last := s.Sheet.Row(s.NumRows()); !kit.IsNote(last) || !strings.Contains(last[0].Value, "Parts") {
		s.File.Book.Incomplete = append(s.File.Book.Incomplete, fmt.Sprintf("sheet %s ends at row %d without the agency's note on the parts", s.Name, s.NumRows()))
	}
	return true
}

// salesLine completes one line: what its totals count, each sector's sales checked against
// the total, its key.
func salesLine(r *kit.Row) {
	st := r.Book.State.(*salesState)
	if y := r.Value("data_year"); y != nil && y.(int64) != int64(st.year) {
		st.yearBad = append(st.yearBad, fmt.Sprintf("%s row %d: data year %d, file year %d", r.Sheet.Name, r.N, y, st.year))
	}
	// The definition's rules (which the aggregate evidence applies to the same cells).
	textOf := func(field string) string { s, _ := r.Get(field).(string); return s }
	countedSales := capability.RetailSalesNotCounted.Keeps(textOf)
	countedCust := capability.RetailCustomersNotCounted.Keeps(textOf)
	r.Set("counted_in_sales_totals", countedSales).Set("counted_in_customer_totals", countedCust)
	sectorSales := 0.0
	sectorOK := true
	for _, s := range retailSectorNames {
		sales := r.Value(s + "_sales_mwh")
		if countedSales {
			r.Set(s+"_sales_mwh_counted", sales)
		}
		if countedCust {
			r.Set(s+"_customers_counted", r.Value(s+"_customers"))
		}
		f, ok := sales.(float64)
		switch {
		case s == "total" && ok:
			if sectorOK && math.Abs(sectorSales-f) > 1e-6*max(1, math.Abs(f)) {
				st.sectorBad = append(st.sectorBad, fmt.Sprintf("%s row %d: sectors %.0f MWh, total %.0f MWh", r.Sheet.Name, r.N, sectorSales, f))
			}
		case ok:
			sectorSales += f
		case sales != nil:
			sectorOK = false
		}
	}
	r.Key(fmt.Sprintf("%s:%d:%s:%d", r.File.SourceID, st.year, r.Sheet.Name, r.N))
}

// baCodebook reads the balancing authority codes of the plan's reference list.
func baCodebook(b *kit.Book) error {
	b.CodebookGate = snapshots.Gate{Name: "codebooks_read", Passed: true, Detail: "no balancing authority list in the plan: ba_code has no codebook"}
	for _, f := range b.Refs {
		codes, err := baTable(&f)
		if err != nil {
			b.CodebookGate = snapshots.Gate{Name: "codebooks_read", Detail: err.Error()}
			continue
		}
		b.Codebooks = append(b.Codebooks, snapshots.Codebook{Name: "ba_code", Description: "balancing authority codes of the EIA-861 " + filepath.Base(f.Path) + " list (Group: the states it lists for the code)", Codes: codes})
		b.CodebookGate.Detail = fmt.Sprintf("%d balancing authority codes from %s", len(codes), filepath.Base(f.Path))
	}
	return nil
}

func salesGates(b *kit.Book) []snapshots.Gate {
	st := b.State.(*salesState)
	return []snapshots.Gate{
		b.CodebookGate,
		b.HeadersGate("sheets States and Territories have the three header rows (sector, measure, unit)"),
		b.CompleteGate("every sheet ends with the agency's note on the parts"),
		b.Rec.Gate(),
		b.CellsGate("every numeric cell parses or is a published blank ('.')"),
		kit.Failures("sector_sales_agrees", st.sectorBad, "on every line the four sectors' sales add up to the published total sales"),
		kit.Failures("data_year_consistent", st.yearBad, fmt.Sprintf("every line's Data Year is %d, the year of the file name", st.year)),
	}
}

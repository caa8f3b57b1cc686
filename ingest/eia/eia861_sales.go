package eia

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// RetailSales ingests power.retail_sales from the EIA-861 "Sales to Ultimate Customers"
// workbook (Sales_Ult_Cust_<year>.xlsx, sheets States and Territories), with the balancing
// authority codebook from the same year's Balancing_Authority_<year>.xlsx.
type RetailSales struct{}

const eia861SourceID = "eia861"

var salesFile = regexp.MustCompile(`^Sales_Ult_Cust_(\d{4})\.xlsx$`)

// Capability implements Adapter.
func (RetailSales) Capability() *capability.Capability { return capability.PowerRetailSales }

// Version implements Adapter.
func (RetailSales) Version() string { return "eia861sales/1" }

// Folders implements Adapter.
func (RetailSales) Folders() []string { return []string{"eia/eia861"} }

func eia861URL(year, member string) string {
	return fmt.Sprintf("https://www.eia.gov/electricity/data/eia861/archive/zip/f861%s.zip (zip member %s)", year, member)
}

// Known implements Adapter.
func (RetailSales) Known() []fetch.Source {
	return []fetch.Source{
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Sales_Ult_Cust_2018.xlsx", Dest: "eia/eia861/Sales_Ult_Cust_2018.xlsx"},
		{URL: "https://www.eia.gov/electricity/data/eia861/archive/zip/f8612018.zip", Kind: fetch.XLSX, ZipMember: "Balancing_Authority_2018.xlsx", Dest: "eia/eia861/Balancing_Authority_2018.xlsx"},
	}
}

// Plan implements Adapter: one snapshot per sales workbook, with the balancing authority
// list of the same year (else the newest) as its reference.
func (RetailSales) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	sales, err := files.Find(salesFile.MatchString)
	if err != nil || len(sales) == 0 {
		return nil, err
	}
	newestBA, err := newest(files, baFile)
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, s := range sales {
		year := salesFile.FindStringSubmatch(filepath.Base(s))[1]
		fs := []ingest.File{{Path: s, SourceID: eia861SourceID, Publisher: Publisher, Role: ingest.RoleData, URL: eia861URL(year, filepath.Base(s))}}
		ba, err := yearReference(files, "Balancing_Authority_"+year+".xlsx", newestBA)
		if err != nil {
			return nil, err
		}
		if ba != "" {
			y := baFile.FindStringSubmatch(filepath.Base(ba))[1]
			fs = append(fs, ingest.File{Path: ba, SourceID: eia861SourceID, Publisher: Publisher, Role: ingest.RoleReference, URL: eia861URL(y, filepath.Base(ba))})
		}
		plans = append(plans, ingest.Plan{AsOfHint: year + "-12-31", Files: fs})
	}
	return plans, nil
}

// salesSheets are the sheets of fact rows and their region scope.
var salesSheets = []struct{ name, scope string }{{"States", "us_state_or_dc"}, {"Territories", "us_territory"}}

const salesHeaderRow = 3

var salesIDHeaders = []string{"Data Year", "Utility Number", "Utility Name", "Part", "Service Type", "State", "Ownership", "BA Code"}

// salesMeasures are the three measures of each sector: the banner of row 2 and the unit of
// row 3, with the field suffix.
var salesMeasures = []struct{ banner, unit, suffix string }{
	{"Revenues", "Thousand Dollars", "_revenue_kusd"},
	{"Sales", "Megawatthours", "_sales_mwh"},
	{"Customers", "Count", "_customers"},
}

// salesColumns finds each sector measure's column from the three header rows: the sector
// banner of row 1 (written once over its three columns), the measure of row 2 and the unit
// of row 3.
func salesColumns(sh *grid.Sheet) (map[string]int, []string) {
	cols := map[string]int{}
	banner := ""
	for c := 1; c <= len(sh.Row(salesHeaderRow)); c++ {
		if b := strings.TrimSpace(sh.Cell(1, c).Value); b != "" {
			banner = strings.ToLower(b)
		}
		m, u := strings.TrimSpace(sh.Cell(2, c).Value), strings.TrimSpace(sh.Cell(salesHeaderRow, c).Value)
		for _, ms := range salesMeasures {
			if m == ms.banner && u == ms.unit {
				cols[banner+ms.suffix] = c
			}
		}
	}
	var missing []string
	for _, s := range []string{"residential", "commercial", "industrial", "transportation", "total"} {
		for _, ms := range salesMeasures {
			if cols[s+ms.suffix] == 0 {
				missing = append(missing, strings.ToUpper(s)+" "+ms.banner+" "+ms.unit)
			}
		}
	}
	return cols, missing
}

// Build implements Adapter.
func (RetailSales) Build(p ingest.Plan) (*ingest.Build, error) {
	data, refs := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("no sales workbook in the plan")
	}
	name := filepath.Base(data.Path)
	m := salesFile.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("%s is not a Sales_Ult_Cust_<year>.xlsx workbook", name)
	}
	year, _ := strconv.Atoi(m[1])
	asOf := m[1] + "-12-31"
	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, err
	}
	var books []snapshots.Codebook
	cbGate := snapshots.Gate{Name: "codebooks_read", Passed: true, Detail: "no balancing authority list in the plan: ba_code has no codebook"}
	for _, f := range refs {
		codes, err := baTable(&f)
		if err != nil {
			cbGate = snapshots.Gate{Name: "codebooks_read", Detail: err.Error()}
			continue
		}
		books = append(books, snapshots.Codebook{Name: "ba_code", Description: "balancing authority codes of the EIA-861 " + filepath.Base(f.Path) + " list (Group: the states it lists for the code)", Codes: codes})
		cbGate.Detail = fmt.Sprintf("%d balancing authority codes from %s", len(codes), filepath.Base(f.Path))
	}
	src := data.Source()
	src.Release, src.Title, src.HeaderRows = m[1], fmt.Sprintf("EIA-861 %d Sales to Ultimate Customers", year), map[string]int{}
	rows := ingest.NewRows(capability.PowerRetailSales)
	var bad kit.Problems
	var rec kit.Reconcile
	var missing, incomplete, sectorBad, yearBad []string
	for _, ss := range salesSheets {
		sh := wb.Sheet(ss.name)
		if sh == nil {
			missing = append(missing, fmt.Sprintf("sheet %q is missing", ss.name))
			continue
		}
		src.HeaderRows[ss.name] = salesHeaderRow
		hdr := kit.HeaderAt(sh, salesHeaderRow)
		absent := hdr.Missing(salesIDHeaders...)
		dataTypeCol := 0
		for c, l := range hdr.Labels() {
			if strings.HasPrefix(kit.Norm(l), "data type") {
				dataTypeCol = c + 1
			}
		}
		if dataTypeCol == 0 {
			absent = append(absent, "Data Type")
		}
		cols, absentM := salesColumns(sh)
		if absent = append(absent, absentM...); len(absent) > 0 {
			missing = append(missing, fmt.Sprintf("sheet %s rows 1-%d lack %q", ss.name, salesHeaderRow, absent))
			continue
		}
		if last := sh.Row(sh.NumRows()); !kit.IsNote(last) || !strings.Contains(last[0].Value, "Parts") {
			incomplete = append(incomplete, fmt.Sprintf("sheet %s ends at row %d without the agency's note on the parts", ss.name, sh.NumRows()))
		}
		utilCol := hdr.Col("Utility Number")
		n0 := rows.Len()
		parsedSales := 0.0
		for r := salesHeaderRow + 1; r <= sh.NumRows(); r++ {
			if uc := sh.Cell(r, utilCol); uc.Kind != grid.Number {
				continue // the footnote
			}
			row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: ss.name, Row: r, SHA256: data.SHA256})
			text := func(field, h string) any {
				c := hdr.Col(h)
				v := kit.Text(sh.Cell(r, c))
				row.SetCell(field, c, v)
				return v
			}
			integer := func(field string, c int) any {
				v, err := kit.Int(sh.Cell(r, c))
				if err != nil {
					bad.Add("%s!%s%d: %v", ss.name, grid.ColumnName(c), r, err)
				}
				row.SetCell(field, c, v)
				return v
			}
			if y := integer("data_year", hdr.Col("Data Year")); y != nil && y.(int64) != int64(year) {
				yearBad = append(yearBad, fmt.Sprintf("%s row %d: data year %d, file year %d", ss.name, r, y, year))
			}
			integer("utility_number", utilCol)
			text("utility_name", "Utility Name")
			text("part", "Part")
			text("service_type", "Service Type")
			v := kit.Text(sh.Cell(r, dataTypeCol))
			row.SetCell("data_type", dataTypeCol, v)
			text("state", "State")
			text("ownership", "Ownership")
			text("ba_code", "BA Code")
			row.Set("sheet_name", ss.name).Set("region_scope", ss.scope)
			// The definition's rules (which the aggregate evidence applies to the same cells).
			textOf := func(field string) string { s, _ := row.Get(field).(string); return s }
			countedSales := capability.RetailSalesNotCounted.Keeps(textOf)
			countedCust := capability.RetailCustomersNotCounted.Keeps(textOf)
			row.Set("counted_in_sales_totals", countedSales).Set("counted_in_customer_totals", countedCust)
			sectorSales := 0.0
			sectorOK := true
			for _, s := range retailSectorNames {
				var sales any
				for _, ms := range salesMeasures {
					c := cols[s+ms.suffix]
					v, err := kit.Number(sh.Cell(r, c))
					if err != nil {
						bad.Add("%s!%s%d: %v", ss.name, grid.ColumnName(c), r, err)
					}
					row.SetCell(s+ms.suffix, c, v)
					switch ms.suffix {
					case "_sales_mwh":
						sales = v
						if countedSales {
							row.Set(s+"_sales_mwh_counted", v)
						}
					case "_customers":
						if countedCust {
							row.Set(s+"_customers_counted", v)
						}
					}
				}
				f, ok := sales.(float64)
				switch {
				case s == "total" && ok:
					parsedSales += f
					if sectorOK && math.Abs(sectorSales-f) > 1e-6*max(1, math.Abs(f)) {
						sectorBad = append(sectorBad, fmt.Sprintf("%s row %d: sectors %.0f MWh, total %.0f MWh", ss.name, r, sectorSales, f))
					}
				case ok:
					sectorSales += f
				case sales != nil:
					sectorOK = false
				}
			}
			row.Key(fmt.Sprintf("%s:%d:%s:%d", data.SourceID, year, ss.name, r))
		}
		// A second reading: every row with a numeric Utility Number, its total sales summed
		// straight from the cells.
		n, sum := 0, 0.0
		for r := salesHeaderRow + 1; r <= sh.NumRows(); r++ {
			if sh.Cell(r, utilCol).Kind != grid.Number {
				continue
			}
			n++
			if f, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, cols["total_sales_mwh"]).Value), 64); err == nil {
				sum += f
			}
		}
		rec.Sheet(ss.name, rows.Len()-n0, parsedSales, n, sum, "MWh")
	}
	checks := []snapshots.Gate{
		cbGate,
		kit.Failures(kit.GateHeaders, missing, "sheets States and Territories have the three header rows (sector, measure, unit)"),
		kit.Failures(kit.GateComplete, incomplete, "every sheet ends with the agency's note on the parts"),
		rec.Gate(),
		bad.Gate(kit.GateCells, "every numeric cell parses or is a published blank ('.')"),
		kit.Failures("sector_sales_agrees", sectorBad, "on every line the four sectors' sales add up to the published total sales"),
		kit.Failures("data_year_consistent", yearBad, fmt.Sprintf("every line's Data Year is %d, the year of the file name", year)),
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	books = ingest.CountCodes(capability.PowerRetailSales, books, facts)
	sources := []snapshots.Source{src}
	for _, f := range refs {
		sources = append(sources, f.Source())
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: sources, Codebooks: books, Checks: checks, Cells: rows.Cells(),
		Ranges:   map[string]snapshots.Range{"data_year": {Min: 1990, Max: 2100}},
		Required: []string{"data_year", "utility_number", "part", "state", "source_record_key"},
	}, nil
}

var retailSectorNames = []string{"residential", "commercial", "industrial", "transportation", "total"}

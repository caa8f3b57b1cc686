package eia

import (
	"fmt"
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

// FuelCost ingests power.fuel_cost from page 5 (Fuel Receipts and Costs) of the EIA-923
// Schedules 2, 3, 4, 5 workbook (EIA923_Schedules_2_3_4_5_M_<MM>_<YYYY>_<release>.xlsx): one
// row per published receipt.
type FuelCost struct{}

var eia923File = regexp.MustCompile(`^EIA923_Schedules_2_3_4_5_M_(\d{2})_(\d{4})_(.+)\.xlsx$`)

// fuelHeaders are page 5's headers in the agency's order (2014 onward); a missing header is
// reported and its column read at this position. Labels match with underscores as spaces
// and line breaks folded ("ENERGY_SOURCE", "Contract\nExpiration Date").
var fuelHeaders = []string{"YEAR", "MONTH", "Plant Id", "Plant Name", "Plant State", "Purchase Type", "Contract Expiration Date",
	"ENERGY_SOURCE", "FUEL_GROUP", "Coalmine Type", "Coalmine State", "Coalmine County", "Coalmine Msha Id", "Coalmine Name",
	"SUPPLIER", "QUANTITY", "Average Heat Content", "Average Sulfur Content", "Average Ash Content", "Average Mercury Content",
	"FUEL_COST", "Regulated", "Operator Name", "Operator Id", "Reporting Frequency", "Primary Transportation Mode",
	"Secondary Transportation Mode", "Natural Gas Supply Contract Type", "Natural Gas Delivery Contract Type",
	"Moisture Content", "Chlorine Content", "Balancing Authority Code"}

// fuelRequired are the headers without which a receipt cannot be read.
var fuelRequired = []string{"YEAR", "MONTH", "Plant Id", "Plant Name", "Plant State", "Purchase Type", "ENERGY_SOURCE", "FUEL_GROUP",
	"SUPPLIER", "QUANTITY", "Average Heat Content", "FUEL_COST"}

const fuelDefaultHeaderRow = 5

// quantityUnits are the units of QUANTITY by fuel group, as the form's instructions give them.
var quantityUnits = map[string]string{"coal": "short tons", "petroleum coke": "short tons", "petroleum": "barrels", "natural gas": "Mcf", "other gas": "Mcf"}

// Capability implements Adapter.
func (FuelCost) Capability() *capability.Capability { return capability.PowerFuelCost }

// Version implements Adapter.
func (FuelCost) Version() string { return "eia923fuel/1" }

// Folders implements Adapter.
func (FuelCost) Folders() []string { return []string{"eia/eia923"} }

// Known implements Adapter.
func (FuelCost) Known() []fetch.Source {
	return []fetch.Source{{URL: "https://www.eia.gov/electricity/data/eia923/xls/f923_2024.zip", Kind: fetch.XLSX,
		ZipMember: "EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx", Dest: "eia/eia923/EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx"}}
}

// Plan implements Adapter: one snapshot per workbook.
func (FuelCost) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	ps, err := files.Find(eia923File.MatchString)
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range ps {
		m := eia923File.FindStringSubmatch(filepath.Base(p))
		plans = append(plans, ingest.Plan{AsOfHint: monthEndOf(m[2], m[1]), Document: "EIA923_Schedules_2_3_4_5_" + m[2], Files: []ingest.File{{Path: p, SourceID: "eia923", Publisher: Publisher, Role: ingest.RoleData,
			URL: fmt.Sprintf("https://www.eia.gov/electricity/data/eia923/xls/f923_%s.zip (zip member %s)", m[2], filepath.Base(p))}}})
	}
	return plans, nil
}

func monthEndOf(year, month string) string {
	t, err := kit.ParseDate(year + "-" + month + "-01")
	if err != nil {
		return ""
	}
	return t.AddDate(0, 1, -1).Format("2006-01-02")
}

// foldLabel folds a header for matching: Norm, and underscores as spaces.
func foldLabel(s string) string { return strings.ReplaceAll(kit.Norm(s), "_", " ") }

// fuelHeaderRow finds page 5's header row among the first ten rows: the row holding every
// required label. It returns the row and each label's column.
func fuelHeaderRow(sh *grid.Sheet) (int, map[string]int) {
	for r := 1; r <= min(10, sh.NumRows()); r++ {
		cols := map[string]int{}
		for i, c := range sh.Row(r) {
			if k := foldLabel(c.Value); k != "" {
				if _, dup := cols[k]; !dup {
					cols[k] = i + 1
				}
			}
		}
		ok := true
		for _, h := range fuelRequired {
			if cols[foldLabel(h)] == 0 {
				ok = false
				break
			}
		}
		if ok {
			return r, cols
		}
	}
	return 0, nil
}

// Build implements Adapter.
func (FuelCost) Build(p ingest.Plan) (*ingest.Build, error) {
	data, name, m, sh, err := openEIA923(p, "Page 5", "Page 5")
	if err != nil {
		return nil, err
	}
	asOf := monthEndOf(m[2], m[1])
	pg := readPage5Header(sh, fuelDefaultHeaderRow)
	src := data.Source()
	src.Release, src.HeaderRows = m[2]+"-"+m[1]+" "+m[3], map[string]int{sh.Name: pg.hr}
	src.Title = "EIA-923 Schedules 2, 3, 4, 5, page 5 Fuel Receipts and Costs, " + m[2] + " through month " + m[1] + " (" + m[3] + ")"
	year, _ := strconv.Atoi(m[2])
	rows := ingest.NewRows(capability.PowerFuelCost)
	read := pg.receipts(rows, data, name, year)
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: []snapshots.Source{src}, Cells: rows.Cells(),
		Checks:   read.gates(sh.Name, pg),
		Ranges:   fuelRanges,
		Required: fuelRequiredFields,
	}, nil
}

// fuelRanges and fuelRequiredFields are the range and required-column gates of every build
// of power.fuel_cost.
var (
	fuelRanges         = map[string]snapshots.Range{"month": {Min: 1, Max: 12}, "quantity": {Min: 0, Max: 1e9}}
	fuelRequiredFields = []string{"year", "eia_plant_id", "source_record_key"}
)

// page5 is page 5 of the EIA-923 workbook, or a copy of its rows, as found: the sheet, its
// header row, each header label's column, and the headers not found.
type page5 struct {
	sh      *grid.Sheet
	hr      int
	cols    map[string]int
	missing []string
}

// readPage5Header finds page 5's header row (fuelHeaderRow), or reads the sheet at row
// layoutRow and the layout's positions when none holds every required label, which is
// reported.
func readPage5Header(sh *grid.Sheet, layoutRow int) page5 {
	pg := page5{sh: sh}
	pg.hr, pg.cols = fuelHeaderRow(sh)
	if pg.hr == 0 {
		pg.hr, pg.cols = layoutRow, map[string]int{}
		pg.missing = append(pg.missing, fmt.Sprintf("sheet %s: no row among the first ten holds %q (read at the layout's row %d and positions instead)", sh.Name, fuelRequired, layoutRow))
	}
	return pg
}

// col is the column of header h: where the header row has it, else its place in the layout.
func (pg page5) col(h string) int {
	if c := pg.cols[foldLabel(h)]; c > 0 {
		return c
	}
	for i, l := range fuelHeaders {
		if l == h {
			return i + 1
		}
	}
	return 0
}

// page5Read is what reading page 5's receipts found.
type page5Read struct {
	bad kit.Problems
	rec kit.Reconcile
	// receipts is the number of receipts read, withheld those whose FUEL_COST is EIA's mark.
	receipts, withheld int
}

// isReceipt reports whether a row of page 5 is a receipt: its Plant Id is a whole number (a
// number cell in the workbook, its digits in a CSV copy); banner, header and note rows are not.
func isReceipt(plantID grid.Cell) bool {
	v, err := kit.Int(plantID)
	return err == nil && v != nil
}

// withheldMark is what page 5 writes in FUEL_COST where the cost is not published.
const withheldMark = "."

// receipts adds one row per receipt (a row whose Plant Id is a number) below the header row,
// each cited to the file's row and keyed by the source, year and row; it reconciles the
// rows and QUANTITY read with a second reading of the sheet.
func (pg page5) receipts(rows *ingest.Rows, data *ingest.File, name string, year int) *page5Read {
	sh, col := pg.sh, pg.col
	out := &page5Read{}
	bad := &out.bad
	parsedQ := 0.0
	cellRule := func(field string) *capability.CellRule {
		f, _ := capability.PowerFuelCost.Field(field)
		return f.Cell
	}
	heatRule, costRule := cellRule("mmbtu"), cellRule("delivered_cost_usd")
	for r := pg.hr + 1; r <= sh.NumRows(); r++ {
		if !isReceipt(sh.Cell(r, col("Plant Id"))) {
			continue
		}
		row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: data.SHA256})
		text := func(field, h string) any {
			c := col(h)
			v := kit.Text(sh.Cell(r, c))
			row.SetCell(field, c, v)
			return v
		}
		number := func(field, h string) any {
			c := col(h)
			v, err := kit.Number(sh.Cell(r, c))
			if err != nil {
				bad.Add("%s!%s%d %s: %v", sh.Name, grid.ColumnName(c), r, h, err)
			}
			row.SetCell(field, c, v)
			return v
		}
		integer := func(field, h string) any {
			c := col(h)
			v, err := kit.Int(sh.Cell(r, c))
			if err != nil {
				bad.Add("%s!%s%d %s: %v", sh.Name, grid.ColumnName(c), r, h, err)
			}
			row.SetCell(field, c, v)
			return v
		}
		y := integer("year", "YEAR")
		mo := integer("month", "MONTH")
		if yi, ok := y.(int64); ok {
			if mi, ok := mo.(int64); ok && mi >= 1 && mi <= 12 {
				row.Set("period", fmt.Sprintf("%04d-%02d", yi, mi)).Set("period_date", fmt.Sprintf("%04d-%02d-01", yi, mi))
			}
		}
		integer("eia_plant_id", "Plant Id")
		text("plant_name", "Plant Name")
		text("plant_state", "Plant State")
		text("purchase_type", "Purchase Type")
		text("contract_expiration_date", "Contract Expiration Date")
		text("energy_source_code", "ENERGY_SOURCE")
		group := text("fuel_group", "FUEL_GROUP")
		text("coalmine_type", "Coalmine Type")
		text("coalmine_state", "Coalmine State")
		text("coalmine_county", "Coalmine County")
		text("coalmine_msha_id", "Coalmine Msha Id")
		text("coalmine_name", "Coalmine Name")
		text("supplier", "SUPPLIER")
		q := number("quantity", "QUANTITY")
		heat := number("average_heat_content_mmbtu_per_unit", "Average Heat Content")
		number("average_sulfur_content_pct", "Average Sulfur Content")
		number("average_ash_content_pct", "Average Ash Content")
		number("average_mercury_content_ppm", "Average Mercury Content")
		cost := number("fuel_cost_cents_per_mmbtu", "FUEL_COST")
		switch costCell := strings.TrimSpace(sh.Cell(r, col("FUEL_COST")).Value); {
		case cost != nil:
			row.Set("fuel_cost_status", "published")
		case costCell == withheldMark:
			row.Set("fuel_cost_status", "withheld")
			out.withheld++
		case costCell == "":
			row.Set("fuel_cost_status", "blank")
		}
		text("regulated", "Regulated")
		text("operator_name", "Operator Name")
		integer("operator_id", "Operator Id")
		text("reporting_frequency", "Reporting Frequency")
		text("primary_transportation_mode", "Primary Transportation Mode")
		text("secondary_transportation_mode", "Secondary Transportation Mode")
		text("natural_gas_supply_contract_type", "Natural Gas Supply Contract Type")
		text("natural_gas_delivery_contract_type", "Natural Gas Delivery Contract Type")
		number("moisture_content", "Moisture Content")
		number("chlorine_content", "Chlorine Content")
		text("balancing_authority_code", "Balancing Authority Code")
		if g, ok := group.(string); ok {
			if u, ok := quantityUnits[strings.ToLower(g)]; ok {
				row.Set("quantity_unit", u)
			} else {
				bad.Add("%s!%s%d FUEL_GROUP: %q has no known quantity unit", sh.Name, grid.ColumnName(col("FUEL_GROUP")), r, g)
			}
		}
		// By the definition's rules, which the aggregate evidence applies to the same cells.
		qf, qok := q.(float64)
		hf, hok := heat.(float64)
		if qok && hok {
			row.Set("mmbtu", heatRule.Multiply(qf, hf))
			if cf, ok := cost.(float64); ok {
				row.Set("mmbtu_with_cost", heatRule.Multiply(qf, hf)).Set("delivered_cost_usd", costRule.Multiply(qf, hf, cf))
			}
		}
		if qok {
			parsedQ += qf
		}
		row.Key(fmt.Sprintf("%s:%d:%d", data.SourceID, year, r))
		out.receipts++
	}
	// A second reading: rows whose Plant Id is digits, QUANTITY summed from the cells.
	sn, sq := 0, 0.0
	for r := pg.hr + 1; r <= sh.NumRows(); r++ {
		if _, err := strconv.ParseUint(strings.TrimSpace(sh.Cell(r, col("Plant Id")).Value), 10, 64); err != nil {
			continue
		}
		sn++
		if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, col("QUANTITY")).Value), 64); err == nil {
			sq += x
		}
	}
	out.rec.Sheet(sh.Name, out.receipts, parsedQ, sn, sq, "units of quantity")
	return out
}

// gates are the generic gates of a page 5 read: its header row, its cells, and the
// reconciliation with the second reading.
func (rd *page5Read) gates(sheet string, pg page5) []snapshots.Gate {
	return []snapshots.Gate{
		kit.Failures(kit.GateHeaders, pg.missing, fmt.Sprintf("sheet %s has its header row at row %d", sheet, pg.hr)),
		rd.bad.Gate(kit.GateCells, fmt.Sprintf("every numeric cell parses or is a published blank (%d receipts, FUEL_COST withheld on %d)", rd.receipts, rd.withheld)),
		rd.rec.Gate(),
	}
}

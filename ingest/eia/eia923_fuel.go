package eia

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// FuelCost ingests power.fuel_cost from page 5 (Fuel Receipts and Costs) of the EIA-923
// Schedules 2, 3, 4, 5 workbook (EIA923_Schedules_2_3_4_5_M_<MM>_<YYYY>_<release>.xlsx): one
// row per published receipt.
var FuelCost = kit.New(&kit.Spec{
	Cap:     capability.PowerFuelCost,
	Version: "eia923fuel/1",
	Name:    "workbook",
	Folders: []string{eia923Folder},
	Known:   eia923Known,
	Files: []*kit.File{eia923Workbook("Page 5", func(fr *kit.FileRead) error {
		m := fr.Match
		st := fr.Book.State.(*page5State)
		st.year, _ = strconv.Atoi(m[2])
		fr.Book.AsOf = monthEndOf(m[2], m[1])
		fr.Source.Release = m[2] + "-" + m[1] + " " + m[3]
		fr.Source.Title = "EIA-923 Schedules 2, 3, 4, 5, page 5 Fuel Receipts and Costs, " + m[2] + " through month " + m[1] + " (" + m[3] + ")"
		return nil
	}, page5Sheet(kit.Sheet{Prefix: "Page 5", Name: "Page 5"}, fuelDefaultHeaderRow),
		// A year's workbook is one document, each month's release a version of it.
		func(m []string) string { return "EIA923_Schedules_2_3_4_5_" + m[2] })},
	State:    func() any { return &page5State{} },
	Gates:    page5Gates,
	Ranges:   fuelRanges,
	Required: fuelRequiredFields,
})

const eia923Folder = "eia/eia923"

var eia923File = regexp.MustCompile(`^EIA923_Schedules_2_3_4_5_M_(\d{2})_(\d{4})_(.+)\.xlsx$`)

// eia923Known is the workbook of 2024, for power.fuel_cost and power.generation alike.
var eia923Known = []fetch.Source{{URL: "https://www.eia.gov/electricity/data/eia923/xls/f923_2024.zip", Kind: fetch.XLSX,
	ZipMember: "EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx", Dest: "eia/eia923/EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx"}}

// eia923Workbook is the EIA-923 Schedules 2, 3, 4, 5 workbook, one snapshot each, read by its
// sheet whose name starts with the given prefix (a workbook without it does not build).
func eia923Workbook(prefix string, open func(fr *kit.FileRead) error, sheet *kit.Sheet, document func(m []string) string) *kit.File {
	return &kit.File{
		Match:    eia923File,
		Document: document,
		SourceID: "eia923", Publisher: Publisher,
		URL: func(name string, m []string) string {
			return fmt.Sprintf("https://www.eia.gov/electricity/data/eia923/xls/f923_%s.zip (zip member %s)", m[2], name)
		},
		Hint: func(_ string, m []string) string { return monthEndOf(m[2], m[1]) },
		Open: func(fr *kit.FileRead) error {
			if fr.Sheet(sheet) == nil {
				return fmt.Errorf("%s has no %s sheet (sheets: %s)", fr.Name, prefix, strings.Join(fr.WB.SheetNames(), ", "))
			}
			return open(fr)
		},
		Sheets: []*kit.Sheet{sheet},
	}
}

// fuelHeaders are page 5's headers in the agency's order (2014 onward); a missing header is
// reported and its column read at this position. Labels match with underscores as spaces
// and line breaks folded ("ENERGY_SOURCE", "Contract\nExpiration Date").
var fuelHeaders = []string{"YEAR", "MONTH", "Plant Id", "Plant Name", "Plant State", "Purchase Type", "Contract Expiration Date",
	"ENERGY_SOURCE", "FUEL_GROUP", "Coalmine Type", "Coalmine State", "Coalmine County", "Coalmine Msha Id", "Coalmine Name",
	"SUPPLIER", "QUANTITY", "Average Heat Content", "Average Sulfur Content", "Average Ash Content", "Average Mercury Content",
	"FUEL_COST", "Regulated", "Operator Name", "Operator Id", "Reporting Frequency", "Primary Transportation Mode",
	"Secondary Transportation Mode", "Natural Gas Supply Contract Type", "Natural Gas Delivery Contract Type",
	"Moisture Content", "Chlorine Content", "Balancing Authority Code"}

// fuelFields are the fields of fuelHeaders, in order, with the kind of their cells.
var fuelFields = []struct {
	field string
	kind  kit.Kind
}{
	{"year", kit.AsInt}, {"month", kit.AsInt}, {"eia_plant_id", kit.AsInt}, {"plant_name", kit.AsText}, {"plant_state", kit.AsText},
	{"purchase_type", kit.AsText}, {"contract_expiration_date", kit.AsText}, {"energy_source_code", kit.AsText},
	{"fuel_group", kit.AsText}, {"coalmine_type", kit.AsText}, {"coalmine_state", kit.AsText}, {"coalmine_county", kit.AsText},
	{"coalmine_msha_id", kit.AsText}, {"coalmine_name", kit.AsText}, {"supplier", kit.AsText}, {"quantity", kit.AsNumber},
	{"average_heat_content_mmbtu_per_unit", kit.AsNumber}, {"average_sulfur_content_pct", kit.AsNumber},
	{"average_ash_content_pct", kit.AsNumber}, {"average_mercury_content_ppm", kit.AsNumber}, {"fuel_cost_cents_per_mmbtu", kit.AsNumber},
	{"regulated", kit.AsText}, {"operator_name", kit.AsText}, {"operator_id", kit.AsInt}, {"reporting_frequency", kit.AsText},
	{"primary_transportation_mode", kit.AsText}, {"secondary_transportation_mode", kit.AsText},
	{"natural_gas_supply_contract_type", kit.AsText}, {"natural_gas_delivery_contract_type", kit.AsText},
	{"moisture_content", kit.AsNumber}, {"chlorine_content", kit.AsNumber}, {"balancing_authority_code", kit.AsText},
}

// fuelRequired are the headers without which a receipt cannot be read: they find the header
// row.
var fuelRequired = []string{"YEAR", "MONTH", "Plant Id", "Plant Name", "Plant State", "Purchase Type", "ENERGY_SOURCE", "FUEL_GROUP",
	"SUPPLIER", "QUANTITY", "Average Heat Content", "FUEL_COST"}

const fuelDefaultHeaderRow = 5

// quantityUnits are the units of QUANTITY by fuel group, as the form's instructions give them.
var quantityUnits = map[string]string{"coal": "short tons", "petroleum coke": "short tons", "petroleum": "barrels", "natural gas": "Mcf", "other gas": "Mcf"}

// fuelRanges and fuelRequiredFields are the range and required-column gates of every build
// of power.fuel_cost.
var (
	fuelRanges         = map[string]snapshots.Range{"month": {Min: 1, Max: 12}, "quantity": {Min: 0, Max: 1e9}}
	fuelRequiredFields = []string{"year", "eia_plant_id", "source_record_key"}
)

func monthEndOf(year, month string) string {
	t, err := kit.ParseDate(year + "-" + month + "-01")
	if err != nil {
		return ""
	}
	return t.AddDate(0, 1, -1).Format("2006-01-02")
}

// foldLabel folds a header for matching: Norm, and underscores as spaces.
func foldLabel(s string) string { return strings.ReplaceAll(kit.Norm(s), "_", " ") }

// page5Sheet is page 5 of the EIA-923 workbook, or a copy of its rows, where: its header row
// is the first among the first ten holding every required label, else layoutRow (reported),
// the columns read at the layout's positions where the header row lacks them.
func page5Sheet(where kit.Sheet, layoutRow int) *kit.Sheet {
	s := where
	s.Header, s.Find, s.FindLabels, s.Fold = layoutRow, 10, fuelRequired, foldLabel
	for i, h := range fuelHeaders {
		c := kit.Column{Field: fuelFields[i].field, Header: h, Kind: fuelFields[i].kind, At: i + 1, Optional: true}
		for _, r := range fuelRequired {
			c.Optional = c.Optional && r != h
		}
		s.Columns = append(s.Columns, c)
	}
	// A receipt's Plant Id is a whole number (a number cell in the workbook, its digits in a
	// CSV copy); banner, header and note rows are not.
	s.IsRow = func(r *kit.Row) bool {
		v, err := kit.Int(r.Cell("eia_plant_id"))
		return err == nil && v != nil
	}
	s.Row = receipt
	s.Tally = &kit.Tally{Mark: "Plant Id", SumCols: func(s *kit.SheetRead) []int { return []int{s.Col("quantity")} },
		Field: "quantity", Unit: "units of quantity"}
	return &s
}

// page5State is what reading page 5's receipts found: the file's year, the receipts read and
// those whose FUEL_COST is EIA's mark.
type page5State struct {
	year               int
	receipts, withheld int
}

// withheldMark is what page 5 writes in FUEL_COST where the cost is not published.
const withheldMark = "."

// fuelHeatRule and fuelCostRule are the definition's rules for a receipt's heat and cost.
var fuelHeatRule, fuelCostRule = fuelCellRule("mmbtu"), fuelCellRule("delivered_cost_usd")

// fuelCellRule is the cell rule of power.fuel_cost's field.
func fuelCellRule(field string) *capability.CellRule {
	f, _ := capability.PowerFuelCost.Field(field)
	return f.Cell
}

// receipt completes one receipt: its period, whether its cost is published, its quantity's
// unit and heat, its key (the source, year and row).
func receipt(r *kit.Row) {
	st := r.Book.State.(*page5State)
	if yi, ok := r.Value("year").(int64); ok {
		if mi, ok := r.Value("month").(int64); ok && mi >= 1 && mi <= 12 {
			r.Set("period", fmt.Sprintf("%04d-%02d", yi, mi)).Set("period_date", fmt.Sprintf("%04d-%02d-01", yi, mi))
		}
	}
	cost := r.Value("fuel_cost_cents_per_mmbtu")
	switch costCell := strings.TrimSpace(r.Cell("fuel_cost_cents_per_mmbtu").Value); {
	case cost != nil:
		r.Set("fuel_cost_status", "published")
	case costCell == withheldMark:
		r.Set("fuel_cost_status", "withheld")
		st.withheld++
	case costCell == "":
		r.Set("fuel_cost_status", "blank")
	}
	if g, ok := r.Value("fuel_group").(string); ok {
		if u, ok := quantityUnits[strings.ToLower(g)]; ok {
			r.Set("quantity_unit", u)
		} else {
			r.Problem(r.Sheet.Col("fuel_group"), "FUEL_GROUP", "%q has no known quantity unit", g)
		}
	}
	qf, qok := r.Value("quantity").(float64)
	hf, hok := r.Value("average_heat_content_mmbtu_per_unit").(float64)
	// By the definition's rules, which the aggregate evidence applies to the same cells.
	if qok && hok {
		r.Set("mmbtu", fuelHeatRule.Multiply(qf, hf))
		if cf, ok := cost.(float64); ok {
			r.Set("mmbtu_with_cost", fuelHeatRule.Multiply(qf, hf)).Set("delivered_cost_usd", fuelCostRule.Multiply(qf, hf, cf))
		}
	}
	r.Key(fmt.Sprintf("%s:%d:%d", r.File.SourceID, st.year, r.N))
	st.receipts++
}

// page5Gates are the generic gates of a page 5 read: its header row, its cells, and the
// reconciliation with the second reading.
func page5Gates(b *kit.Book) []snapshots.Gate {
	st := b.State.(*page5State)
	sheet, row := "", 0
	if len(b.Files) > 0 && len(b.Files[0].Sheets) > 0 {
		sheet, row = b.Files[0].Sheets[0].Name, b.Files[0].Sheets[0].HeaderRow
	}
	return []snapshots.Gate{
		b.HeadersGate(fmt.Sprintf("sheet %s has its header row at row %d", sheet, row)),
		b.CellsGate(fmt.Sprintf("every numeric cell parses or is a published blank (%d receipts, FUEL_COST withheld on %d)", st.receipts, st.withheld)),
		b.Rec.Gate(),
	}
}

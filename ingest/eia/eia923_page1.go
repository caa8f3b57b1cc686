package eia

import (
	"fmt"
	"math"
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

// GenerationAnnual ingests power.generation from page 1 (Generation and Fuel Data) of the
// EIA-923 Schedules 2, 3, 4, 5 workbook, the agency's complete release: one row per plant,
// prime mover, fuel and month (level fuel_prime_mover), from the twelve Netgen columns of each
// published row.
type GenerationAnnual struct{}

var netgenMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}

// page1Required are the labels page 1's header row must hold (besides the Netgen months).
var page1Required = []string{"Plant Id", "Plant Name", "Plant State", "Reported Prime Mover", "Reported Fuel Type Code", "Net Generation (Megawatthours)", "YEAR"}

const page1DefaultHeaderRow = 6

// Capability implements Adapter.
func (GenerationAnnual) Capability() *capability.Capability { return capability.PowerGeneration }

// Version implements Adapter.
func (GenerationAnnual) Version() string { return "eia923page1/1" }

// Folders implements Adapter.
func (GenerationAnnual) Folders() []string { return []string{"eia/eia923"} }

// Known implements Adapter: the same workbook as power.fuel_cost.
func (GenerationAnnual) Known() []fetch.Source { return FuelCost{}.Known() }

// Plan implements Adapter: one snapshot per workbook.
func (GenerationAnnual) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	return FuelCost{}.Plan(files)
}

// Build implements Adapter.
func (GenerationAnnual) Build(p ingest.Plan) (*ingest.Build, error) {
	data, name, m, sh, err := openEIA923(p, "Page 1 Generation", "Page 1 Generation and Fuel Data")
	if err != nil {
		return nil, err
	}
	lastMonth, _ := strconv.Atoi(m[1])
	required := append([]string{}, page1Required...)
	for _, mo := range netgenMonths {
		required = append(required, "Netgen "+mo)
	}
	var missing []string
	hr := 0
	var hdr *kit.Header
	if h, err := kit.FindHeader(sh, 10, required...); err == nil {
		hr, hdr = h.Row, h
	} else {
		hr, hdr = page1DefaultHeaderRow, kit.HeaderAt(sh, page1DefaultHeaderRow)
		missing = append(missing, err.Error()+" (read at the layout's row and positions instead)")
	}
	// The layout's positions (2022 onward) of the columns read, for a header that is missing.
	layout := map[string]int{"Plant Id": 1, "Plant Name": 4, "Plant State": 7, "Reported Prime Mover": 14, "Reported Fuel Type Code": 15,
		"Net Generation (Megawatthours)": 96, "YEAR": 97}
	for i, mo := range netgenMonths {
		layout["Netgen "+mo] = 80 + i
	}
	col := func(h string) int {
		if c := hdr.Col(h); c > 0 {
			return c
		}
		return layout[h]
	}
	src := data.Source()
	src.Release, src.HeaderRows = m[2]+"-"+m[1]+" "+m[3], map[string]int{sh.Name: hr}
	src.Title = "EIA-923 Schedules 2, 3, 4, 5, page 1 Generation and Fuel Data, " + m[2] + " (" + m[3] + ")"
	rows := ingest.NewRows(capability.PowerGeneration)
	var bad kit.Problems
	var annualBad []string
	var rec kit.Reconcile
	n, parsed := 0, 0.0
	latest := ""
	for r := hr + 1; r <= sh.NumRows(); r++ {
		if sh.Cell(r, col("Plant Id")).Kind != grid.Number {
			continue
		}
		plant, err := kit.Int(sh.Cell(r, col("Plant Id")))
		if err != nil {
			bad.Add("%s!%s%d Plant Id: %v", sh.Name, grid.ColumnName(col("Plant Id")), r, err)
		}
		year, err := kit.Int(sh.Cell(r, col("YEAR")))
		if err != nil || year == nil {
			bad.Add("%s!%s%d YEAR: %q", sh.Name, grid.ColumnName(col("YEAR")), r, sh.Cell(r, col("YEAR")).Value)
			continue
		}
		pm, fuel := kit.Text(sh.Cell(r, col("Reported Prime Mover"))), kit.Text(sh.Cell(r, col("Reported Fuel Type Code")))
		sum := 0.0
		for i, mo := range netgenMonths {
			if i+1 > lastMonth {
				break
			}
			c := col("Netgen " + mo)
			v, err := kit.Number(sh.Cell(r, c))
			if err != nil {
				bad.Add("%s!%s%d Netgen %s: %v", sh.Name, grid.ColumnName(c), r, mo, err)
			}
			period := fmt.Sprintf("%04d-%02d", year.(int64), i+1)
			// Each month is its own column of the row: the cell map holds one column per
			// field, so the month's value is set, and the unchanging columns are cited.
			// fuel_type_description stays null: page 1 publishes codes only, and its rows of
			// one plant, fuel and prime mover repeat for nuclear units (the key carries the row).
			rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: data.SHA256}).
				Set("level", "fuel_prime_mover").
				Set("period", period).
				Set("period_date", period+"-01").
				Set("year", year).
				SetCell("eia_plant_id", col("Plant Id"), plant).
				SetCell("plant_name", col("Plant Name"), kit.Text(sh.Cell(r, col("Plant Name")))).
				SetCell("state", col("Plant State"), kit.Text(sh.Cell(r, col("Plant State")))).
				SetCell("energy_source_code", col("Reported Fuel Type Code"), fuel).
				SetCell("prime_mover_code", col("Reported Prime Mover"), pm).
				Set("net_generation_mwh", v).
				Set("net_generation_unit", "megawatthours").
				Key(fmt.Sprintf("%s:%s:%v:%v:%v:row%d", data.SourceID, period, orEmpty(plant), orEmpty(fuel), orEmpty(pm), r))
			if f, ok := v.(float64); ok {
				sum += f
				parsed += f
			}
			if period > latest {
				latest = period
			}
			n++
		}
		if lastMonth == 12 {
			if tot, err := kit.Number(sh.Cell(r, col("Net Generation (Megawatthours)"))); err == nil && tot != nil && math.Abs(tot.(float64)-sum) > 0.5 {
				annualBad = append(annualBad, fmt.Sprintf("row %d: months %.3f, annual %.3f MWh", r, sum, tot.(float64)))
			}
		}
	}
	// A second reading: every month cell of the rows with a numeric Plant Id, summed as written.
	sn, ss := 0, 0.0
	for r := hr + 1; r <= sh.NumRows(); r++ {
		if sh.Cell(r, col("Plant Id")).Kind != grid.Number || sh.Cell(r, col("YEAR")).Kind != grid.Number {
			continue
		}
		for i, mo := range netgenMonths {
			if i+1 > lastMonth {
				break
			}
			sn++
			if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, col("Netgen "+mo)).Value), 64); err == nil {
				ss += x
			}
		}
	}
	rec.Sheet(sh.Name, n, parsed, sn, ss, "MWh")
	if latest == "" {
		latest = m[2] + "-" + m[1]
	}
	pd, err := kit.ParseDate(latest + "-01")
	if err != nil {
		return nil, fmt.Errorf("%s: latest month %q: %w", name, latest, err)
	}
	asOf := pd.AddDate(0, 1, -1).Format("2006-01-02")
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: []snapshots.Source{src}, Cells: rows.Cells(),
		Checks: []snapshots.Gate{
			kit.Failures(kit.GateHeaders, missing, fmt.Sprintf("sheet %s has its header row at row %d", sh.Name, hr)),
			bad.Gate(kit.GateCells, "every Netgen cell parses or is a published blank"),
			rec.Gate(),
			kit.Failures("annual_netgen_agrees", annualBad, "every row's twelve months add up to its published annual net generation (within 0.5 MWh)"),
		},
		Ranges:   map[string]snapshots.Range{"net_generation_mwh": {Min: -1e7, Max: 1e8}},
		Required: []string{"level", "period", "eia_plant_id", "source_record_key"},
	}, nil
}

// openEIA923 opens the EIA-923 Schedules 2_3_4_5 workbook of plan p and finds its sheet whose
// name starts with prefix (what names it in errors): the data file, its base name, the match
// of eia923File against that name (month, year, release) and the sheet.
func openEIA923(p ingest.Plan, prefix, what string) (*ingest.File, string, []string, *grid.Sheet, error) {
	data, _ := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, "", nil, nil, fmt.Errorf("no EIA-923 workbook in the plan")
	}
	name := filepath.Base(data.Path)
	m := eia923File.FindStringSubmatch(name)
	if m == nil {
		return nil, "", nil, nil, fmt.Errorf("%s is not an EIA-923 Schedules 2_3_4_5 workbook", name)
	}
	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, "", nil, nil, err
	}
	var sh *grid.Sheet
	for _, s := range wb.Sheets {
		if strings.HasPrefix(s.Name, prefix) {
			sh = s
		}
	}
	if sh == nil {
		return nil, "", nil, nil, fmt.Errorf("%s has no %s sheet (sheets: %s)", name, what, strings.Join(wb.SheetNames(), ", "))
	}
	return data, name, m, sh, nil
}

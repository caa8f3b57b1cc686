package eia

import (
	"fmt"
	"path/filepath"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// FuelCostExcerpt ingests power.fuel_cost from a derived excerpt of page 5: rows a third
// party copied verbatim, under page 5's own headers, from EIA's workbook into a CSV. Its
// citations say so (derived, with EIA's address of the workbook as the original) and hash the
// excerpt as served. The receipts are read by the same code as the workbook's (page5).
type FuelCostExcerpt struct{}

// fuelExcerptFolder holds the excerpts; the agency's workbooks are in eia923Folder.
const (
	fuelExcerptFolder = "eia/eia923_page5_derived"
	eia923Folder      = "eia/eia923"
)

// fuelExcerpt is an excerpt the adapter knows: the file, where it was copied from, the
// workbook of EIA's its rows come from (and that workbook's address), the as_of of that
// workbook, and how many receipts the excerpt holds.
type fuelExcerpt struct {
	file, copiedFrom      string
	workbook, officialURL string
	asOf                  string
	receipts              int
}

// fuelExcerpts are the known excerpts. coal_receipts_2024_page5_EXCERPT.csv: 29 January-2024
// coal rows, taken verbatim from the first 16,000 characters of a third party's CSV of sheet
// "Page 5 Fuel Receipts and Costs" of EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx (its script
// drops EIA's banner rows and keeps FUEL_GROUP Coal; eia/LAYOUT.md, fifth pass).
var fuelExcerpts = []fuelExcerpt{{
	file:        "coal_receipts_2024_page5_EXCERPT.csv",
	copiedFrom:  "https://github.com/jessicacohen554-cyber/market-simulator/blob/43ab70d57d0e79539a56759b29180872f1211512/data/raw/coal-receipts/coal_receipts_2024.csv",
	workbook:    "EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx",
	officialURL: "https://www.eia.gov/electricity/data/eia923/xls/f923_2024.zip",
	asOf:        "2024-12-31",
	receipts:    29,
}}

func excerptOf(name string) (fuelExcerpt, bool) {
	for _, x := range fuelExcerpts {
		if x.file == name {
			return x, true
		}
	}
	return fuelExcerpt{}, false
}

// Capability implements Adapter.
func (FuelCostExcerpt) Capability() *capability.Capability { return capability.PowerFuelCost }

// Version implements Adapter.
func (FuelCostExcerpt) Version() string { return "eia923fuel-excerpt/1" }

// Folders implements Adapter: the excerpts' folder, and the workbooks' folder, where the
// workbook an excerpt was copied from supersedes it.
func (FuelCostExcerpt) Folders() []string { return []string{fuelExcerptFolder, eia923Folder} }

// Known implements Adapter: an excerpt has no official address of its own; ingest --fetch
// downloads the agency's workbook (FuelCost), which supersedes it.
func (FuelCostExcerpt) Known() []fetch.Source { return nil }

// Plan implements Adapter: one snapshot per known excerpt, unless the agency's workbook it
// was copied from is here too (FuelCost serves that workbook, for the same as_of).
func (FuelCostExcerpt) Plan(files *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := files.Find(func(n string) bool { _, ok := excerptOf(n); return ok })
	if err != nil {
		return nil, fmt.Errorf("eia923 excerpt plan: %w", err)
	}
	var plans []ingest.Plan
	for _, p := range paths {
		x, _ := excerptOf(filepath.Base(p))
		agency, err := files.Named(x.workbook)
		if err != nil {
			return nil, fmt.Errorf("eia923 excerpt plan: %w", err)
		}
		if len(agency) > 0 {
			continue
		}
		plans = append(plans, ingest.Plan{AsOfHint: x.asOf, Files: []ingest.File{{Path: p, SourceID: "eia923_page5_excerpt", Publisher: Publisher,
			Role: ingest.RoleData, URL: x.copiedFrom, Derived: true, OriginalURL: x.officialURL}}})
	}
	return plans, nil
}

// Build implements Adapter.
func (FuelCostExcerpt) Build(p ingest.Plan) (*ingest.Build, error) {
	data, _ := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("eia923 excerpt: the plan has no data file")
	}
	name := filepath.Base(data.Path)
	x, ok := excerptOf(name)
	if !ok {
		return nil, fmt.Errorf("eia923 excerpt: %s is not a known excerpt of page 5", name)
	}
	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, fmt.Errorf("eia923 excerpt: %w", err)
	}
	sh := wb.Sheet(grid.CSVSheetName)
	if sh == nil {
		return nil, fmt.Errorf("eia923 excerpt: %s is not a CSV file (read as %s)", name, wb.Format)
	}
	pg := readPage5Header(sh, 1)
	src := data.Source()
	src.Release, src.HeaderRows = x.asOf[:7]+" Final", map[string]int{sh.Name: pg.hr}
	src.Title = fmt.Sprintf("EIA-923 page 5 Fuel Receipts and Costs: %d receipts copied verbatim by a third party from %s (derived excerpt)", x.receipts, x.workbook)
	var year int
	fmt.Sscanf(x.asOf, "%4d", &year)
	rows := ingest.NewRows(capability.PowerFuelCost)
	read := pg.receipts(rows, data, name, year)
	facts, err := rows.Finish(x.asOf)
	if err != nil {
		return nil, err
	}
	var short []string
	if read.receipts != x.receipts {
		short = append(short, fmt.Sprintf("%s holds %d receipts, the excerpt %d", name, read.receipts, x.receipts))
	}
	return &ingest.Build{
		AsOf: x.asOf, Rows: facts, Sources: []snapshots.Source{src}, Cells: rows.Cells(),
		Checks: append(read.gates(sh.Name, pg),
			kit.Failures(kit.GateComplete, short, fmt.Sprintf("%s holds the excerpt's %d receipts", name, x.receipts))),
		Ranges:   fuelRanges,
		Required: fuelRequiredFields,
	}, nil
}

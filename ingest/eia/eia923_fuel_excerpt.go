package eia

import (
	"fmt"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// FuelCostExcerpt ingests power.fuel_cost from a derived excerpt of page 5: rows a third
// party copied verbatim, under page 5's own headers, from EIA's workbook into a CSV. Its
// citations say so (derived, with EIA's address of the workbook as the original) and hash the
// excerpt as served. The receipts are read as the workbook's are (page5Sheet). An excerpt is
// not planned when the agency's workbook it was copied from is here too (FuelCost serves that
// workbook, for the same as_of). ingest --fetch downloads the agency's workbook (FuelCost): an
// excerpt has no official address of its own.
var FuelCostExcerpt = kit.New(&kit.Spec{
	Cap:     capability.PowerFuelCost,
	Version: "eia923fuel-excerpt/1",
	Name:    "excerpt",
	// The excerpts' folder, and the workbooks' folder, where the workbook an excerpt was
	// copied from supersedes it.
	Folders:  []string{fuelExcerptFolder, eia923Folder},
	Files:    excerptFiles(),
	State:    func() any { return &page5State{} },
	Gates:    excerptGates,
	Ranges:   fuelRanges,
	Required: fuelRequiredFields,
})

// fuelExcerptFolder holds the excerpts; the agency's workbooks are in eia923Folder.
const fuelExcerptFolder = "eia/eia923_page5_derived"

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

// excerptFiles declares each known excerpt, a CSV whose header row is the first holding page
// 5's required labels (else its first line).
func excerptFiles() []*kit.File {
	var out []*kit.File
	for _, x := range fuelExcerpts {
		out = append(out, &kit.File{
			Names:    []string{x.file},
			SourceID: "eia923_page5_excerpt", Publisher: Publisher,
			URL:     func(string, []string) string { return x.copiedFrom },
			Derived: true, OriginalURL: x.officialURL,
			Hint: func(string, []string) string { return x.asOf },
			Accept: func(finder *ingest.Finder, _ string, _ []string) (bool, error) {
				agency, err := finder.Named(x.workbook)
				return len(agency) == 0, err
			},
			Open: func(fr *kit.FileRead) error {
				if fr.WB.Sheet(grid.CSVSheetName) == nil {
					return fmt.Errorf("%s is not a CSV file (read as %s)", fr.Name, fr.WB.Format)
				}
				fmt.Sscanf(x.asOf, "%4d", &fr.Book.State.(*page5State).year)
				fr.Book.AsOf = x.asOf
				fr.Source.Release = x.asOf[:7] + " Final"
				fr.Source.Title = fmt.Sprintf("EIA-923 page 5 Fuel Receipts and Costs: %d receipts copied verbatim by a third party from %s (derived excerpt)", x.receipts, x.workbook)
				return nil
			},
			Sheets: []*kit.Sheet{page5Sheet(kit.Sheet{Name: grid.CSVSheetName}, 1)},
		})
	}
	return out
}

// excerptGates are page 5's gates, and the excerpt's receipts all read.
func excerptGates(b *kit.Book) []snapshots.Gate {
	x, _ := excerptOf(b.Files[0].Name)
	if n := b.State.(*page5State).receipts; n != x.receipts {
		b.Incomplete = append(b.Incomplete, fmt.Sprintf("%s holds %d receipts, the excerpt %d", x.file, n, x.receipts))
	}
	return append(page5Gates(b), b.CompleteGate(fmt.Sprintf("%s holds the excerpt's %d receipts", x.file, x.receipts)))
}

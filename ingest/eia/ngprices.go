package eia

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/grid/xls"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// NaturalGasPrices ingests natural_gas.prices from the agency's price workbooks: the Henry Hub
// daily spot master (RNGWHHDd.xls, atom henry_hub_daily_spot), the U.S. electric-power
// series N3045US3 of the monthly price summary (NG_PRI_SUM_DCU_NUS_M.xls, atom
// us_electric_power_monthly), and the state series of the electric-power price workbook
// (NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls, atom state_electric_power_monthly), which repeats
// N3045US3 in a later release. Each workbook is a document of its own (the capability's
// documents complement each other): ingest composes the snapshots, serving each month of
// N3045US3 from the newest release that publishes it. The documents are planned by the age
// of their series' usual release (the U.S. summary, the state workbook, then the daily Henry
// Hub master); ingest orders the snapshots by the release dates the workbooks print. The CSV
// export of the Henry Hub page, when present, is a check of the Henry Hub document: it must
// agree with the workbook on every date both have.
var NaturalGasPrices = kit.New(&kit.Spec{
	Cap:     capability.NaturalGasPrices,
	Version: "ngprices/3",
	Folders: []string{"eia/ng_prices"},
	Known:   ngKnown(),
	Files: []*kit.File{
		ngSeriesFile(ngSeriesList[0]),
		{
			Names: []string{ngStatesFile}, SourceID: ngStatesSourceID, Publisher: Publisher, URL: ngURL(ngStatesURL),
			Open: ngOpen, Close: ngStatesClose,
			Sheets: []*kit.Sheet{{Name: ngDataSheet, Header: ngHeaderRow, First: ngFirstDataRow, IsRow: ngDated, Begin: ngStatesBegin, Each: ngStatesRow}},
		},
		ngSeriesFile(ngSeriesList[1]),
		{
			Names: []string{henryHubCSV}, SourceID: ngSeriesList[1].sourceID, Publisher: Publisher, URL: ngURL(henryHubCSVURL),
			Role: ingest.RoleCheck, Companion: true, Accept: henryHubPlanned,
		},
	},
	State:    func() any { return &ngState{files: map[*kit.FileRead]*ngFile{}, henryHub: map[string]float64{}} },
	Gates:    ngGates,
	Ranges:   map[string]snapshots.Range{"price": {Min: -100, Max: 1000}, "year": {Min: 1900, Max: 2100}},
	Required: []string{"atom", "series_id", "observation_date", "period", "unit"},
})

// ngSeries is one series the adapter serves.
type ngSeries struct {
	file, sourceID, url, seriesID, atom, frequency string
}

var ngSeriesList = []ngSeries{
	{"NG_PRI_SUM_DCU_NUS_M.xls", "ng_prices_us_monthly", "https://www.eia.gov/dnav/ng/xls/NG_PRI_SUM_DCU_NUS_M.xls", "N3045US3", "us_electric_power_monthly", "monthly"},
	{"RNGWHHDd.xls", "ng_henryhub_daily", "https://www.eia.gov/dnav/ng/hist_xls/RNGWHHDd.xls", "RNGWHHD", "henry_hub_daily_spot", "daily"},
}

const (
	henryHubCSV       = "Henry_Hub_Natural_Gas_Spot_Price_daily.csv"
	henryHubCSVURL    = "https://www.eia.gov/dnav/ng/hist/rngwhhdd.htm"
	ngDataSheet       = "Data 1"
	ngHeaderRow       = 3
	ngSourcekeyRow    = 2
	ngFirstDataRow    = 4
	csvFirstDataLine  = 6
	ngContentsSheet   = "Contents"
	ngReleaseDateCell = "Release Date:"
)

// ngKnown are the workbooks ingest --fetch downloads. The CSV export has no stable address of
// its own (the page's button makes it in the browser), so it is not downloaded.
func ngKnown() []fetch.Source {
	var out []fetch.Source
	for _, s := range ngSeriesList {
		out = append(out, fetch.Source{URL: s.url, Kind: fetch.XLS, Dest: "eia/ng_prices/" + s.file})
	}
	return append(out, fetch.Source{URL: ngStatesURL, Kind: fetch.XLS, Dest: "eia/ng_prices/" + ngStatesFile})
}

func ngURL(url string) func(string, []string) string {
	return func(string, []string) string { return url }
}

// ngSeriesFile is the kind of a workbook of one series: its Data 1 sheet, the series' column
// found by its sourcekey in row 2.
func ngSeriesFile(s ngSeries) *kit.File {
	return &kit.File{
		Names: []string{s.file}, SourceID: s.sourceID, Publisher: Publisher, URL: ngURL(s.url),
		Open: ngOpen, Close: ngSeriesClose,
		Sheets: []*kit.Sheet{{
			Name: ngDataSheet, Header: ngHeaderRow, First: ngFirstDataRow,
			// The series' fields, set before the price (whose column its series_id chooses).
			Set: map[string]any{"atom": s.atom, "series_id": s.seriesID, "area": "US", "frequency": s.frequency},
			Columns: []kit.Column{{Field: "price", Kind: kit.AsNumber, Optional: true, Find: func(sh *kit.SheetRead) int {
				return sourcekeyCol(sh, s.seriesID)
			}}},
			IsRow: ngDated, Begin: ngSeriesBegin, Each: ngObservation,
		}},
	}
}

// henryHubPlanned plans the CSV export only beside the Henry Hub workbook it checks.
func henryHubPlanned(finder *ingest.Finder, _ string, _ []string) (bool, error) {
	ps, err := finder.Named(ngSeriesList[1].file)
	return len(ps) > 0, err
}

// ngState is what one build read: each workbook read, what it found, and the workbook's Henry
// Hub prices by date (for the CSV check) and the check's gate.
type ngState struct {
	files    map[*kit.FileRead]*ngFile
	found    []string
	henryHub map[string]float64
	csv      []snapshots.Gate
}

// ngFile is a workbook whose Data 1 sheet has the layout read.
type ngFile struct {
	series     ngSeries
	name, unit string
	// states are the state workbook's series.
	states []ngStateSeries
}

func ngStateOf(b *kit.Book) *ngState { return b.State.(*ngState) }

// sourcekeyCol is the 1-based column whose row-2 sourcekey is id (0: none; the last wins).
func sourcekeyCol(sh *kit.SheetRead, id string) int {
	col := 0
	for ci, c := range sh.Row(ngSourcekeyRow) {
		if strings.TrimSpace(c.Value) == id {
			col = ci + 1
		}
	}
	return col
}

// ngOpen reads a workbook's release date: the file's release, and the snapshot's as_of when
// the newest.
func ngOpen(fr *kit.FileRead) error {
	release, err := releaseDate(fr.WB)
	if err != nil {
		return fmt.Errorf("%s: %w", fr.Name, err)
	}
	fr.Source.Release = release
	fr.Book.AsOf = max(fr.Book.AsOf, release)
	return nil
}

// ngDated tells a data row by its date cell.
func ngDated(r *kit.Row) bool { return r.CellAt(1).Kind != grid.Empty }

// ngDate is the row's date, an Excel serial in column A (false: a cell that does not parse).
func ngDate(r *kit.Row) (time.Time, bool) {
	dc := r.CellAt(1)
	serial, err := strconv.ParseFloat(dc.Value, 64)
	if err != nil || dc.Kind != grid.Number {
		r.Problem(1, "date", "%q is not an Excel date", dc.Value)
		return time.Time{}, false
	}
	return xls.ExcelSerialToDate(serial), true
}

// ngSeriesBegin checks the layout of a series workbook's Data 1 sheet: a Date column and the
// series' column, whose header names its unit; a sheet without them is reported and its
// workbook left out.
func ngSeriesBegin(sh *kit.SheetRead) bool {
	fr, b := sh.File, sh.File.Book
	s, _ := seriesFor(fr.Name)
	col := sh.Col("price")
	if col == 0 || strings.TrimSpace(sh.Cell(ngHeaderRow, 1).Value) != "Date" {
		b.Missing = append(b.Missing, fmt.Sprintf("%s: sheet %s has no Date column in row %d or no series %s in row %d", fr.Name, ngDataSheet, ngHeaderRow, s.seriesID, ngSourcekeyRow))
		return false
	}
	seriesName := kit.Squash(sh.Cell(ngHeaderRow, col).Value)
	unit := unitOf(seriesName)
	if unit == "" {
		b.Missing = append(b.Missing, fmt.Sprintf("%s: the unit of series %s cannot be read from its header %q in row %d", fr.Name, s.seriesID, seriesName, ngHeaderRow))
		return false
	}
	b.Found = append(b.Found, fmt.Sprintf("%s: Date and %s (%s)", fr.Name, s.seriesID, unit))
	ngReading(sh)
	ngStateOf(b).files[fr] = &ngFile{series: s, name: seriesName, unit: unit}
	return true
}

// ngReading records what a workbook whose layout is read states of itself: whether its
// Data 1 sheet runs to the latest data announced, and its title.
func ngReading(sh *kit.SheetRead) {
	if why := dataComplete(sh.File.Name, sh.File.WB, sh.Sheet); why != "" {
		sh.File.Book.Incomplete = append(sh.File.Book.Incomplete, why)
	}
	sh.File.Source.Title = strings.TrimSpace(sh.Cell(1, 2).Value)
}

// ngObservation is one dated price of a series workbook.
func ngObservation(r *kit.Row) {
	d, ok := ngDate(r)
	if !ok {
		return
	}
	st := ngStateOf(r.Book)
	f := st.files[r.File]
	s := f.series
	obs, period := d.Format("2006-01-02"), d.Format("2006-01-02")
	if s.frequency == "monthly" {
		obs, period = d.Format("2006-01")+"-01", d.Format("2006-01")
	}
	r.Add().
		Set("series_name", f.name).
		Set("observation_date", obs).
		Set("period", period).
		Set("year", d.Year()).
		Set("month", d.Format("2006-01")).
		Set("unit", f.unit).
		Set("release_date", r.File.Source.Release).
		Key(s.seriesID + ":" + period)
	if price, ok := r.Value("price").(float64); ok && s.atom == "henry_hub_daily_spot" {
		st.henryHub[obs] = price
	}
}

// lastPeriod is the latest period of the facts read from a workbook.
func lastPeriod(fr *kit.FileRead) string {
	last := ""
	for _, row := range fr.Added {
		if p, ok := row.Get("period").(string); ok {
			last = max(last, p)
		}
	}
	return last
}

// ngSeriesClose reports what a series workbook held and what of its last year it covers, and
// checks the Henry Hub workbook against the CSV export planned beside it; a workbook whose
// layout is not read is left out of the sources.
func ngSeriesClose(fr *kit.FileRead) error {
	st := ngStateOf(fr.Book)
	if f := st.files[fr]; f != nil {
		s := f.series
		st.found = append(st.found, fmt.Sprintf("%s: %d rows of %s", fr.Name, len(fr.Added), s.seriesID))
		if cv, ok := ngCoverage(fr.Name, s.atom, s.seriesID, s.frequency, lastPeriod(fr)); ok {
			fr.Book.Coverage = append(fr.Book.Coverage, cv...)
		}
	} else {
		fr.Omit = true
	}
	if fr.Name != ngSeriesList[1].file {
		return nil
	}
	for i := range fr.Book.Plan.Files {
		if f := &fr.Book.Plan.Files[i]; f.Role == ingest.RoleCheck {
			g, err := csvAgreement(f, st.henryHub)
			if err != nil {
				return err
			}
			st.csv = append(st.csv, g)
		}
	}
	return nil
}

// ngGates are the headers, cells and completeness gates, then the CSV export's agreement.
func ngGates(b *kit.Book) []snapshots.Gate {
	st := ngStateOf(b)
	return append([]snapshots.Gate{
		b.HeadersGate(strings.Join(b.Found, "; ")),
		b.CellsGate(strings.Join(st.found, "; ")),
		b.CompleteGate("every Data 1 sheet runs to the latest data its Contents sheet announces"),
	}, st.csv...)
}

func seriesFor(name string) (ngSeries, bool) {
	for _, s := range ngSeriesList {
		if s.file == name {
			return s, true
		}
	}
	return ngSeries{}, false
}

func unitOf(header string) string {
	switch {
	case strings.Contains(header, "Dollars per Million Btu"):
		return "USD/MMBtu"
	case strings.Contains(header, "Dollars per Thousand Cubic Feet"):
		return "USD/Mcf"
	}
	return ""
}

// releaseDate reads the "Release Date:" cell of the Contents sheet as an ISO date.
func releaseDate(wb *grid.Workbook) (string, error) {
	sh := wb.Sheet(ngContentsSheet)
	if sh == nil {
		return "", fmt.Errorf("no %s sheet with the release date", ngContentsSheet)
	}
	for r := 1; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		for ci, c := range row {
			if strings.TrimSpace(c.Value) == ngReleaseDateCell && ci+1 < len(row) {
				t, err := kit.ParseDate(row[ci+1].Value)
				if err != nil {
					return "", fmt.Errorf("release date: %w", err)
				}
				return t.Format("2006-01-02"), nil
			}
		}
	}
	return "", fmt.Errorf("no %q cell on the %s sheet", ngReleaseDateCell, ngContentsSheet)
}

// csvAgreement checks that every date of the CSV export is in the workbook with the same
// price (the workbook is the agency's master; the export may lack a few dates).
func csvAgreement(f *ingest.File, master map[string]float64) (snapshots.Gate, error) {
	g := snapshots.Gate{Name: "csv_export_agrees"}
	wb, err := grid.Open(f.Path)
	if err != nil {
		return g, err
	}
	sh := wb.Sheets[0]
	var mismatches []string
	n := 0
	for r := csvFirstDataLine; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 {
			continue
		}
		d, err := kit.ParseDate(row[0].Value)
		if err != nil {
			mismatches = append(mismatches, fmt.Sprintf("line %d: %v", r, err))
			continue
		}
		key := d.Format("2006-01-02")
		n++
		var val any
		if len(row) > 1 {
			val, err = kit.Number(row[1])
			if err != nil {
				mismatches = append(mismatches, fmt.Sprintf("line %d: %v", r, err))
				continue
			}
		}
		want, inMaster := master[key]
		switch {
		case val == nil && !inMaster:
		case val == nil || !inMaster:
			mismatches = append(mismatches, fmt.Sprintf("line %d (%s): csv %v, workbook %v", r, key, val, want))
		case math.Abs(val.(float64)-want) > 1e-9:
			mismatches = append(mismatches, fmt.Sprintf("line %d (%s): csv %v, workbook %v", r, key, val, want))
		}
	}
	if n == 0 {
		mismatches = append(mismatches, "no data lines")
	}
	if len(mismatches) > 0 {
		if len(mismatches) > 5 {
			mismatches = append(mismatches[:5], fmt.Sprintf("and %d more", len(mismatches)-5))
		}
		g.Detail = strings.Join(mismatches, "; ")
		return g, nil
	}
	g.Passed = true
	g.Detail = fmt.Sprintf("all %d dates of %s agree with the workbook", n, filepath.Base(f.Path))
	return g, nil
}

// ngCoverage is what a workbook whose series ends before the end of its last year covers of
// that year (and, for a daily series, of its last month): the series' months or days
// through its last one. Every release of these workbooks ends so; a later release, or
// another workbook publishing the same series, completes the period.
func ngCoverage(file, atom, series, frequency, last string) ([]snapshots.Coverage, bool) {
	if last == "" {
		return nil, false
	}
	year := last[:4]
	later := fmt.Sprintf("No published file here has the rest of it: the agency updates %s with each release, and a later one (citeq ingest --fetch) is a newer version of this document, whose release date is a new as_of", file)
	if series == ngUSSeries && file != ngStatesFile {
		later += fmt.Sprintf("; the state workbook %s publishes %s too, and a snapshot holding it serves each month from the newer release", ngStatesFile, series)
	}
	later += "."
	where := func(field, value string) map[string]string { return map[string]string{"atom": atom, field: value} }
	if frequency == "monthly" {
		if strings.HasSuffix(last, "-12") {
			return nil, false
		}
		n := int(last[5]-'0')*10 + int(last[6]-'0')
		return []snapshots.Coverage{{Where: where("year", year), Period: fmt.Sprintf("the year %s of %s", year, series), File: file,
			Covered: fmt.Sprintf("the months %s-01 to %s, %d of its 12", year, last, n), Complete: later}}, true
	}
	end, err := time.Parse("2006-01-02", last)
	if err != nil || end.Month() == time.December && end.Day() == 31 {
		return nil, false
	}
	out := []snapshots.Coverage{{Where: where("year", year), Period: fmt.Sprintf("the year %s of %s", year, series), File: file,
		Covered: fmt.Sprintf("its trading days through %s (the workbook's latest data)", last), Complete: later}}
	if month := last[:7]; end.AddDate(0, 0, 1).Month() == end.Month() {
		out = append(out, snapshots.Coverage{Where: where("month", month), Period: fmt.Sprintf("the month %s of %s", month, series), File: file,
			Covered: fmt.Sprintf("its trading days through %s", last), Complete: later})
	}
	return out, true
}

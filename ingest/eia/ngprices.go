package eia

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/ingest/xls"
	"github.com/citeq/citeq/snapshots"
)

// NaturalGasPrices ingests natural_gas.prices from the agency's price workbooks: the Henry Hub
// daily spot master (RNGWHHDd.xls, atom henry_hub_daily_spot), the U.S. electric-power
// series N3045US3 of the monthly price summary (NG_PRI_SUM_DCU_NUS_M.xls, atom
// us_electric_power_monthly), and the state series of the electric-power price workbook
// (NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls, atom state_electric_power_monthly), which repeats
// N3045US3 in a later release. Each workbook is a document of its own (the capability's
// documents complement each other): ingest composes the snapshots, serving each month of
// N3045US3 from the newest release that publishes it. The CSV export of the Henry Hub page,
// when present, is a check of the Henry Hub document: it must agree with the workbook on
// every date both have.
type NaturalGasPrices struct{}

// Capability implements Adapter.
func (NaturalGasPrices) Capability() *capability.Capability { return capability.NaturalGasPrices }

// Version implements Adapter.
func (NaturalGasPrices) Version() string { return "ngprices/3" }

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

// Known implements Adapter. The CSV export has no stable address of its own (the page's
// button makes it in the browser), so it is not downloaded.
func (NaturalGasPrices) Known() []fetch.Source {
	var out []fetch.Source
	for _, s := range ngSeriesList {
		out = append(out, fetch.Source{URL: s.url, Kind: fetch.XLS, Dest: "eia/ng_prices/" + s.file})
	}
	return append(out, fetch.Source{URL: ngStatesURL, Kind: fetch.XLS, Dest: "eia/ng_prices/" + ngStatesFile})
}

// Folders implements Adapter.
func (NaturalGasPrices) Folders() []string { return []string{"eia/ng_prices"} }

// Plan implements Adapter: one document per workbook found, the Henry Hub workbook with the
// CSV export as its check when present. The documents are listed by the age of their
// series' usual release (the U.S. summary, the state workbook, then the daily Henry Hub
// master); ingest orders the snapshots by the release dates the workbooks print.
func (NaturalGasPrices) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	var plans []ingest.Plan
	add := func(name, sourceID, url string) ([]string, error) {
		ps, err := finder.Named(name)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			plans = append(plans, ingest.Plan{Files: []ingest.File{{Path: p, SourceID: sourceID, Publisher: Publisher, URL: url, Role: ingest.RoleData}}})
		}
		return ps, nil
	}
	us, hh := ngSeriesList[0], ngSeriesList[1]
	if _, err := add(us.file, us.sourceID, us.url); err != nil {
		return nil, err
	}
	if _, err := add(ngStatesFile, ngStatesSourceID, ngStatesURL); err != nil {
		return nil, err
	}
	ps, err := add(hh.file, hh.sourceID, hh.url)
	if err != nil || len(ps) == 0 {
		return plans, err
	}
	csv, err := finder.Named(henryHubCSV)
	if err != nil {
		return nil, err
	}
	for i := len(plans) - len(ps); i < len(plans); i++ {
		for _, p := range csv {
			plans[i].Files = append(plans[i].Files, ingest.File{Path: p, SourceID: hh.sourceID, Publisher: Publisher, URL: henryHubCSVURL, Role: ingest.RoleCheck})
		}
	}
	return plans, nil
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

// Build implements Adapter.
func (NaturalGasPrices) Build(p ingest.Plan) (*ingest.Build, error) {
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"price": {Min: -100, Max: 1000}, "year": {Min: 1900, Max: 2100}},
		Required: []string{"atom", "series_id", "observation_date", "period", "unit"},
	}
	rows := ingest.NewRows(capability.NaturalGasPrices)
	var bad kit.Problems
	henryHub := map[string]float64{} // workbook Henry Hub prices by date, for the CSV check
	var csvFile *ingest.File
	asOf := ""
	var found, missing, headersFound, incomplete []string
	for fi := range p.Files {
		f := &p.Files[fi]
		name := filepath.Base(f.Path)
		if f.Role == ingest.RoleCheck {
			csvFile = f
			continue
		}
		if name == ngStatesFile {
			src, st, err := buildStates(f, rows, &bad, &missing, &incomplete)
			if err != nil {
				return nil, err
			}
			if st.release > asOf {
				asOf = st.release
			}
			if src != nil {
				b.Sources = append(b.Sources, *src)
				found = append(found, st.found)
				headersFound = append(headersFound, ngStatesFile+": Date, N3045US3 and the state series N3045<state>3 (USD/Mcf)")
				b.Coverage = append(b.Coverage, st.coverage...)
			}
			continue
		}
		s, ok := seriesFor(name)
		if !ok {
			return nil, fmt.Errorf("%s: no series is read from this file", name)
		}
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, err
		}
		release, err := releaseDate(wb)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if release > asOf {
			asOf = release
		}
		sh := wb.Sheet(ngDataSheet)
		if sh == nil {
			missing = append(missing, fmt.Sprintf("%s: no sheet %q (sheets: %s)", name, ngDataSheet, strings.Join(wb.SheetNames(), ", ")))
			continue
		}
		col := 0
		for ci, c := range sh.Row(ngSourcekeyRow) {
			if strings.TrimSpace(c.Value) == s.seriesID {
				col = ci + 1
			}
		}
		if col == 0 || strings.TrimSpace(sh.Cell(ngHeaderRow, 1).Value) != "Date" {
			missing = append(missing, fmt.Sprintf("%s: sheet %s has no Date column in row %d or no series %s in row %d", name, ngDataSheet, ngHeaderRow, s.seriesID, ngSourcekeyRow))
			continue
		}
		seriesName := kit.Squash(sh.Cell(ngHeaderRow, col).Value)
		unit := unitOf(seriesName)
		if unit == "" {
			missing = append(missing, fmt.Sprintf("%s: the unit of series %s cannot be read from its header %q in row %d", name, s.seriesID, seriesName, ngHeaderRow))
			continue
		}
		headersFound = append(headersFound, fmt.Sprintf("%s: Date and %s (%s)", name, s.seriesID, unit))
		if why := dataComplete(name, wb, sh); why != "" {
			incomplete = append(incomplete, why)
		}
		src := f.Source()
		src.Release, src.Title, src.HeaderRows = release, strings.TrimSpace(sh.Cell(1, 2).Value), map[string]int{ngDataSheet: ngHeaderRow}
		b.Sources = append(b.Sources, src)
		n, last := 0, ""
		for r := ngFirstDataRow; r <= sh.NumRows(); r++ {
			dc := sh.Cell(r, 1)
			if dc.Kind == grid.Empty {
				continue
			}
			serial, err := strconv.ParseFloat(dc.Value, 64)
			if err != nil || dc.Kind != grid.Number {
				bad.Add("%s!A%d: date %q is not an Excel date", name, r, dc.Value)
				continue
			}
			d := xls.ExcelSerialToDate(serial)
			price, err := kit.Number(sh.Cell(r, col))
			if err != nil {
				bad.Add("%s!%s%d: %v", name, grid.ColumnName(col), r, err)
			}
			obs, period := d.Format("2006-01-02"), d.Format("2006-01-02")
			if s.frequency == "monthly" {
				obs, period = d.Format("2006-01")+"-01", d.Format("2006-01")
			}
			rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: ngDataSheet, Row: r, SHA256: f.SHA256}).
				Set("atom", s.atom).
				Set("series_id", s.seriesID).
				Set("series_name", seriesName).
				Set("area", "US").
				Set("frequency", s.frequency).
				Set("observation_date", obs).
				Set("period", period).
				Set("year", d.Year()).
				Set("month", d.Format("2006-01")).
				SetCell("price", col, price).
				Set("unit", unit).
				Set("release_date", release).
				Key(s.seriesID + ":" + period)
			if s.atom == "henry_hub_daily_spot" && price != nil {
				henryHub[obs] = price.(float64)
			}
			if period > last {
				last = period
			}
			n++
		}
		found = append(found, fmt.Sprintf("%s: %d rows of %s", name, n, s.seriesID))
		if cv, ok := ngCoverage(name, s.atom, s.seriesID, s.frequency, last); ok {
			b.Coverage = append(b.Coverage, cv...)
		}
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(headersFound, "; ")),
		bad.Gate(kit.GateCells, strings.Join(found, "; ")),
		kit.Failures(kit.GateComplete, incomplete, "every Data 1 sheet runs to the latest data its Contents sheet announces"))
	if csvFile != nil {
		g, err := csvAgreement(csvFile, henryHub)
		if err != nil {
			return nil, err
		}
		b.Checks = append(b.Checks, g)
		b.Sources = append(b.Sources, csvFile.Source())
	}
	return b, nil
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

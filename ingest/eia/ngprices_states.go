package eia

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/grid/xls"
	"github.com/citeq/citeq/ingest/kit"
)

// The agency's "Natural Gas Electric Power Price" workbook by state: sheet Data 1 holds the
// U.S. series N3045US3 and one series N3045<state>3 per state and DC, monthly, USD per Mcf.
const (
	ngStatesFile     = "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"
	ngStatesSourceID = "ng_prices_state_electric_monthly"
	ngStatesURL      = "https://www.eia.gov/dnav/ng/xls/NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"
	ngStatesAtom     = "state_electric_power_monthly"
	ngUSSeries       = "N3045US3"
)

var (
	ngStateKey = regexp.MustCompile(`^N3045([A-Z]{2})3$`)
	monthYear  = regexp.MustCompile(`^(\d{1,2})/(\d{4})$`)
)

// ngStatesBegin checks the layout of the state workbook's Data 1 sheet: a Date column, the
// U.S. series N3045US3 and the state series N3045<state>3 by their row-2 sourcekeys, each
// header naming its unit; a sheet without them is reported and its workbook left out.
func ngStatesBegin(sh *kit.SheetRead) bool {
	fr, b := sh.File, sh.File.Book
	var states []ngStateSeries
	for ci, c := range sh.Row(ngSourcekeyRow) {
		key := strings.TrimSpace(c.Value)
		name := kit.Squash(sh.Cell(ngHeaderRow, ci+1).Value)
		if key == ngUSSeries {
			states = append(states, ngStateSeries{col: ci + 1, id: key, area: "US", name: name, unit: unitOf(name)})
			continue
		}
		if m := ngStateKey.FindStringSubmatch(key); m != nil {
			states = append(states, ngStateSeries{col: ci + 1, id: key, area: m[1], name: name, unit: unitOf(name)})
		}
	}
	var absent []string
	if strings.TrimSpace(sh.Cell(ngHeaderRow, 1).Value) != "Date" {
		absent = append(absent, fmt.Sprintf("no Date header in row %d", ngHeaderRow))
	}
	if !slices.ContainsFunc(states, func(s ngStateSeries) bool { return s.area != "US" }) {
		absent = append(absent, fmt.Sprintf("no N3045<state>3 sourcekey in row %d", ngSourcekeyRow))
	}
	for _, s := range states {
		if s.unit == "" {
			absent = append(absent, fmt.Sprintf("series %s: no unit in its header %q", s.id, s.name))
		}
	}
	if len(absent) > 0 {
		b.Missing = append(b.Missing, fmt.Sprintf("%s sheet %s: %s", ngStatesFile, ngDataSheet, strings.Join(absent, "; ")))
		return false
	}
	ngReading(sh)
	ngStateOf(b).files[fr] = &ngFile{states: states}
	return true
}

// ngStateSeries is one series of the state workbook: its column, sourcekey, area and header.
type ngStateSeries struct {
	col        int
	id, area   string
	name, unit string
}

// ngStatesRow adds a row per series of a month of the state workbook: each state series
// (atom state_electric_power_monthly) and its U.S. column N3045US3 (atom
// us_electric_power_monthly), a later release of the series the U.S. summary workbook
// publishes. Both workbooks are documents of the snapshot; ingest serves each month of
// N3045US3 from the newest release that publishes it and cites the earlier release where the
// values differ (capability.Documents.Overlap).
func ngStatesRow(r *kit.Row) {
	d, ok := ngDate(r)
	if !ok {
		return
	}
	period := d.Format("2006-01")
	for _, s := range ngStateOf(r.Book).files[r.File].states {
		price := r.Read(kit.AsNumber, s.col, "price")
		// Each series is its own column: the price's column is recorded by series id (the
		// definition's ColumnBy), so each fact row re-reads its own cell.
		atom := ngStatesAtom
		if s.area == "US" {
			atom = ngSeriesList[0].atom
		}
		r.Add().
			Set("atom", atom).
			Set("series_id", s.id).
			Set("series_name", s.name).
			Set("area", s.area).
			Set("frequency", "monthly").
			Set("observation_date", period+"-01").
			Set("period", period).
			Set("year", d.Year()).
			Set("month", period).
			SetCell("price", s.col, price).
			Set("unit", s.unit).
			Set("release_date", r.File.Source.Release).
			Key(s.id + ":" + period)
	}
}

// ngStatesClose reports what the state workbook held and what of its last year it covers; a
// workbook whose layout is not read is left out of the sources.
func ngStatesClose(fr *kit.FileRead) error {
	st := ngStateOf(fr.Book)
	f := st.files[fr]
	if f == nil {
		fr.Omit = true
		return nil
	}
	st.found = append(st.found, fmt.Sprintf("%s: %d rows of %d series (N3045US3 and %d states)", ngStatesFile, len(fr.Added), len(f.states), len(f.states)-1))
	fr.Book.Found = append(fr.Book.Found, ngStatesFile+": Date, N3045US3 and the state series N3045<state>3 (USD/Mcf)")
	last := lastPeriod(fr)
	for _, atom := range []string{ngSeriesList[0].atom, ngStatesAtom} {
		series := ngUSSeries
		if atom == ngStatesAtom {
			series = "the state series"
		}
		if cv, ok := ngCoverage(ngStatesFile, atom, series, "monthly", last); ok {
			fr.Book.Coverage = append(fr.Book.Coverage, cv...)
		}
	}
	return nil
}

// dataComplete checks that sheet Data 1 runs to the last observation the Contents sheet
// announces ("Latest Data for": 7/9/2024 for a daily series, 12/2022 for a monthly one): a
// workbook cut short ends earlier. It returns "" when complete, else why not.
func dataComplete(name string, wb *grid.Workbook, sh *grid.Sheet) string {
	contents := wb.Sheet(ngContentsSheet)
	if contents == nil {
		return fmt.Sprintf("%s: no %s sheet announcing the latest data", name, ngContentsSheet)
	}
	latest, freq := "", ""
	for r := 1; r <= contents.NumRows() && latest == ""; r++ {
		row := contents.Row(r)
		for ci := 0; ci+3 < len(row); ci++ {
			if strings.TrimSpace(row[ci].Value) == ngDataSheet {
				for cj := ci + 1; cj+1 < len(row); cj++ {
					if f := strings.TrimSpace(row[cj].Value); f == "Daily" || f == "Monthly" {
						freq, latest = f, strings.TrimSpace(row[cj+1].Value)
						break
					}
				}
				break
			}
		}
	}
	if latest == "" {
		return fmt.Sprintf("%s: the %s sheet gives no 'Latest Data for' %s", name, ngContentsSheet, ngDataSheet)
	}
	want := latest
	if freq == "Daily" {
		t, err := kit.ParseDate(latest)
		if err != nil {
			return fmt.Sprintf("%s: latest data %q: %v", name, latest, err)
		}
		want = t.Format("2006-01-02")
	} else if m := monthYear.FindStringSubmatch(latest); m != nil {
		mo, _ := strconv.Atoi(m[1])
		want = fmt.Sprintf("%s-%02d", m[2], mo)
	} else {
		return fmt.Sprintf("%s: latest data %q is not M/YYYY", name, latest)
	}
	last := ""
	for r := sh.NumRows(); r >= ngFirstDataRow && last == ""; r-- {
		c := sh.Cell(r, 1)
		if c.Kind != grid.Number {
			continue
		}
		if f, err := strconv.ParseFloat(c.Value, 64); err == nil {
			d := xls.ExcelSerialToDate(f)
			last = d.Format("2006-01-02")
			if freq != "Daily" {
				last = d.Format("2006-01")
			}
		}
	}
	if last != want {
		return fmt.Sprintf("%s: sheet %s ends at %q, but the %s sheet announces data through %s", name, ngDataSheet, last, ngContentsSheet, want)
	}
	return ""
}

package eia

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/ingest/xls"
	"github.com/citeq/citeq/snapshots"
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

// ngStates is what buildStates read: the workbook's release, what it found, and the periods
// it covers only in part.
type ngStates struct {
	release  string
	found    string
	coverage []snapshots.Coverage
}

// buildStates adds a row per series and month of the state workbook: each state series (atom
// state_electric_power_monthly) and its U.S. column N3045US3 (atom us_electric_power_monthly),
// a later release of the series the U.S. summary workbook publishes. Both workbooks are
// documents of the snapshot; ingest serves each month of N3045US3 from the newest release
// that publishes it and cites the earlier release where the values differ
// (capability.Documents.Overlap).
func buildStates(f *ingest.File, rows *ingest.Rows, bad *kit.Problems, missing, incomplete *[]string) (*snapshots.Source, *ngStates, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, nil, err
	}
	release, err := releaseDate(wb)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ngStatesFile, err)
	}
	out := &ngStates{release: release}
	sh := wb.Sheet(ngDataSheet)
	if sh == nil {
		*missing = append(*missing, fmt.Sprintf("%s: no sheet %q", ngStatesFile, ngDataSheet))
		return nil, out, nil
	}
	type series struct {
		col          int
		id, area     string
		name, unit   string
		observations int
	}
	var states []series
	for ci, c := range sh.Row(ngSourcekeyRow) {
		key := strings.TrimSpace(c.Value)
		name := kit.Squash(sh.Cell(ngHeaderRow, ci+1).Value)
		if key == ngUSSeries {
			states = append(states, series{col: ci + 1, id: key, area: "US", name: name, unit: unitOf(name)})
			continue
		}
		if m := ngStateKey.FindStringSubmatch(key); m != nil {
			states = append(states, series{col: ci + 1, id: key, area: m[1], name: name, unit: unitOf(name)})
		}
	}
	var absent []string
	if strings.TrimSpace(sh.Cell(ngHeaderRow, 1).Value) != "Date" {
		absent = append(absent, fmt.Sprintf("no Date header in row %d", ngHeaderRow))
	}
	if !slices.ContainsFunc(states, func(s series) bool { return s.area != "US" }) {
		absent = append(absent, fmt.Sprintf("no N3045<state>3 sourcekey in row %d", ngSourcekeyRow))
	}
	for _, s := range states {
		if s.unit == "" {
			absent = append(absent, fmt.Sprintf("series %s: no unit in its header %q", s.id, s.name))
		}
	}
	if len(absent) > 0 {
		*missing = append(*missing, fmt.Sprintf("%s sheet %s: %s", ngStatesFile, ngDataSheet, strings.Join(absent, "; ")))
		return nil, out, nil
	}
	if why := dataComplete(ngStatesFile, wb, sh); why != "" {
		*incomplete = append(*incomplete, why)
	}
	src := f.Source()
	src.Release, src.Title, src.HeaderRows = release, strings.TrimSpace(sh.Cell(1, 2).Value), map[string]int{ngDataSheet: ngHeaderRow}
	n, last := 0, ""
	for r := ngFirstDataRow; r <= sh.NumRows(); r++ {
		dc := sh.Cell(r, 1)
		if dc.Kind == grid.Empty {
			continue
		}
		serial, err := strconv.ParseFloat(dc.Value, 64)
		if err != nil || dc.Kind != grid.Number {
			bad.Add("%s!A%d: date %q is not an Excel date", ngStatesFile, r, dc.Value)
			continue
		}
		d := xls.ExcelSerialToDate(serial)
		period := d.Format("2006-01")
		last = max(last, period)
		for i := range states {
			s := &states[i]
			price, err := kit.Number(sh.Cell(r, s.col))
			if err != nil {
				bad.Add("%s!%s%d: %v", ngStatesFile, grid.ColumnName(s.col), r, err)
			}
			if price != nil {
				s.observations++
			}
			// Each series is its own column: the price's column is recorded by series id
			// (the definition's ColumnBy), so each fact row re-reads its own cell.
			atom := ngStatesAtom
			if s.area == "US" {
				atom = ngSeriesList[0].atom
			}
			rows.Add(ingest.Lineage{SourceID: f.SourceID, File: ngStatesFile, Sheet: ngDataSheet, Row: r, SHA256: f.SHA256}).
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
				Set("release_date", release).
				Key(s.id + ":" + period)
			n++
		}
	}
	out.found = fmt.Sprintf("%s: %d rows of %d series (N3045US3 and %d states)", ngStatesFile, n, len(states), len(states)-1)
	for _, atom := range []string{ngSeriesList[0].atom, ngStatesAtom} {
		series := ngUSSeries
		if atom == ngStatesAtom {
			series = "the state series"
		}
		if cv, ok := ngCoverage(ngStatesFile, atom, series, "monthly", last); ok {
			out.coverage = append(out.coverage, cv...)
		}
	}
	return &src, out, nil
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

package eia

import (
	"fmt"
	"math"
	"regexp"
	"sort"
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

// ngStates is what buildStates read: the U.S. column of the workbook (by period), for the
// comparison with the U.S. summary workbook, and what it found.
type ngStates struct {
	us      map[string]float64
	release string
	found   string
}

// buildStates adds a row per state series and month of the state workbook (atom
// state_electric_power_monthly). Its U.S. column N3045US3 is not served from this workbook:
// the series is served from the U.S. summary workbook, and this later release of it is
// compared with that one (ngReleaseGate).
func buildStates(f *ingest.File, rows *ingest.Rows, bad *kit.Problems, missing, incomplete *[]string) (*snapshots.Source, *ngStates, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, nil, err
	}
	release, err := releaseDate(wb)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ngStatesFile, err)
	}
	out := &ngStates{us: map[string]float64{}, release: release}
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
	usCol := 0
	for ci, c := range sh.Row(ngSourcekeyRow) {
		key := strings.TrimSpace(c.Value)
		if key == ngUSSeries {
			usCol = ci + 1
			continue
		}
		if m := ngStateKey.FindStringSubmatch(key); m != nil {
			name := kit.Squash(sh.Cell(ngHeaderRow, ci+1).Value)
			states = append(states, series{col: ci + 1, id: key, area: m[1], name: name, unit: unitOf(name)})
		}
	}
	var absent []string
	if strings.TrimSpace(sh.Cell(ngHeaderRow, 1).Value) != "Date" {
		absent = append(absent, fmt.Sprintf("no Date header in row %d", ngHeaderRow))
	}
	if len(states) == 0 {
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
	n := 0
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
		if usCol > 0 {
			if v, err := kit.Number(sh.Cell(r, usCol)); err == nil && v != nil {
				out.us[period] = v.(float64)
			}
		}
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
			rows.Add(ingest.Lineage{SourceID: f.SourceID, File: ngStatesFile, Sheet: ngDataSheet, Row: r, SHA256: f.SHA256}).
				Set("atom", ngStatesAtom).
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
	out.found = fmt.Sprintf("%s: %d rows of %d state series", ngStatesFile, n, len(states))
	return &src, out, nil
}

// ngReleaseGate compares the two releases of N3045US3: the U.S. summary workbook's values
// (served) and the state workbook's (a later release, not served). The gate passes; its detail
// lists every month where they differ and the months only the later release has, so no
// revision is hidden and none silently replaces a served value.
func ngReleaseGate(served map[string]float64, servedRelease string, st *ngStates) snapshots.Gate {
	var diffs, extra []string
	same := 0
	for p, v := range st.us {
		w, ok := served[p]
		switch {
		case !ok:
			extra = append(extra, p)
		case math.Abs(v-w) > 1e-9:
			diffs = append(diffs, fmt.Sprintf("%s: %g served (release %s), %g in release %s", p, w, servedRelease, v, st.release))
		default:
			same++
		}
	}
	sort.Strings(diffs)
	sort.Strings(extra)
	detail := fmt.Sprintf("N3045US3 is served from %s (release %s); %s (release %s) repeats it: %d months agree, %d differ",
		"NG_PRI_SUM_DCU_NUS_M.xls", servedRelease, ngStatesFile, st.release, same, len(diffs))
	if len(diffs) > 0 {
		detail += " (" + strings.Join(diffs, "; ") + ")"
	}
	if len(extra) > 0 {
		detail += fmt.Sprintf("; %d months only in the later release, not served: %s to %s", len(extra), extra[0], extra[len(extra)-1])
	}
	return snapshots.Gate{Name: "n3045us3_releases_compared", Passed: true, Detail: detail}
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

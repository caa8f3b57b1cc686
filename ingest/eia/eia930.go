package eia

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the regions' local time zones, whatever the host has installed

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// The EIA-930 hourly series CSV made by the agency's API v1 query browser ("Download Data"):
// five preamble lines (title, page address, the browser's download time, source, and
// "Category,Series ID: <series> <unit>"), then one line per hour, newest first, as
// "MM/D/YYYY HHH,<value>" in UTC, hour ending.
var (
	demandFile     = regexp.MustCompile(`^Demand_for_(.+)_hourly_-_UTC_time\.csv$`)
	demandSeries   = regexp.MustCompile(`^Series ID: (EBA\.([A-Z0-9]+)-ALL\.D\.H) (\S+)$`)
	demandTitle    = regexp.MustCompile(`^Demand for (.+) hourly - UTC time$`)
	demandHour     = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4}) (\d{2})H$`)
	demandHeader   = 5
	demandSourceID = "eia930"
)

// regionZones are the local time zones of the EIA-930 regions, for local days and months.
var regionZones = map[string]string{
	"CAL": "America/Los_Angeles", "NW": "America/Los_Angeles", "SW": "America/Phoenix",
	"TEX": "America/Chicago", "CENT": "America/Chicago", "MIDW": "America/Chicago", "TEN": "America/Chicago",
	"CAR": "America/New_York", "FLA": "America/New_York", "MIDA": "America/New_York", "NE": "America/New_York",
	"NY": "America/New_York", "SE": "America/New_York",
}

// demandHourRow is one parsed hour.
type demandHourRow struct {
	line  int
	raw   string
	end   time.Time // hour ending, UTC
	value any       // float64, or nil when blank
}

// demandFileData is one parsed CSV file.
type demandFileData struct {
	name, seriesID, respondent, regionName, unit string
	zone                                         *time.Location
	hours                                        []demandHourRow
	headerOK                                     bool
	headerDetail                                 string
	bad                                          kit.Problems
	sheetRows                                    int
	sheetSum                                     float64
}

// readDemand parses the CSV at f. A preamble that does not read as the agency's is reported
// (headerOK false) and the hours are read all the same, so the gate rejects the file.
func readDemand(f *ingest.File) (*demandFileData, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, err
	}
	sh := wb.Sheets[0]
	d := &demandFileData{name: filepath.Base(f.Path)}
	if m := demandFile.FindStringSubmatch(d.name); m != nil {
		d.regionName = strings.ReplaceAll(m[1], "_", " ")
	}
	if m := demandTitle.FindStringSubmatch(strings.TrimSpace(sh.Cell(1, 1).Value)); m != nil {
		d.regionName = m[1]
	}
	cat, ser := strings.TrimSpace(sh.Cell(demandHeader, 1).Value), strings.TrimSpace(sh.Cell(demandHeader, 2).Value)
	if m := demandSeries.FindStringSubmatch(ser); cat == "Category" && m != nil {
		d.seriesID, d.respondent, d.unit, d.headerOK = m[1], m[2], m[3], true
		d.headerDetail = fmt.Sprintf("%s line %d: series %s in %s", d.name, demandHeader, d.seriesID, d.unit)
	} else {
		d.headerDetail = fmt.Sprintf("%s line %d reads %q, %q: not 'Category' and 'Series ID: EBA.<region>-ALL.D.H <unit>'", d.name, demandHeader, cat, ser)
	}
	if d.headerOK && d.unit != "megawatthours" {
		d.headerOK = false
		d.headerDetail = fmt.Sprintf("%s: unit %q, not megawatthours", d.name, d.unit)
	}
	if z, ok := regionZones[d.respondent]; ok {
		d.zone, _ = time.LoadLocation(z)
	}
	for r := demandHeader + 1; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 {
			continue
		}
		raw := strings.TrimSpace(row[0].Value)
		m := demandHour.FindStringSubmatch(raw)
		if m == nil {
			d.bad.Add("%s line %d: %q is not an hour 'MM/D/YYYY HHH'", d.name, r, raw)
			continue
		}
		mo, _ := strconv.Atoi(m[1])
		day, _ := strconv.Atoi(m[2])
		yr, _ := strconv.Atoi(m[3])
		hr, _ := strconv.Atoi(m[4])
		end := time.Date(yr, time.Month(mo), day, hr, 0, 0, 0, time.UTC)
		if end.Month() != time.Month(mo) || end.Day() != day || hr > 23 {
			d.bad.Add("%s line %d: %q is not a calendar hour", d.name, r, raw)
			continue
		}
		v, err := kit.Number(sh.Cell(r, 2))
		if err != nil {
			d.bad.Add("%s line %d: %v", d.name, r, err)
		}
		d.hours = append(d.hours, demandHourRow{line: r, raw: raw, end: end, value: v})
		// The second reading: every line after the preamble, its value summed as written.
		d.sheetRows++
		if x, err := strconv.ParseFloat(strings.TrimSpace(sh.Cell(r, 2).Value), 64); err == nil {
			d.sheetSum += x
		}
	}
	return d, nil
}

// demandPlan finds the demand CSV files: one snapshot per file.
func demandPlan(files *ingest.Finder) ([]ingest.Plan, error) {
	ps, err := files.Find(demandFile.MatchString)
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range ps {
		plans = append(plans, ingest.Plan{Files: []ingest.File{{Path: p, SourceID: demandSourceID, Publisher: Publisher, Role: ingest.RoleData, URL: demandURL(filepath.Base(p))}}})
	}
	return plans, nil
}

// demandURL is the query-browser page the CSV was downloaded from, when the file name's
// region is known.
func demandURL(name string) string {
	if strings.HasPrefix(name, "Demand_for_California_(region)") {
		return "https://www.eia.gov/opendata/qb.php?category=3389936&sdid=EBA.CAL-ALL.D.H"
	}
	return "https://www.eia.gov/opendata/qb.php (EIA-930 series, Download Data)"
}

// demandKnown: the API v1 query browser made the CSV in the browser and has been retired, so
// there is no address to download it from; the same series is served by API v2 route
// electricity/rto/region-data, whose JSON a future adapter version can read.
func demandKnown() []fetch.Source { return nil }

const isoHour = "2006-01-02T15:04:05Z"

// demandSource is the manifest entry of the CSV with its release and header line.
func demandSource(f *ingest.File, d *demandFileData) snapshots.Source {
	src := f.Source()
	src.Title = "Demand for " + d.regionName + " hourly - UTC time (" + d.seriesID + ")"
	src.HeaderRows = map[string]int{grid.CSVSheetName: demandHeader}
	if len(d.hours) > 0 {
		src.Release = latestEnd(d).Format("2006-01-02")
	}
	return src
}

func latestEnd(d *demandFileData) time.Time {
	var t time.Time
	for _, h := range d.hours {
		if h.end.After(t) {
			t = h.end
		}
	}
	return t
}

// demandGates are the gates both demand adapters report on a file.
func demandGates(d *demandFileData, parsedRows int, parsedSum float64) []snapshots.Gate {
	var missing []string
	if !d.headerOK {
		missing = append(missing, d.headerDetail)
	}
	var rec kit.Reconcile
	rec.Sheet(d.name, parsedRows, parsedSum, d.sheetRows, d.sheetSum, "MWh")
	// Hours missing between the first and the last are reported; the gate passes.
	seen := map[time.Time]bool{}
	first, last := time.Time{}, time.Time{}
	for _, h := range d.hours {
		seen[h.end] = true
		if first.IsZero() || h.end.Before(first) {
			first = h.end
		}
		if h.end.After(last) {
			last = h.end
		}
	}
	gaps := 0
	if !first.IsZero() {
		for t := first; !t.After(last); t = t.Add(time.Hour) {
			if !seen[t] {
				gaps++
			}
		}
	}
	return []snapshots.Gate{
		kit.Failures(kit.GateHeaders, missing, d.headerDetail),
		d.bad.Gate(kit.GateCells, fmt.Sprintf("%d hours parse (MM/D/YYYY HHH, a number)", len(d.hours))),
		rec.Gate(),
		{Name: "hour_coverage", Passed: true, Detail: fmt.Sprintf("%d hours from %s to %s (hour ending, UTC); %d hours missing in between", len(d.hours), first.Format(isoHour), last.Format(isoHour), gaps)},
	}
}

// demandSpan is what a file holds of one period: its hours present, and the first and last
// hour ending present.
type demandSpan struct {
	where       map[string]string
	name        string
	start, next time.Time // the period's bounds
	present     int
	first, last time.Time
}

// demandCoverage lists the periods of the file that it covers only in part, each with its
// hours present and expected, and what would complete it: hours before the file's first
// hour, or after its last (the day it was downloaded), are in no file here. period gives the
// periods an hour (by its start) belongs to.
func demandCoverage(d *demandFileData, period func(start time.Time) []demandSpan) []snapshots.Coverage {
	if len(d.hours) == 0 {
		return nil
	}
	spans := map[string]*demandSpan{}
	var keys []string
	first, last := d.hours[0].end, d.hours[0].end
	for _, h := range d.hours {
		if h.end.Before(first) {
			first = h.end
		}
		if h.end.After(last) {
			last = h.end
		}
		if h.value == nil {
			continue
		}
		for _, sp := range period(h.end.Add(-time.Hour)) {
			k := sp.name
			cur := spans[k]
			if cur == nil {
				cp := sp
				cur = &cp
				spans[k] = cur
				keys = append(keys, k)
			}
			cur.present++
			if cur.first.IsZero() || h.end.Before(cur.first) {
				cur.first = h.end
			}
			if h.end.After(cur.last) {
				cur.last = h.end
			}
		}
	}
	sort.Strings(keys)
	var out []snapshots.Coverage
	for _, k := range keys {
		sp := spans[k]
		expected := int(sp.next.Sub(sp.start) / time.Hour)
		if sp.present >= expected {
			continue
		}
		var why []string
		if sp.first.After(sp.start.Add(time.Hour)) && sp.first.Equal(first) {
			why = append(why, fmt.Sprintf("the series begins with hour ending %s, and no published file has an earlier hour of it", first.Format(isoHour)))
		}
		if sp.last.Before(sp.next) && sp.last.Equal(last) {
			why = append(why, fmt.Sprintf("no published file here has the hours after %s: the file ends there (the series as downloaded that day); a later download of %s (EIA API v2, route electricity/rto/region-data), ingested as this region's document, replaces it from its own date on", last.Format(isoHour), d.seriesID))
		}
		if inside := expected - sp.present - gapsOutside(sp, first, last); inside > 0 {
			why = append(why, fmt.Sprintf("%d hours inside the file are missing or blank; no other published file here has them", inside))
		}
		out = append(out, snapshots.Coverage{
			Where: sp.where, Period: sp.name, File: d.name,
			Covered:  fmt.Sprintf("%d of its %d hours (hour ending %s to %s)", sp.present, expected, sp.first.Format(isoHour), sp.last.Format(isoHour)),
			Complete: upperFirst(strings.Join(why, "; ")) + ".",
		})
	}
	return out
}

// gapsOutside counts the hours of the span before the file's first hour and after its last.
func gapsOutside(sp *demandSpan, first, last time.Time) int {
	// The span's hours end from start+1h to next.
	n := 0
	if end := sp.start.Add(time.Hour); first.After(end) {
		n += int(first.Sub(end) / time.Hour)
	}
	if last.Before(sp.next) {
		n += int(sp.next.Sub(last) / time.Hour)
	}
	return n
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// demandPeriods are the periods of power.demand an hour starting at t belongs to: its UTC
// day, month and year, and its local day in zone (when the region has one).
func demandPeriods(zone *time.Location) func(t time.Time) []demandSpan {
	return func(t time.Time) []demandSpan {
		t = t.UTC()
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		month := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
		year := time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
		out := []demandSpan{
			{where: map[string]string{"utc_date": day.Format("2006-01-02")}, name: "the UTC day " + day.Format("2006-01-02"), start: day, next: day.AddDate(0, 0, 1)},
			{where: map[string]string{"utc_month": month.Format("2006-01")}, name: "the UTC month " + month.Format("2006-01"), start: month, next: month.AddDate(0, 1, 0)},
			{where: map[string]string{"utc_year": fmt.Sprint(t.Year())}, name: fmt.Sprintf("the UTC year %d", t.Year()), start: year, next: year.AddDate(1, 0, 0)},
		}
		if zone != nil {
			l := t.In(zone)
			ld := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, zone)
			out = append(out, demandSpan{where: map[string]string{"local_date": ld.Format("2006-01-02")},
				name: "the local day " + ld.Format("2006-01-02") + " (" + zone.String() + ")", start: ld, next: time.Date(l.Year(), l.Month(), l.Day()+1, 0, 0, 0, 0, zone)})
		}
		return out
	}
}

// rollupPeriods are the periods of power.demand_rollup an hour starting at t belongs to: its
// day and month in UTC, and in zone (when the region has one).
func rollupPeriods(zone *time.Location) func(t time.Time) []demandSpan {
	return func(t time.Time) []demandSpan {
		bases := []struct {
			name string
			loc  *time.Location
		}{{"utc", time.UTC}}
		if zone != nil {
			bases = append(bases, struct {
				name string
				loc  *time.Location
			}{"local", zone})
		}
		var out []demandSpan
		for _, b := range bases {
			for _, gran := range []string{"day", "month"} {
				label, start, next := periodOf(gran, t, b.loc)
				name := "the UTC " + gran + " " + label
				if b.name == "local" {
					name = "the local " + gran + " " + label + " (" + b.loc.String() + ")"
				}
				out = append(out, demandSpan{where: map[string]string{"period": label, "granularity": gran, "time_basis": b.name},
					name: name, start: start, next: next})
			}
		}
		return out
	}
}

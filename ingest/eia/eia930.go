package eia

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the regions' local time zones, whatever the host has installed

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

// demandFileData is what one build read of its CSV file: the preamble's series and region,
// and the hours.
type demandFileData struct {
	name, seriesID, respondent, regionName, unit string
	zone                                         *time.Location
	hours                                        []demandHourRow
	headerOK                                     bool
	headerDetail                                 string
	// balance is what a six-month BALANCE file holds instead (nil for a region's CSV).
	balance *balanceData
}

func demandOf(b *kit.Book) *demandFileData { return b.State.(*demandFileData) }

// demandFiles are the demand CSV files, one snapshot per file: the preamble read before the
// hours (line 5 its header), each hour read by each, the file closed by close. The second
// reading counts every line after the preamble and sums its value as written; field is the
// fact field the facts are totalled by ("": the hours counted by each, Row.Count).
func demandFiles(each func(r *kit.Row), close func(fr *kit.FileRead) error, field string) []*kit.File {
	return []*kit.File{{
		Match: demandFile, SourceID: demandSourceID, Publisher: Publisher,
		URL: func(name string, _ []string) string { return demandURL(name) },
		Sheets: []*kit.Sheet{{
			Header: demandHeader,
			Columns: []kit.Column{
				{Field: "period_raw", At: 1},
				{Field: "demand_mwh", At: 2, Kind: kit.AsNumber},
			},
			IsRow: func(r *kit.Row) bool { return len(r.Sheet.Sheet.Row(r.N)) > 0 },
			Begin: demandPreamble,
			Each:  each,
			Tally: &kit.Tally{Cells: 1, SumCols: func(*kit.SheetRead) []int { return []int{2} }, Field: field, Unit: "MWh", Label: kit.FileLabel},
		}},
		Close: close,
	}}
}

// demandPreamble reads the series, unit and region from the preamble. A preamble that does
// not read as the agency's is reported (headers_present) and the hours are read all the
// same, so the gate rejects the file.
func demandPreamble(s *kit.SheetRead) bool {
	d := demandOf(s.File.Book)
	d.name = s.File.Name
	if m := s.File.Match; len(m) > 1 {
		d.regionName = strings.ReplaceAll(m[1], "_", " ")
	}
	if m := demandTitle.FindStringSubmatch(strings.TrimSpace(s.Cell(1, 1).Value)); m != nil {
		d.regionName = m[1]
	}
	cat, ser := strings.TrimSpace(s.Cell(demandHeader, 1).Value), strings.TrimSpace(s.Cell(demandHeader, 2).Value)
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
	if !d.headerOK {
		s.File.Book.Missing = append(s.File.Book.Missing, d.headerDetail)
	}
	if z, ok := regionZones[d.respondent]; ok {
		d.zone, _ = time.LoadLocation(z)
	}
	return true
}

// demandHourOf reads a line's hour, "MM/D/YYYY HHH" (hour ending, UTC), and its value; a line
// whose hour does not read is a cell that does not parse, and no hour.
func demandHourOf(r *kit.Row) (demandHourRow, bool) {
	raw := r.Text("period_raw")
	m := demandHour.FindStringSubmatch(raw)
	if m == nil {
		r.Problem(1, "period_raw", "%q is not an hour 'MM/D/YYYY HHH'", raw)
		return demandHourRow{}, false
	}
	mo, _ := strconv.Atoi(m[1])
	day, _ := strconv.Atoi(m[2])
	yr, _ := strconv.Atoi(m[3])
	hr, _ := strconv.Atoi(m[4])
	end := time.Date(yr, time.Month(mo), day, hr, 0, 0, 0, time.UTC)
	if end.Month() != time.Month(mo) || end.Day() != day || hr > 23 {
		r.Problem(1, "period_raw", "%q is not a calendar hour", raw)
		return demandHourRow{}, false
	}
	h := demandHourRow{line: r.N, raw: raw, end: end, value: r.Value("demand_mwh")}
	d := demandOf(r.Book)
	d.hours = append(d.hours, h)
	return h, true
}

// demandClose dates the file by its latest hour, titles it, and lists the periods it covers
// only in part; a file without an hour fails the build.
func demandClose(fr *kit.FileRead, period func(zone *time.Location) func(time.Time) []demandSpan) error {
	d := demandOf(fr.Book)
	if len(d.hours) == 0 {
		return fmt.Errorf("%s: no hourly values", fr.Name)
	}
	fr.Source.Title = "Demand for " + d.regionName + " hourly - UTC time (" + d.seriesID + ")"
	fr.Source.Release = latestEnd(d).Format("2006-01-02")
	fr.Book.AsOf = fr.Source.Release
	fr.Book.Coverage = demandCoverage(d, period(d.zone))
	return nil
}

// demandURL is the query-browser page the CSV was downloaded from, when the file name's
// region is known.
func demandURL(name string) string {
	if strings.HasPrefix(name, "Demand_for_California_(region)") {
		return "https://www.eia.gov/opendata/qb.php?category=3389936&sdid=EBA.CAL-ALL.D.H"
	}
	return "https://www.eia.gov/opendata/qb.php (EIA-930 series, Download Data)"
}

const isoHour = "2006-01-02T15:04:05Z"

func latestEnd(d *demandFileData) time.Time {
	var t time.Time
	for _, h := range d.hours {
		if h.end.After(t) {
			t = h.end
		}
	}
	return t
}

// demandGates are the gates both demand adapters report on a file: the preamble, the hours
// that parse, the second reading, and the hours missing between the first and the last
// (reported; the gate passes).
func demandGates(b *kit.Book) []snapshots.Gate {
	d := demandOf(b)
	if d.balance != nil {
		return balanceGates(b)
	}
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
		b.HeadersGate(d.headerDetail),
		b.CellsGate(fmt.Sprintf("%d hours parse (MM/D/YYYY HHH, a number)", len(d.hours))),
		b.Rec.Gate(),
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

// partialSpans are the periods (period gives those an hour, by its start, belongs to) that
// hours cover only in part, by name, each with its hours present (a value published) and
// expected, and the first and last hour ending of all the hours.
func partialSpans(hours []demandHourRow, period func(start time.Time) []demandSpan) (out []*demandSpan, first, last time.Time) {
	if len(hours) == 0 {
		return nil, first, last
	}
	spans := map[string]*demandSpan{}
	var keys []string
	first, last = hours[0].end, hours[0].end
	for _, h := range hours {
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
	for _, k := range keys {
		if sp := spans[k]; sp.present < sp.expected() {
			out = append(out, sp)
		}
	}
	return out, first, last
}

// expected is the number of hours of the span's period.
func (sp *demandSpan) expected() int { return int(sp.next.Sub(sp.start) / time.Hour) }

// covered says what hours of its period the span holds.
func (sp *demandSpan) covered() string {
	return fmt.Sprintf("%d of its %d hours (hour ending %s to %s)", sp.present, sp.expected(), sp.first.Format(isoHour), sp.last.Format(isoHour))
}

// demandCoverage lists the periods of the file that it covers only in part, each with its
// hours present and expected, and what would complete it: hours before the file's first
// hour, or after its last (the day it was downloaded), are in no file here. period gives the
// periods an hour (by its start) belongs to.
func demandCoverage(d *demandFileData, period func(start time.Time) []demandSpan) []snapshots.Coverage {
	spans, first, last := partialSpans(d.hours, period)
	var out []snapshots.Coverage
	for _, sp := range spans {
		var why []string
		if sp.first.After(sp.start.Add(time.Hour)) && sp.first.Equal(first) {
			why = append(why, fmt.Sprintf("the series begins with hour ending %s, and no published file has an earlier hour of it", first.Format(isoHour)))
		}
		if sp.last.Before(sp.next) && sp.last.Equal(last) {
			why = append(why, fmt.Sprintf("no published file here has the hours after %s: the file ends there (the series as downloaded that day); a later download of %s (EIA API v2, route electricity/rto/region-data), ingested as this region's document, replaces it from its own date on", last.Format(isoHour), d.seriesID))
		}
		if inside := sp.expected() - sp.present - gapsOutside(sp, first, last); inside > 0 {
			why = append(why, fmt.Sprintf("%d hours inside the file are missing or blank; no other published file here has them", inside))
		}
		out = append(out, snapshots.Coverage{
			Where: sp.where, Period: sp.name, File: d.name, Covered: sp.covered(),
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

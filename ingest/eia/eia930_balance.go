package eia

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// EIA's six-month EIA-930 BALANCE files (Hourly Electric Grid Monitor, "Download data"):
// every balancing authority in one CSV per half-year, EIA930_BALANCE_<year>_Jan_Jun.csv and
// EIA930_BALANCE_<year>_Jul_Dec.csv, one line per balancing authority and hour under a header
// line whose labels name the columns (Balancing Authority, Data Date, Hour Number, Local Time
// at End of Hour, UTC Time at End of Hour, Demand Forecast (MW), Demand (MW), Net Generation
// (MW), Total Interchange (MW), then EIA's imputed and adjusted series and, in later years,
// generation by fuel). Numbers group their thousands with commas ("12,345"); times read
// "01/01/2024 1:00:00 AM". The columns are found by their labels, never by position: EIA adds
// columns over the years. The half-year is of local time: its first and last UTC hours fall
// in the neighbouring half-years' UTC days.
var (
	// BalanceFile matches a six-month BALANCE file's name: its year and half.
	BalanceFile = regexp.MustCompile(`^EIA930_BALANCE_(\d{4})_(Jan_Jun|Jul_Dec)\.csv$`)
	// balanceHour is how the UTC Time at End of Hour column writes an hour.
	balanceHour = "1/2/2006 3:04:05 PM"
)

const (
	balanceSourceID = "eia930_balance"
	// BalanceFolder is where in the raw directory the six-month BALANCE files are.
	BalanceFolder = "eia/eia930_balance"
	// BalanceBase is EIA's address of the six-month files.
	BalanceBase = "https://www.eia.gov/electricity/gridmonitor/sixMonthFiles/"
	// The labels of the columns read.
	balanceBA     = "Balancing Authority"
	balanceUTC    = "UTC Time at End of Hour"
	balanceDemand = "Demand (MW)"
)

// balanceData is what one build read of a six-month file: each balancing authority's hours.
type balanceData struct {
	hours map[string][]demandHourRow
	bas   []string
}

// BalanceHalf names the file of the half-year starting at p (January or July).
func BalanceHalf(p time.Time) string {
	half := "Jan_Jun"
	if p.Month() >= time.July {
		half = "Jul_Dec"
	}
	return fmt.Sprintf("EIA930_BALANCE_%d_%s.csv", p.Year(), half)
}

// balanceStart is the first day of the half-year a six-month file's name holds.
func balanceStart(m []string) time.Time {
	y := 0
	fmt.Sscan(m[1], &y)
	mo := time.January
	if m[2] == "Jul_Dec" {
		mo = time.July
	}
	return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
}

// balanceKind declares the six-month BALANCE files for power.demand: each half-year its own
// document, its balancing authorities' demand read by label, one fact per balancing
// authority and hour.
func balanceKind() *kit.File {
	return &kit.File{
		Match: BalanceFile, SourceID: balanceSourceID, Publisher: Publisher,
		URL: func(name string, _ []string) string { return BalanceBase + name },
		// The half-year's last day: the as_of of a file whose hours cannot be read.
		Hint: func(_ string, m []string) string { return balanceStart(m).AddDate(0, 6, -1).Format("2006-01-02") },
		Open: func(fr *kit.FileRead) error {
			demandOf(fr.Book).balance = &balanceData{hours: map[string][]demandHourRow{}}
			return nil
		},
		Sheets: []*kit.Sheet{{
			Header: 1,
			Columns: []kit.Column{
				{Field: "respondent", Header: balanceBA},
				{Field: "period_raw", Header: balanceUTC},
				{Field: "demand_mwh", Header: balanceDemand, Kind: kit.AsGrouped},
			},
			Each: balanceRow,
			Tally: &kit.Tally{Cells: 3, Grouped: true, Field: "demand_mwh", Unit: "MWh", Label: kit.FileLabel,
				SumCols: func(s *kit.SheetRead) []int { return []int{s.Col("demand_mwh")} }},
		}},
		Close: balanceClose,
	}
}

// balanceRow is one balancing authority's hour: its code, its UTC hour ending and its demand
// cited to their cells. A line without a code or whose hour does not read is a cell that
// does not parse, and no fact.
func balanceRow(r *kit.Row) {
	ba := r.Text("respondent")
	raw := r.Text("period_raw")
	if ba == "" {
		r.Problem(r.Sheet.Col("respondent"), balanceBA, "blank: no balancing authority")
		return
	}
	end, err := time.Parse(balanceHour, raw)
	if err != nil || end.Minute() != 0 || end.Second() != 0 {
		r.Problem(r.Sheet.Col("period_raw"), balanceUTC, "%q is not an hour 'M/D/YYYY h:00:00 AM'", raw)
		return
	}
	h := demandHourRow{line: r.N, raw: raw, end: end, value: r.Value("demand_mwh")}
	bd := demandOf(r.Book).balance
	if _, seen := bd.hours[ba]; !seen {
		bd.bas = append(bd.bas, ba)
	}
	bd.hours[ba] = append(bd.hours[ba], h)
	series := "EBA." + ba + "-ALL.D.H"
	start := end.Add(-time.Hour)
	r.Add().
		Set("respondent_name", nil).
		Set("series_id", series).
		Set("hour_ending_utc", end.Format(isoHour)).
		Set("utc_date", start.Format("2006-01-02")).
		Set("utc_month", start.Format("2006-01")).
		Set("utc_year", start.Year()).
		Set("local_time_zone", nil).
		Key(fmt.Sprintf("%s:%s:%s", r.File.SourceID, series, end.Format(isoHour)))
}

// balanceClose dates the file by its latest hour, titles it, and lists the periods of each
// balancing authority it covers only in part. A file whose columns were not found has no
// hours: it is dated by its name and the headers gate rejects it.
func balanceClose(fr *kit.FileRead) error {
	d := demandOf(fr.Book)
	bd := d.balance
	half := strings.ReplaceAll(fr.Match[2], "_", "-")
	fr.Source.Title = fmt.Sprintf("EIA-930 six-month balance file, %s %s (every balancing authority's hourly demand, net generation and interchange)", half, fr.Match[1])
	var last time.Time
	for _, ba := range bd.bas {
		for _, h := range bd.hours[ba] {
			if h.end.After(last) {
				last = h.end
			}
		}
	}
	if last.IsZero() {
		if len(fr.Book.Missing) == 0 {
			return fmt.Errorf("%s: no hourly values", fr.Name)
		}
		fr.Book.AsOf = fr.Book.Plan.AsOfHint
		return nil
	}
	fr.Source.Release = last.Format("2006-01-02")
	fr.Book.AsOf = fr.Source.Release
	fr.Book.Coverage = balanceCoverage(fr.Name, balanceStart(fr.Match), bd)
	return nil
}

// balanceGates are the gates of a six-month file: its header, the hours that parse, the
// second reading, and each balancing authority's hours missing between its first and last
// (reported; the gate passes).
func balanceGates(b *kit.Book) []snapshots.Gate {
	bd := demandOf(b).balance
	n, gaps := 0, 0
	var first, last time.Time
	for _, ba := range bd.bas {
		seen := map[time.Time]bool{}
		var f, l time.Time
		for _, h := range bd.hours[ba] {
			n++
			seen[h.end] = true
			if f.IsZero() || h.end.Before(f) {
				f = h.end
			}
			if h.end.After(l) {
				l = h.end
			}
		}
		for t := f; !t.After(l); t = t.Add(time.Hour) {
			if !seen[t] {
				gaps++
			}
		}
		if first.IsZero() || f.Before(first) {
			first = f
		}
		if l.After(last) {
			last = l
		}
	}
	name := ""
	if len(b.Files) > 0 {
		name = b.Files[0].Name
	}
	return []snapshots.Gate{
		b.HeadersGate(fmt.Sprintf("%s line 1 labels %q, %q and %q", name, balanceBA, balanceUTC, balanceDemand)),
		b.CellsGate(fmt.Sprintf("%d balancing-authority hours parse (a code, an hour M/D/YYYY h:00:00 AM, a number)", n)),
		b.Rec.Gate(),
		{Name: "hour_coverage", Passed: true, Detail: fmt.Sprintf("%d balancing authorities, %d hours from %s to %s (hour ending, UTC); %d hours missing in between", len(bd.bas), n, first.Format(isoHour), last.Format(isoHour), gaps)},
	}
}

// balanceCoverage lists, for each balancing authority, the UTC days, months and years the
// file covers only in part, with what completes each: the neighbouring half-year's file for
// the hours before the file's first or after its last (the half-year is of local time), and
// nothing here for hours missing or blank inside it.
func balanceCoverage(name string, half time.Time, bd *balanceData) []snapshots.Coverage {
	prev, next := BalanceHalf(half.AddDate(0, -6, 0)), BalanceHalf(half.AddDate(0, 6, 0))
	var out []snapshots.Coverage
	for _, ba := range bd.bas {
		spans, first, last := partialSpans(bd.hours[ba], demandPeriods(nil))
		for _, sp := range spans {
			var why []string
			if first.After(sp.start.Add(time.Hour)) {
				why = append(why, fmt.Sprintf("the hours ending before %s are in the previous half-year's file, %s, which complements this one when it is ingested beside it", first.Format(isoHour), prev))
			}
			if last.Before(sp.next) {
				why = append(why, fmt.Sprintf("the hours ending after %s are in the next half-year's file, %s, which complements this one when it is ingested beside it (the file of a half-year under way ends at EIA's latest hour)", last.Format(isoHour), next))
			}
			if inside := sp.expected() - sp.present - gapsOutside(sp, first, last); inside > 0 {
				why = append(why, fmt.Sprintf("%d hours inside the file are missing or blank; no other published file here has them", inside))
			}
			where := map[string]string{"respondent": ba}
			for k, v := range sp.where {
				where[k] = v
			}
			out = append(out, snapshots.Coverage{
				Where: where, Period: sp.name + " of " + ba, File: name, Covered: sp.covered(),
				Complete: upperFirst(strings.Join(why, "; ")) + ".",
				Expected: sp.expected(), Counted: "demand_mwh",
			})
		}
	}
	return out
}

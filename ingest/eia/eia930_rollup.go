package eia

import (
	"fmt"
	"sort"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// DemandRollup ingests power.demand_rollup: the daily and monthly sums, means and peaks of
// the EIA-930 hourly demand CSV, in UTC and in the region's local time, each period with its
// hours present and expected. A period's row cites the line of its peak hour. The CSV has no
// address to download it from (see Demand).
var DemandRollup = kit.New(&kit.Spec{
	Cap:      capability.PowerDemandRollup,
	Version:  "eia930rollup/2",
	Folders:  []string{"eia/eia930"},
	Files:    demandFiles(rollupHour, rollupClose, ""),
	State:    func() any { return &demandFileData{} },
	Gates:    demandGates,
	Ranges:   map[string]snapshots.Range{"peak_mwh": {Min: 0, Max: 1e6}, "hours_present": {Min: 1, Max: 745}},
	Required: []string{"granularity", "time_basis", "period", "demand_mwh", "source_record_key"},
})

// rollupHour reads one hour, counted in the second reading's reconciliation as the hours
// the periods are summed from.
func rollupHour(r *kit.Row) {
	if h, ok := demandHourOf(r); ok {
		r.Count(h.value)
	}
}

// rollupPeriod accumulates one period.
type rollupPeriod struct {
	gran, basis, zone, period string
	start, next               time.Time // the period's bounds in its zone
	sum                       float64
	present                   int
	peak                      *demandHourRow
	first, last               time.Time
}

// periodOf returns the period of an hour starting at t (in loc): its label and bounds.
func periodOf(gran string, t time.Time, loc *time.Location) (string, time.Time, time.Time) {
	t = t.In(loc)
	if gran == "day" {
		s := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		return s.Format("2006-01-02"), s, time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
	}
	s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
	return s.Format("2006-01"), s, time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
}

// rollupClose sums, averages and finds the peak of every period of the file's hours, a row
// per period citing its peak hour's line, once the file is read.
func rollupClose(fr *kit.FileRead) error {
	if err := demandClose(fr, rollupPeriods); err != nil {
		return err
	}
	d := demandOf(fr.Book)
	type basis struct {
		name string
		loc  *time.Location
	}
	bases := []basis{{"utc", time.UTC}}
	if d.zone != nil {
		bases = append(bases, basis{"local", d.zone})
	}
	periods := map[string]*rollupPeriod{}
	var keys []string
	for i := range d.hours {
		h := &d.hours[i]
		v, ok := h.value.(float64)
		start := h.end.Add(-time.Hour)
		for _, b := range bases {
			for _, gran := range []string{"day", "month"} {
				label, ps, pn := periodOf(gran, start, b.loc)
				k := gran + "|" + b.name + "|" + label
				rp := periods[k]
				if rp == nil {
					rp = &rollupPeriod{gran: gran, basis: b.name, zone: b.loc.String(), period: label, start: ps, next: pn}
					periods[k] = rp
					keys = append(keys, k)
				}
				if !ok {
					continue
				}
				rp.sum += v
				rp.present++
				if rp.peak == nil || v > rp.peak.value.(float64) || (v == rp.peak.value.(float64) && h.end.Before(rp.peak.end)) {
					rp.peak = h
				}
				if rp.first.IsZero() || h.end.Before(rp.first) {
					rp.first = h.end
				}
				if h.end.After(rp.last) {
					rp.last = h.end
				}
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		rp := periods[k]
		if rp.peak == nil {
			continue // a period whose every hour is blank has no line to cite
		}
		expected := int(rp.next.Sub(rp.start) / time.Hour)
		zone := rp.zone
		row := fr.Book.Rows.Add(ingest.Lineage{SourceID: fr.SourceID, File: fr.Name, Sheet: grid.CSVSheetName, Row: rp.peak.line, SHA256: fr.SHA256}).
			Set("respondent", nullIfEmpty(d.respondent)).
			Set("respondent_name", nullIfEmpty(d.regionName)).
			Set("series_id", nullIfEmpty(d.seriesID)).
			Set("granularity", rp.gran).
			Set("time_basis", rp.basis).
			Set("time_zone", zone).
			Set("rollup_basis", rp.gran+" "+zone).
			Set("period", rp.period).
			Set("period_start_date", rp.start.Format("2006-01-02")).
			Set("demand_mwh", rp.sum).
			Set("hours_present", rp.present).
			Set("hours_expected", expected).
			Set("hours_missing", expected-rp.present).
			Set("complete", rp.present == expected).
			Set("mean_mwh", rp.sum/float64(rp.present)).
			SetCell("peak_mwh", 2, rp.peak.value).
			SetCell("peak_period_raw", 1, rp.peak.raw).
			Set("peak_hour_ending_utc", rp.peak.end.Format(isoHour)).
			Set("first_hour_ending_utc", rp.first.Format(isoHour)).
			Set("last_hour_ending_utc", rp.last.Format(isoHour))
		row.Key(fmt.Sprintf("%s:%s:%s:%s:%s", fr.SourceID, d.seriesID, rp.gran, rp.basis, rp.period))
	}
	return nil
}

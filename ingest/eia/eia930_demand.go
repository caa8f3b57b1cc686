package eia

import (
	"fmt"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// Demand ingests power.demand from the EIA-930 hourly demand CSV of a region
// (Demand_for_<region>_hourly_-_UTC_time.csv), one row per hour as published, and from EIA's
// six-month BALANCE files (EIA930_BALANCE_<year>_<half>.csv under eia/eia930_balance), one
// row per balancing authority and hour. The API v1 query browser made the region CSV in the
// browser and has been retired, so there is no address to download it from (no Known files);
// the same series is served by API v2 route electricity/rto/region-data, whose JSON a future
// adapter version can read. The six-month files are downloaded by ingest --fetch --since
// (archive.EIA930Balance). Each file is its own document; where two publish the same
// respondent and hour, the newer publication's row is served (capability.PowerDemand's
// Documents).
var Demand = kit.New(&kit.Spec{
	Cap:      capability.PowerDemand,
	Version:  "eia930demand/2",
	Folders:  []string{"eia/eia930", BalanceFolder},
	Files:    append(demandFiles(demandRow, func(fr *kit.FileRead) error { return demandClose(fr, demandPeriods) }, "demand_mwh"), balanceKind()),
	State:    func() any { return &demandFileData{} },
	Gates:    demandGates,
	Ranges:   map[string]snapshots.Range{"demand_mwh": {Min: 0, Max: 1e6}},
	Required: []string{"hour_ending_utc", "utc_date", "source_record_key"},
})

// demandRow is one hour of the file, its line and value cited.
func demandRow(r *kit.Row) {
	h, ok := demandHourOf(r)
	if !ok {
		return
	}
	d := demandOf(r.Book)
	var zone any
	if d.zone != nil {
		zone = d.zone.String()
	}
	start := h.end.Add(-time.Hour)
	row := r.Add().
		Set("respondent", nullIfEmpty(d.respondent)).
		Set("respondent_name", nullIfEmpty(d.regionName)).
		Set("series_id", nullIfEmpty(d.seriesID)).
		Set("hour_ending_utc", h.end.Format(isoHour)).
		Set("utc_date", start.Format("2006-01-02")).
		Set("utc_month", start.Format("2006-01")).
		Set("utc_year", start.Year()).
		Set("local_time_zone", zone).
		Key(fmt.Sprintf("%s:%s:%s", r.File.SourceID, d.seriesID, h.end.Format(isoHour)))
	if d.zone != nil {
		row.Set("local_date", start.In(d.zone).Format("2006-01-02"))
	}
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

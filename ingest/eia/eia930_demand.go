package eia

import (
	"fmt"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/snapshots"
)

// Demand ingests power.demand from the EIA-930 hourly demand CSV of a region
// (Demand_for_<region>_hourly_-_UTC_time.csv): one row per hour as published.
type Demand struct{}

// Capability implements Adapter.
func (Demand) Capability() *capability.Capability { return capability.PowerDemand }

// Version implements Adapter.
func (Demand) Version() string { return "eia930demand/2" }

// Folders implements Adapter.
func (Demand) Folders() []string { return []string{"eia/eia930"} }

// Known implements Adapter (see demandKnown).
func (Demand) Known() []fetch.Source { return demandKnown() }

// Plan implements Adapter.
func (Demand) Plan(files *ingest.Finder) ([]ingest.Plan, error) { return demandPlan(files) }

// Build implements Adapter.
func (Demand) Build(p ingest.Plan) (*ingest.Build, error) {
	data, _ := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("no demand CSV in the plan")
	}
	d, err := readDemand(data)
	if err != nil {
		return nil, err
	}
	rows := ingest.NewRows(capability.PowerDemand)
	sum := 0.0
	var zone any
	if d.zone != nil {
		zone = d.zone.String()
	}
	for _, h := range d.hours {
		start := h.end.Add(-time.Hour)
		row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: d.name, Sheet: grid.CSVSheetName, Row: h.line, SHA256: data.SHA256}).
			Set("respondent", nullIfEmpty(d.respondent)).
			Set("respondent_name", nullIfEmpty(d.regionName)).
			Set("series_id", nullIfEmpty(d.seriesID)).
			SetCell("period_raw", 1, h.raw).
			Set("hour_ending_utc", h.end.Format(isoHour)).
			Set("utc_date", start.Format("2006-01-02")).
			Set("utc_month", start.Format("2006-01")).
			Set("utc_year", start.Year()).
			Set("local_time_zone", zone).
			SetCell("demand_mwh", 2, h.value).
			Key(fmt.Sprintf("%s:%s:%s", data.SourceID, d.seriesID, h.end.Format(isoHour)))
		if d.zone != nil {
			row.Set("local_date", start.In(d.zone).Format("2006-01-02"))
		}
		if f, ok := h.value.(float64); ok {
			sum += f
		}
	}
	if len(d.hours) == 0 {
		return nil, fmt.Errorf("%s: no hourly values", d.name)
	}
	asOf := latestEnd(d).Format("2006-01-02")
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	return &ingest.Build{
		AsOf: asOf, Rows: facts, Sources: []snapshots.Source{demandSource(data, d)}, Checks: demandGates(d, rows.Len(), sum), Cells: rows.Cells(),
		Ranges:   map[string]snapshots.Range{"demand_mwh": {Min: 0, Max: 1e6}},
		Required: []string{"hour_ending_utc", "utc_date", "source_record_key"},
		Coverage: demandCoverage(d, demandPeriods(d.zone)),
	}, nil
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

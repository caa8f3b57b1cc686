package queue

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
)

const (
	ercotLarge = "Project Details - Large Gen"
	ercotSmall = "Project Details - Small Gen"
)

// ERCOT is ERCOT's monthly GIS report (GIS_Report_<Month><Year>.xlsx).
var ERCOT = &Operator{
	Cap:        capability.QueueERCOT,
	Version:    "queue-ercot/2",
	SourceID:   "ercot_gis_queue",
	Publisher:  "Electric Reliability Council of Texas (ERCOT)",
	URL:        "https://www.ercot.com/misapp/GetReports.do?reportTypeId=15933",
	Folder:     "iso/ercot",
	File:       regexp.MustCompile(`^GIS_Report_.*\.xlsx$`),
	AsOf:       ercotAsOf,
	Hint:       func(string) string { return "" },
	KeyPattern: regexp.MustCompile(`^\d\dINR\d+`),
	Sheets: []Sheet{
		{Name: ercotLarge, Header: 31, HeaderRows: 5, Status: ercotLarge},
		{Name: ercotSmall, Header: 15, HeaderRows: 3, Status: ercotSmall},
		{Name: "Inactive Projects", Header: 8, Status: "Inactive Projects"},
		{Name: "Cancellation Update", Header: 8, Status: "Cancellation Update"},
		{Name: "Commissioning Update", Header: 8},
	},
	Key:         "INR",
	RepeatedIDs: true,
	Fields: map[string][]string{
		"queue_id": {"INR"}, "project_name": {"Project Name"}, "developer": {"Interconnecting Entity"},
		"poi": {"POI Location"}, "county": {"County"}, "study_phase": {"GIM Study Phase"},
		"in_service_date": {"Projected COD"}, "generation_type_raw": {"Fuel"}, "requested_mw": {"Capacity (MW)", "MW **"},
		"withdrawal_date": {"Cancel Date"}, "queue_date": {"Screening Study Started"}, "status_raw": {"Commissioning Category"},
	},
	Required:     []string{"queue_id", "status_raw", "requested_mw"},
	StatusDetail: "ia_signed",
	Statuses: map[string]Status{
		ercotLarge + " / *":   {Norm: "active", Progress: "ia_executed"},
		ercotLarge:            {Norm: "active"},
		ercotSmall + " / *":   {Norm: "active", Progress: "ia_executed"},
		ercotSmall:            {Norm: "active"},
		"Inactive Projects":   {Norm: "suspended"},
		"Cancellation Update": {Norm: "withdrawn"},
		"Commercial Operation Approved by ERCOT*": {Norm: "operational", Progress: "operational"},
		"Energization Approved by ERCOT":          {Norm: "active", Progress: "construction"},
		"Synchronization Approved by ERCOT":       {Norm: "active", Progress: "construction"},
	},
	ProgressField: "study_phase",
	Progress: map[string]string{
		"SS Started, FIS Started, No IA":     "system_impact_study",
		"SS Completed, FIS Started, No IA":   "system_impact_study",
		"SS Completed, FIS Completed, No IA": "ia_pending",
		"SS Completed, FIS Started, IA":      "ia_executed",
		"SS Completed, FIS Completed, IA":    "ia_executed",
		"SS Completed, FIS Not Started, IA":  "ia_executed",
	},
	TypeDetail: "technology",
	Types: map[string]string{
		"SOL": "solar", "WIN": "wind", "GAS": "natural_gas", "OIL": "oil", "OTH": "other", "OTH / BA": "battery_storage",
		"Solar": "solar", "Wind": "wind", "Gas": "natural_gas", "Other": "other",
	},
	DefaultKind: "generation",
}

var ercotPeriod = regexp.MustCompile(`GIM Activity:.*\bto\s+(.+)$`)

// ercotAsOf reads the last day of the GIM activity period on the Contents sheet.
func ercotAsOf(wb *grid.Workbook, name string) (string, error) {
	sh := wb.Sheet("Contents")
	if sh == nil {
		return "", fmt.Errorf("no Contents sheet with the GIM activity period")
	}
	for r := 1; r <= min(30, sh.NumRows()); r++ {
		for _, c := range sh.Row(r) {
			if m := ercotPeriod.FindStringSubmatch(c.Value); m != nil {
				t, err := kit.ParseDate(strings.Join(strings.Fields(m[1]), " "))
				if err != nil {
					return "", fmt.Errorf("sheet Contents row %d: %w", r, err)
				}
				return t.Format("2006-01-02"), nil
			}
		}
	}
	return "", fmt.Errorf("no \"GIM Activity: ... to ...\" cell on the Contents sheet")
}

package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
)

// MISO is MISO's GI Interactive Queue export (GI_Interactive_Queue_YYYY-MM.csv).
var MISO = &Operator{
	Cap:       capability.QueueMISO,
	Version:   "queue-miso/2",
	SourceID:  "miso_queue",
	Publisher: "Midcontinent ISO (MISO)",
	URL:       "https://www.misoenergy.org/planning/resource-utilization/GI_Queue/gi-interactive-queue/",
	Folder:    "iso/miso",
	File:      regexp.MustCompile(`^GI_Interactive_Queue_\d{4}-\d{2}\.csv$`),
	AsOf:      latestDateIn(grid.CSVSheetName, 1, "Withdrawn Date"),
	Sheets:    []Sheet{{Name: grid.CSVSheetName, Header: 1}},
	Key:       "Project #",
	Fields: map[string][]string{
		"queue_id": {"Project #"}, "status_raw": {"Request Status"}, "queue_date": {"Queue Date"},
		"withdrawal_date": {"Withdrawn Date"}, "in_service_date": {"Appl In Service Date"},
		"transmission_owner": {"Transmission Owner"}, "county": {"County"}, "state": {"State"},
		"study_phase": {"Study Phase"}, "poi": {"POI Name"}, "requested_mw": {"Summer MW"},
		"requested_mw_summer": {"Summer MW"}, "requested_mw_winter": {"Winter MW"},
		"generation_type_raw": {"Fuel"}, "ia_status_raw": {"Post GIA Status"},
	},
	Required:     []string{"queue_id", "status_raw", "requested_mw"},
	StatusDetail: "ia_status_raw",
	Statuses: map[string]Status{
		"Active":                    {Norm: "active"},
		"Withdrawn":                 {Norm: "withdrawn"},
		"Done":                      {Norm: "active", Progress: "ia_executed"},
		"Done / Not Started":        {Norm: "active", Progress: "ia_executed"},
		"Done / Under Construction": {Norm: "active", Progress: "construction"},
		"Done / In Service":         {Norm: "operational", Progress: "operational"},
		"Done / In Service (with Provisional GIA)": {Norm: "operational", Progress: "operational"},
		"Done / Withdrawn":                         {Norm: "withdrawn"},
		// The 2025-05 export's requests of the new cycle, under review before their study.
		"Confirmed":  {Norm: "active", Progress: "not_started"},
		"In Review":  {Norm: "active", Progress: "not_started"},
		"Correction": {Norm: "active", Progress: "not_started"},
	},
	ProgressField: "study_phase",
	Progress: map[string]string{
		"Study Not Started": "not_started", "Phase 1": "cluster_study", "Phase 2": "cluster_study", "Phase 3": "cluster_study",
		"Post-Phase 3": "ia_pending", "GIA": "ia_pending",
	},
	Types: map[string]string{
		"Solar": "solar", "Wind": "wind", "Battery Storage": "battery_storage", "Hybrid": "hybrid", "Gas": "natural_gas",
		"Combined Cycle": "natural_gas", "Diesel": "oil", "Hydro": "hydro", "Waste Heat Recovery": "waste_heat",
		"High Voltage DC": "transmission", "Coal": "coal", "Nuclear": "nuclear",
	},
	Skip:         map[string]string{"AA1234": "MISO's test row (status \"fish mango watermelon\"), not a project"},
	Placeholders: map[string]string{"MSG KEEP": "status Active with no queue date, place, fuel, facility or MW: MISO's placeholder row"},
	NoID:         []string{"N/A"},
	StateFixes: []StateFix{{County: "Desha", Published: "AK", State: "AR",
		Why: "Desha County is in Arkansas; AK is Alaska, where MISO has no territory"}},
	DefaultKind: "generation",
}

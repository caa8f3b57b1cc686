package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
)

// ISONE is ISO New England's queue export (QueueReport_<date>.xlsx).
var ISONE = &Operator{
	Cap:       capability.QueueISONE,
	Version:   "queue-isone/2",
	SourceID:  "isone_queue",
	Publisher: "ISO New England",
	URL:       "https://irtt.iso-ne.com/reports/external",
	Folder:    "iso/isone",
	File:      regexp.MustCompile(`^QueueReport_.*\.xlsx$`),
	AsOf:      printedDate("Queue", regexp.MustCompile(`As of:`)),
	Sheets:    []Sheet{{Name: "Queue", Header: 5}},
	Key:       "Position",
	Fields: map[string][]string{
		"queue_id": {"Position"}, "queue_date": {"Requested"}, "project_name": {"Alternative Name"},
		"generation_type_raw": {"Fuel Type"}, "requested_mw": {"Net MW"}, "requested_mw_net": {"Net MW"},
		"requested_mw_summer": {"Summer MW"}, "requested_mw_winter": {"Winter MW"}, "county": {"County"}, "state": {"State"},
		"in_service_date": {"Op Date"}, "withdrawal_date": {"W/ D Date"}, "poi": {"Interconnection Location"},
		"ia_status_raw": {"IA"}, "status_raw": {"Project Status"}, "transmission_owner": {"TO Report"},
	},
	Required:     []string{"queue_id", "status_raw", "requested_mw"},
	RepeatedIDs:  true,
	StatusDetail: "withdrawal_date",
	Statuses: map[string]Status{
		"Under Study":          {Norm: "active"},
		"Under Construction":   {Norm: "active", Progress: "construction"},
		"Partially In Service": {Norm: "active", Progress: "construction"},
		"In Service":           {Norm: "operational", Progress: "operational"},
		"Suspended":            {Norm: "suspended"},
		BlankStatus + " / *":   {Norm: "withdrawn"},
		BlankStatus:            {Norm: "active", Inferred: true},
	},
	ProgressField: "ia_status_raw",
	Progress: map[string]string{
		"Executed": "ia_executed", "In Progress": "ia_pending", "Not Started": "ia_pending", "IA Filed Unexecuted": "ia_pending",
	},
	Types: map[string]string{
		"SUN": "solar", "BAT": "battery_storage", "WND": "wind", "NG": "natural_gas", "WAT": "hydro", "WDS": "biomass",
		"DFO": "oil", "LFG": "biomass", "NUC": "nuclear", "BIT": "coal", "FC": "fuel_cell", "KER": "oil", "JF": "oil",
		"MSW": "other", "SUN BAT": "hybrid", "WND BAT": "hybrid", "WAT BAT": "hybrid", "NG SUN BAT": "hybrid",
		"SUN WAT": "hybrid", "KER BAT": "hybrid", "NG WDS": "hybrid", "DFO NG": "natural_gas", "KER NG": "natural_gas",
		"DFO KER NG": "natural_gas", "NG WO": "natural_gas", "JF KER NG": "natural_gas", "NG OTH": "natural_gas",
		"NG RFO": "natural_gas", "JF NG": "natural_gas", "BLQ WDS": "biomass", "BLQ DFO KER WDS": "biomass",
		"DFO WDS": "biomass", "DFO SUB": "coal", "BIT RFO": "coal", "DFO KER": "oil", "JF KER": "oil",
	},
	Blank:     []string{"N/A"},
	KindField: "type",
	Kinds:     map[string]string{"G": "generation", "ETU": "transmission", "TS": "transmission"},
}

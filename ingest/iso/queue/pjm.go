package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
)

const pjmPublisher = "PJM Interconnection"

// pjmTypes maps PJM's Fuel values (both exports); combinations are hybrid.
var pjmTypes = map[string]string{
	"Solar": "solar", "Natural Gas": "natural_gas", "Storage": "battery_storage", "Wind": "wind", "Methane": "biomass",
	"Coal": "coal", "Hydro": "hydro", "Offshore Wind": "offshore_wind", "Nuclear": "nuclear", "Biomass": "biomass",
	"Oil": "oil", "Other": "other", "Diesel": "oil", "Wood": "biomass", "Not Specified": "",
	"Solar; Storage": "hybrid", "Storage; Solar": "hybrid", "Wind; Storage": "hybrid", "Diesel; Methane": "hybrid",
	"Natural Gas; Other; Storage; Solar": "hybrid", "Natural Gas; Other": "hybrid", "Solar; Wind": "hybrid",
	"Natural Gas; Oil": "hybrid", "Solar; Biomass": "hybrid", "Methane; Solar": "hybrid", "Natural Gas; Storage": "hybrid",
	"Natural Gas; Diesel; Other; Storage": "hybrid", "Natural Gas; Solar; Other": "hybrid", "Wind; Solar": "hybrid",
	"Diesel; Solar": "hybrid", "Storage; Wind": "hybrid", "Solar; Storage; Wind": "hybrid",
	"Solar,Storage,Hybrid": "hybrid", "Solar,Battery,Hybrid": "hybrid", "Wind,Solar,Hybrid": "hybrid", "Solar,Wind,Hybrid": "hybrid",
}

// pjmKinds maps PJM's Project Type (both exports) to the request kind.
var pjmKinds = map[string]string{"Generation Interconnection": "generation", "Merchant Transmission": "transmission"}

// PJM is PJM's New Services Queue export (PlanningQueues_YYYY-MM.xlsx).
var PJM = &Operator{
	Cap:       capability.QueuePJM,
	Version:   "queue-pjm/2",
	SourceID:  "pjm_queue",
	Publisher: pjmPublisher,
	URL:       "https://www.pjm.com/planning/service-requests/serial-service-request-status",
	Folder:    "iso/pjm",
	File:      regexp.MustCompile(`^PlanningQueues(_\d{4}-\d{2})?\.xlsx$`),
	AsOf:      latestDateIn("Data", 1, "Withdrawal Date"),
	Sheets:    []Sheet{{Name: "Data", Header: 1}},
	Key:       "Project ID",
	Fields: map[string][]string{
		"queue_id": {"Project ID"}, "project_name": {"Commercial Name"}, "state": {"State"}, "county": {"County"},
		"status_raw": {"Status"}, "transmission_owner": {"Transmission Owner"}, "poi": {"Name"},
		"requested_mw": {"MW Energy"}, "generation_type_raw": {"Fuel"}, "queue_date": {"Submitted Date"},
		"withdrawal_date": {"Withdrawal Date"}, "in_service_date": {"Commercial Operation Milestone"},
		"ia_status_raw": {"Interim/Interconnection Service/Generation Interconnection Agreement Status"},
	},
	Required: []string{"queue_id", "status_raw", "requested_mw"},
	Statuses: map[string]Status{
		"Active":                      {Norm: "active"},
		"Engineering and Procurement": {Norm: "active", Progress: "ia_executed"},
		"Under Construction":          {Norm: "active", Progress: "construction"},
		"Partially in Service - Under Construction": {Norm: "active", Progress: "construction"},
		"Suspended":   {Norm: "suspended", Progress: "ia_executed"},
		"In Service":  {Norm: "operational", Progress: "operational"},
		"Withdrawn":   {Norm: "withdrawn"},
		"Canceled":    {Norm: "withdrawn"},
		"Deactivated": {Norm: "withdrawn"},
	},
	Types:     pjmTypes,
	Blank:     []string{"N/A"},
	KindField: "project_type",
	Kinds:     pjmKinds,
	MovedTo:   regexp.MustCompile(`(?i)\s-\s*moved to\s+TC\d+\s*$`),
}

// PJMCycle is PJM's cycle projects export (CycleProjects-All.xlsx).
var PJMCycle = &Operator{
	Cap:       capability.QueuePJMCycle,
	Version:   "queue-pjm-cycle/2",
	SourceID:  "pjm_cycle_queue",
	Publisher: pjmPublisher,
	URL:       "https://www.pjm.com/planning/service-requests/cycle-service-request-status",
	Folder:    "iso/pjm",
	File:      regexp.MustCompile(`^CycleProjects-All.*\.xlsx$`),
	AsOf:      latestDateIn("Data", 1, "Last Updated"),
	Sheets:    []Sheet{{Name: "Data", Header: 1}},
	Key:       "Project ID",
	Fields: map[string][]string{
		"queue_id": {"Project ID"}, "project_name": {"Commercial Name"}, "developer": {"Developer"}, "state": {"State"},
		"county": {"County"}, "status_raw": {"Status"}, "transmission_owner": {"Transmission Owner"}, "poi": {"Name"},
		"requested_mw": {"MW Energy"}, "generation_type_raw": {"Fuel"}, "queue_date": {"Submitted Date"},
		"withdrawal_date": {"Withdrawn Date"}, "in_service_date": {"Requested In-Service Date"}, "study_phase": {"Stage"},
		"ia_status_raw": {"GIA/WMPA Report Status"},
	},
	Required: []string{"queue_id", "status_raw", "requested_mw"},
	Statuses: map[string]Status{
		"Active":    {Norm: "active"},
		"EP":        {Norm: "active", Progress: "ia_executed"},
		"Withdrawn": {Norm: "withdrawn"},
	},
	ProgressField: "study_phase",
	Progress: map[string]string{
		"APPLICATION REVIEW": "not_started", "APPLICATION PHASE": "not_started", "PHASE 1": "cluster_study",
		"PHASE 2": "cluster_study", "PHASE 3": "cluster_study", "DP1": "cluster_study", "DP2": "cluster_study",
		"FINAL AGREEMENT": "ia_pending",
	},
	Types:     pjmTypes,
	Blank:     []string{"N/A"},
	KindField: "project_type",
	Kinds:     pjmKinds,
}

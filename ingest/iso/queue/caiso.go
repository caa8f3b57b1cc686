package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/fetch"
)

const (
	caisoPublisher = "California ISO"
	caisoURL       = "https://www.caiso.com/PublishedDocuments/PublicQueueReport.xlsx"
)

// caisoTypes maps CAISO's fuels (Public Queue Report Fuel-n, Cluster 15 Generation/Fuel n).
var caisoTypes = map[string]string{
	"Battery": "battery_storage", "Solar": "solar", "Wind Turbine": "wind", "Natural Gas": "natural_gas",
	"Pumped-Storage hydro": "pumped_storage", "Geothermal": "geothermal", "Water": "hydro", "Gravity via Rail": "other",
	"Biofuel": "biomass", "Other": "other", "Nuclear": "nuclear", "Flywheel": "other",
	"Photovoltaic/Solar": "solar", "Storage/Battery": "battery_storage", "Wind Turbine/Wind": "wind",
	"Storage/Compressed Air": "other", "Hydro/Pumped-Storage Hydro": "pumped_storage", "Biomass/Biofuel": "biomass",
	"Combustion Turbine/Hydrogen": "other", "Storage/Solar": "hybrid",
}

// CAISO is CAISO's Public Queue Report (publicqueuereport-MMDDYYYY.xlsx).
var CAISO = &Operator{
	Cap:       capability.QueueCAISO,
	Version:   "queue-caiso/2",
	SourceID:  "caiso_queue",
	Publisher: caisoPublisher,
	URL:       caisoURL,
	Folder:    "iso/caiso",
	File:      regexp.MustCompile(`(?i)^publicqueuereport.*\.xlsx$`),
	AsOf:      printedDate("Grid GenerationQueue", regexp.MustCompile(`Report Run Date:`)),
	Sheets: []Sheet{
		{Name: "Grid GenerationQueue", Header: 4},
		{Name: "Completed Generation Projects", Header: 4},
		{Name: "Withdrawn Generation Projects", Header: 4},
	},
	Key: "Queue Position",
	Fields: map[string][]string{
		"queue_id": {"Queue Position"}, "project_name": {"Project Name", "Project Name - Confidential"},
		"status_raw": {"Application Status"}, "study_phase": {"Study Process"}, "generation_type_raw": {"Fuel-1"},
		"requested_mw": {"Net MWs to Grid"}, "requested_mw_net": {"Net MWs to Grid"}, "county": {"County"}, "state": {"State"},
		"transmission_owner": {"Utility"}, "poi": {"Station or Transmission Line"}, "queue_date": {"Queue Date"},
		"in_service_date": {"Current On-line Date", "Actual On-line Date"}, "withdrawal_date": {"Withdrawn Date"},
		"ia_status_raw": {"Interconnection Agreement Status"},
	},
	Required:     []string{"queue_id", "status_raw", "requested_mw"},
	StatusDetail: "suspension_status",
	Statuses: map[string]Status{
		"ACTIVE":             {Norm: "active"},
		"ACTIVE / Suspended": {Norm: "suspended"},
		"COMPLETED":          {Norm: "operational", Progress: "operational"},
		"WITHDRAWN":          {Norm: "withdrawn"},
	},
	ProgressField: "ia_status_raw",
	Progress: map[string]string{
		"Executed": "ia_executed", "In Progress": "ia_pending", "Filed Unexecuted": "ia_pending",
		"Released for Execution": "ia_pending",
	},
	Types:      caisoTypes,
	MoreTypes:  []string{"fuel_2", "fuel_3"},
	Companions: []*Operator{CAISOCluster15},
	Hint:       mmddyyyy,
	// The report's own address (the dated names are those of the files kept).
	Download: caisoURL, DownloadName: "PublicQueueReport.xlsx", DownloadKind: fetch.XLSX,
	DefaultKind: "generation",
}

var mmddyyyyName = regexp.MustCompile(`(\d{2})(\d{2})(\d{4})`)

// mmddyyyy reads the date of a name such as publicqueuereport-08032026.xlsx.
func mmddyyyy(name string) string {
	m := mmddyyyyName.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return m[3] + "-" + m[1] + "-" + m[2]
}

// CAISOCluster15 is CAISO's Cluster 15 interconnection request list, a companion of the
// Public Queue Report: it joins the snapshot of the latest report.
var CAISOCluster15 = &Operator{
	Cap:       capability.QueueCAISO,
	Version:   "queue-caiso-c15/2",
	SourceID:  "caiso_cluster15",
	Publisher: caisoPublisher,
	URL:       "https://www.caiso.com/library/interconnection-queue-reports",
	Folder:    "iso/caiso",
	File:      regexp.MustCompile(`(?i)^cluster-15-interconnection-requests.*\.xlsx$`),
	Sheets: []Sheet{
		{Name: "Cluster 15 ", Header: 1, Status: "Cluster 15"},
		{Name: "Withdrawn", Header: 1, Status: "Withdrawn"},
	},
	Key: "Queue Number",
	Fields: map[string][]string{
		"queue_id": {"Queue Number"}, "project_name": {"Project Name"}, "generation_type_raw": {"Generation/Fuel 1"},
		"requested_mw": {"NET MW POI"}, "requested_mw_net": {"NET MW POI"}, "county": {"PROJECT COUNTY"},
		"state": {"Project State"}, "transmission_owner": {"PTO"}, "poi": {"POI"}, "queue_date": {"Queue Date"},
		"in_service_date": {"Requested COD"}, "withdrawal_date": {"Withdrawal Date"},
	},
	Required: []string{"queue_id", "requested_mw"},
	Statuses: map[string]Status{
		"Cluster 15": {Norm: "active", Progress: "cluster_study"},
		"Withdrawn":  {Norm: "withdrawn"},
	},
	Types:       caisoTypes,
	MoreTypes:   []string{"generation_fuel_2", "generation_fuel_3"},
	Blank:       []string{"N/A"},
	DefaultKind: "generation",
}

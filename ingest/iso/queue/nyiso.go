package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/fetch"
)

// nyisoStatus maps NYISO's S codes (the key under every sheet).
var nyisoStatus = map[string]Status{
	"0": {Norm: "withdrawn"},
	"1": {Norm: "active", Progress: "not_started"}, "P": {Norm: "active", Progress: "not_started"},
	"2": {Norm: "active", Progress: "feasibility_study"}, "3": {Norm: "active", Progress: "feasibility_study"},
	"3A": {Norm: "active", Progress: "feasibility_study"},
	"4":  {Norm: "active", Progress: "system_impact_study"}, "5": {Norm: "active", Progress: "system_impact_study"},
	"5P": {Norm: "active", Progress: "system_impact_study"}, "6": {Norm: "active", Progress: "system_impact_study"},
	"7": {Norm: "active", Progress: "facility_study"}, "8": {Norm: "active", Progress: "facility_study"},
	"9": {Norm: "active", Progress: "facility_study"}, "9, 10": {Norm: "active", Progress: "facility_study"},
	"10": {Norm: "active", Progress: "ia_pending"}, "11": {Norm: "active", Progress: "ia_executed"},
	"12": {Norm: "active", Progress: "construction"}, "13": {Norm: "active", Progress: "construction"},
	"14": {Norm: "operational", Progress: "operational"}, "15": {Norm: "active", Progress: "construction"},
	"1C": {Norm: "active", Progress: "not_started"}, "2C": {Norm: "active", Progress: "cluster_study"},
	"3C": {Norm: "active", Progress: "cluster_study"}, "4C": {Norm: "active", Progress: "cluster_study"},
	"5C": {Norm: "active", Progress: "cluster_study"}, "6C": {Norm: "active", Progress: "cluster_study"},
	"7C": {Norm: "active", Progress: "cluster_study"}, "10C": {Norm: "active", Progress: "ia_pending"},
	"11C": {Norm: "active", Progress: "ia_executed"}, "12C": {Norm: "active", Progress: "construction"},
	"13C": {Norm: "active", Progress: "construction"}, "14C": {Norm: "operational", Progress: "operational"},
	"15C": {Norm: "active", Progress: "construction"},
	// Mixed codes of the 2020-11 In Service sheet: the later code (14, in service) wins.
	"11,14": {Norm: "operational", Progress: "operational"}, "12,14": {Norm: "operational", Progress: "operational"},
}

// nyisoTypes maps NYISO's Type/ Fuel codes.
var nyisoTypes = map[string]string{
	"S": "solar", "Solar": "solar", "W": "wind", "OSW": "offshore_wind", "ES": "battery_storage", "NG": "natural_gas",
	"AC": "transmission", "DC": "transmission", "DC/AC": "transmission", "L": "load", "CR": "hybrid", "CW": "hybrid",
	"CT": "natural_gas", "CC": "natural_gas", "CS": "natural_gas", "ST": "other", "D": "natural_gas",
	"CC-NG": "natural_gas", "CC-D": "natural_gas", "CT-NG": "natural_gas", "CT-D": "natural_gas", "CS-NG": "natural_gas",
	"ST-NG": "natural_gas", "H": "hydro", "PS": "pumped_storage", "M": "biomass", "SW": "other", "Wo": "biomass",
	"F": "other", "O": "oil", "C": "coal", "NU": "nuclear", "FC": "fuel_cell", "HSR": "other",
}

var monthYear = regexp.MustCompile(`^(\d{1,2})[-/](\d{4})$`)

// nyisoDate reads NYISO's proposed dates: MM-YYYY or MM/YYYY is the first of the month;
// any other text (I/S, seasons, quarters) has no date.
func nyisoDate(s string) (string, bool) {
	if m := monthYear.FindStringSubmatch(s); m != nil {
		mm := m[1]
		if len(mm) == 1 {
			mm = "0" + mm
		}
		if mm >= "01" && mm <= "12" {
			return m[2] + "-" + mm + "-01", true
		}
	}
	return "", true
}

// NYISO is NYISO's Interconnection Queue workbook (NYISO-Interconnection-Queue_YYYY-MM.xlsx).
var NYISO = &Operator{
	Cap:       capability.QueueNYISO,
	Version:   "queue-nyiso/2",
	SourceID:  "nyiso_queue",
	Publisher: "New York ISO (NYISO)",
	URL:       "https://www.nyiso.com/documents/20142/1407078/NYISO-Interconnection-Queue.xlsx",
	Folder:    "iso/nyiso",
	File:      regexp.MustCompile(`^NYISO-Interconnection-Queue.*\.xlsx$`),
	Download:  "https://www.nyiso.com/documents/20142/1407078/NYISO-Interconnection-Queue.xlsx", DownloadName: "NYISO-Interconnection-Queue.xlsx",
	DownloadKind: fetch.XLSX,
	AsOf:         latestDateIn("Interconnection Queue", 1, "Last Updated Date", "Last Update"),
	Sheets: []Sheet{
		{Name: "Interconnection Queue", Header: 1},
		{Name: " Cluster Projects", Header: 1, Optional: true},
		{Name: "Withdrawn", Header: 1},
		{Name: "Cluster Projects-Withdrawn", Header: 1, Optional: true},
		{Name: "In Service", Header: 1, HeaderRows: 2},
	},
	Key: "Queue Pos.",
	Fields: map[string][]string{
		"queue_id":            {"Queue Pos."},
		"developer":           {"Developer/Interconnection Customer", "Interconnection Customer Name", "Owner/Developer"},
		"project_name":        {"Project Name"},
		"queue_date":          {"Date of IR"},
		"requested_mw":        {"SP (MW)"},
		"requested_mw_summer": {"SP (MW)"},
		"requested_mw_winter": {"WP (MW)"},
		"generation_type_raw": {"Type/ Fuel"},
		"county":              {"County", "Location County"},
		"state":               {"State"},
		"poi":                 {"Points of Interconnection", "Interconnection Point"},
		"transmission_owner":  {"Utility"},
		"status_raw":          {"S"},
		"in_service_date":     {"Proposed In-Service/Initial Backfeed Date", "Proposed In-Service"},
	},
	Required:      []string{"queue_id", "status_raw", "requested_mw"},
	Statuses:      nyisoStatus,
	Types:         nyisoTypes,
	Blank:         []string{"N/A", "TBD"},
	DateFallback:  nyisoDate,
	DefaultKind:   "generation",
	KindNeedsType: true,
}

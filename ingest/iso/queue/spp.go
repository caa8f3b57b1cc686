package queue

import (
	"regexp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/fetch"
)

// sppCSVURL is SPP's own address of the GI Active Request list, a CSV.
const sppCSVURL = "https://opsportal.spp.org/Studies/GenerateActiveCsv"

// SPP is SPP's GI Active Request list, as a third party's xlsx re-save of SPP's CSV; its form
// SPPCSV is the CSV as SPP publishes it, which ingest --fetch downloads.
var SPP = &Operator{
	Cap:         capability.QueueSPP,
	Version:     "queue-spp/2",
	SourceID:    "spp_queue",
	Publisher:   "Southwest Power Pool (SPP)",
	URL:         "https://github.com/selormdzakpasu/gen_interconnection_queues/blob/40114adcfc2a97eceb89a63c9e7c320d5af52c17/Queues/SPP%20GI_ActiveRequest.xlsx",
	Derived:     true,
	OriginalURL: sppCSVURL,
	Folder:      "iso/spp",
	File:        regexp.MustCompile(`^GI_ActiveRequest.*\.xlsx$`),
	AsOf:        printedDate("SPP GI_ActiveRequest", regexp.MustCompile(`^Last Updated On`)),
	Sheets:      []Sheet{{Name: "SPP GI_ActiveRequest", Header: 2}},
	Key:         "Generation Interconnection Number",
	Fields: map[string][]string{
		"queue_id": {"Generation Interconnection Number"}, "study_phase": {"Current Cluster"},
		"county": {"Nearest Town or County"}, "state": {"State"}, "transmission_owner": {"TO at POI"},
		"in_service_date": {"In-Service Date"}, "requested_mw": {"Capacity"}, "requested_mw_summer": {"MAX Summer MW"},
		"requested_mw_winter": {"MAX Winter MW"}, "generation_type_raw": {"Generation Type"}, "poi": {"Substation or Line"},
		"queue_date": {"Request Received"}, "withdrawal_date": {"Date Withdrawn"}, "status_raw": {"Status"},
	},
	Required: []string{"queue_id", "status_raw", "requested_mw"},
	Statuses: map[string]Status{
		"DISIS STAGE":                            {Norm: "active", Progress: "cluster_study"},
		"FACILITY STUDY STAGE":                   {Norm: "active", Progress: "facility_study"},
		"IA PENDING":                             {Norm: "active", Progress: "ia_pending"},
		"IA FULLY EXECUTED/ON SCHEDULE":          {Norm: "active", Progress: "ia_executed"},
		"IA FULLY EXECUTED/ON SUSPENSION":        {Norm: "suspended", Progress: "ia_executed"},
		"IA FULLY EXECUTED/COMMERCIAL OPERATION": {Norm: "operational", Progress: "operational"},
		"None":                                   {Norm: "active"},
	},
	TypeDetail: "fuel_type",
	Types: map[string]string{
		"Wind": "wind", "Solar": "solar", "Battery/Storage": "battery_storage", "Hybrid": "hybrid", "Hydro": "hydro",
		"Thermal": "other", "Thermal / Coal": "coal", "Thermal / Nuclear": "nuclear", "Thermal / Steam": "other",
		"Thermal / Gas": "natural_gas", "Thermal / CT": "natural_gas", "Thermal / CTG": "natural_gas",
		"Thermal / Gas Turbine": "natural_gas", "Thermal / Reciprocating Engine": "natural_gas", "Thermal / RICE": "natural_gas",
		"Thermal / Combined Cycle": "natural_gas", "Thermal / CC": "natural_gas", "Thermal / NG/CT": "natural_gas",
		"Thermal / CT/ST": "natural_gas", "Thermal / Diesel/Gas": "natural_gas", "Thermal / Steam Turbine": "other",
	},
	DefaultKind: "generation",
}

// SPPCSV is SPP's GI Active Request list as SPP publishes it (GI_ActiveRequest.csv from the
// operator's address, not derived): the same table as the re-saved workbook, a "Last Updated
// On" row above the header, read with SPP's tables.
var SPPCSV = sppCSV()

func sppCSV() *Operator {
	o := *SPP
	o.Version = "queue-spp-csv/2"
	o.URL, o.Derived, o.OriginalURL = sppCSVURL, false, ""
	o.File = regexp.MustCompile(`^GI_ActiveRequest.*\.csv$`)
	o.AsOf = printedDate(grid.CSVSheetName, regexp.MustCompile(`^Last Updated On`))
	o.Sheets = []Sheet{{Name: grid.CSVSheetName, Header: 2}}
	o.Download, o.DownloadName, o.DownloadKind = sppCSVURL, "GI_ActiveRequest.csv", fetch.CSV
	return &o
}

func init() { SPP.Forms = []*Operator{SPPCSV} }

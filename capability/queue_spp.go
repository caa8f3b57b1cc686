package capability

// QueueSPP is power.interconnection_queue_spp: SPP's active generation interconnection
// requests, from a re-save of SPP's CSV as xlsx (derived).
var QueueSPP = queueCapability(queueSpec{
	id:          "power.interconnection_queue_spp",
	title:       "Interconnection queue: SPP (active requests)",
	publisher:   "Southwest Power Pool (SPP)",
	description: "Every active generation interconnection request of SPP's GI Active Request list, with the normalized queue fields shared by every operator's queue and each published column under its own header name. DERIVED: SPP publishes the list as a CSV (https://opsportal.spp.org/Studies/GenerateActiveCsv); the file ingested, hashed and cited is a third party's re-save of that CSV as xlsx (values unchanged as far as checked), and every citation says so (derived, with SPP's address as the original).",
	asOfRule:    "the Last Updated On date printed in row 1 (GI_ActiveRequest_2025-01-22_resaved.xlsx gives 2025-01-22); each file is its own snapshot",
	cadence:     Irregular,
	requestedMW: "Capacity",
	summerMW:    "MAX Summer MW",
	winterMW:    "MAX Winter MW",
	kindRule:    "SPP's GI list holds generation interconnection requests only: generation.",
	columns: []QueueColumn{
		{Header: "Generation Interconnection Number"}, {Header: "IFS Queue Number"}, {Header: "Current Cluster"}, {Header: "Cluster Group"}, {Header: "Nearest Town or County"}, {Header: "State"}, {Header: "TO at POI"}, {Header: "In-Service Date", Type: Date}, {Header: "Commercial Operation Date", Type: Date}, {Header: "Cessation Date", Type: Date}, {Header: "Replacement Generator Commercial Op Date", Type: Date}, {Header: "Capacity", Type: Number}, {Header: "MAX Summer MW", Type: Number}, {Header: "MAX Winter MW", Type: Number}, {Header: "Service Type"}, {Header: "Generation Type"}, {Header: "Fuel Type"}, {Header: "Substation or Line"}, {Header: "Request Received", Type: Date}, {Header: "Date Withdrawn"}, {Header: "Status"}, {Header: "Cause of Delay"},
	},
	rules: []string{
		"The file is derived: a re-save of SPP's GI_ActiveRequest.csv as xlsx by a third party; citations carry derived: true and SPP's own address as the original. The inactive and withdrawn list, a separate SPP file, is not ingested: every request here is on SPP's active list.",
		"Statuses as SPP publishes them: DISIS STAGE (cluster study), FACILITY STUDY STAGE, IA PENDING and IA FULLY EXECUTED/ON SCHEDULE are active; IA FULLY EXECUTED/ON SUSPENSION is suspended; IA FULLY EXECUTED/COMMERCIAL OPERATION is operational; the literal status None on the active list is active.",
		"Capacity is requested_mw; MAX Summer MW and MAX Winter MW are the summer and winter fields. Thermal requests take their type from Fuel Type (gas turbines and engines natural gas, Coal coal, Nuclear nuclear; no fuel: other).",
		"The header's leading space in \" Nearest Town or County\" is folded: the column is nearest_town_or_county.",
	},
})

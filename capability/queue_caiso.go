package capability

// QueueCAISO is power.interconnection_queue_caiso: CAISO's public queue report (active,
// completed and withdrawn sheets) and its Cluster 15 request list.
var QueueCAISO = queueCapability(queueSpec{
	id:          "power.interconnection_queue_caiso",
	title:       "Interconnection queue: CAISO",
	publisher:   "California Independent System Operator (CAISO)",
	description: "Every project of CAISO's Public Queue Report (sheets Grid GenerationQueue, Completed Generation Projects and Withdrawn Generation Projects) and of its Cluster 15 interconnection request list (sheets Cluster 15 and Withdrawn), with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "the Report Run Date printed in row 1 of the Public Queue Report (publicqueuereport-08032026.xlsx gives 2026-08-03); each report is its own snapshot. The Cluster 15 list prints no date (its latest Withdrawal Date is 2026-07-14): it joins the snapshot of the latest report",
	cadence:     Irregular,
	requestedMW: "Net MWs to Grid (Cluster 15: NET MW POI)",
	netMW:       "Net MWs to Grid (Cluster 15: NET MW POI)",
	kindRule:    "CAISO's report and Cluster 15 list are of generation projects only: generation.",
	columns: []QueueColumn{
		{Header: "Project Name"}, {Header: "Queue Position"}, {Header: "Interconnection Request Receive Date", Type: Date}, {Header: "Queue Date", Type: Date}, {Header: "Application Status"}, {Header: "Study Process"}, {Header: "Type-1"}, {Header: "Type-2"}, {Header: "Type-3"}, {Header: "Fuel-1"}, {Header: "Fuel-2"}, {Header: "Fuel-3"}, {Header: "MW-1", Type: Number}, {Header: "MW-2", Type: Number}, {Header: "MW-3", Type: Number}, {Header: "Net MWs to Grid", Type: Number}, {Header: "Full Capacity, Partial or Energy Only (FC/P/EO)"}, {Header: "TPD Allocation Percentage"}, {Header: "Off-Peak Deliverability and Economic Only"}, {Header: "TPD Allocation Group"}, {Header: "County"}, {Header: "State"}, {Header: "Utility"}, {Header: "PTO Study Region"}, {Header: "Station or Transmission Line"}, {Header: "Proposed On-line Date (as filed with IR)", Type: Date}, {Header: "Current On-line Date", Type: Date}, {Header: "Suspension Status"}, {Header: "Feasibility Study or Supplemental Review"}, {Header: "System Impact Study or Phase I Cluster Study"}, {Header: "Facilities Study (FAS) or Phase II Cluster Study"}, {Header: "Optional Study (OS)"}, {Header: "Interconnection Agreement Status"}, {Header: "Actual On-line Date", Type: Date}, {Header: "Project Name - Confidential"}, {Header: "Withdrawn Date", Type: Date}, {Header: "Reason for Withdrawal"},
		{Header: "Queue Number"}, {Header: "Project Number"}, {Header: "Generation/Fuel 1"}, {Header: "NET MW 1", Type: Number}, {Header: "Generation/Fuel 2"}, {Header: "NET MW 2", Type: Number}, {Header: "Generation/Fuel 3"}, {Header: "NET MW 3", Type: Number}, {Header: "NET MW POI", Type: Number}, {Header: "PROJECT COUNTY"}, {Header: "Project State"}, {Header: "Study Area"}, {Header: "PTO"}, {Header: "POI"}, {Header: "Voltage kV", Type: Number}, {Header: "Requested COD", Type: Date}, {Header: "Application Date", Type: Date}, {Header: "Service Type"}, {Header: "Withdrawal Date", Type: Date},
	},
	rules: []string{
		"Every sheet is read by header name: the withdrawn sheets have other columns than the active one (Withdrawn Date and Reason for Withdrawal added, TPD and suspension columns absent, the project name confidential), and the Cluster 15 list has its own columns. A column absent from a sheet is null on its rows.",
		"Statuses: ACTIVE is active (suspended where Suspension Status says Suspended), COMPLETED operational, WITHDRAWN withdrawn; Cluster 15 requests are active in cluster study on sheet Cluster 15 and withdrawn on sheet Withdrawn.",
		"generation_type_raw is the first fuel (Fuel-1, Generation/Fuel 1); a project with several distinct fuels is hybrid. CAISO publishes net MW to the grid only: requested_mw and requested_mw_net are Net MWs to Grid (NET MW POI in the Cluster 15 list); MW-1..3 and NET MW 1..3 are their own columns.",
		"The Cluster 15 requests are not in any Public Queue Report (the 2026-08-03 report's latest cluster is C14); the Cluster 15 list joins the snapshot of the latest report, cited to its own file, on its own sheets (Cluster 15, Withdrawn).",
		"Dates are calendar dates of CAISO's Excel date-times (time parts of 07:00 or 08:00 dropped).",
	},
})

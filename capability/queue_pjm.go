package capability

// QueuePJM is power.interconnection_queue_pjm: PJM's New Services Queue (serial queues up to
// AJ1), one row per project of the PlanningQueues.xlsx export.
var QueuePJM = queueCapability(queueSpec{
	id:          "power.interconnection_queue_pjm",
	title:       "Interconnection queue: PJM New Services Queue",
	publisher:   "PJM Interconnection",
	description: "Every project of PJM's New Services Queue export (PlanningQueues.xlsx, sheet Data: serial queues A through AJ1), with the normalized queue fields shared by every operator's queue and each published column under its own header name. The Transition Cycle projects are power.interconnection_queue_pjm_cycle.",
	asOfRule:    "PJM prints no report date in the export: as_of is the latest Withdrawal Date in the file (PlanningQueues_2025-01.xlsx gives the date of its last recorded withdrawal); each file is its own snapshot",
	cadence:     Irregular,
	requestedMW: "MW Energy",
	kindRule:    "From the published Project Type: Generation Interconnection is generation (every request of this export); a Project Type no table knows rejects the snapshot.",
	fields: []Field{{Name: "moved_to_cycle", Type: Boolean, Filter: true,
		Description: "true on a serial-queue row PJM marks as moved to a transition cycle (a queue id such as \"AE1-070 - moved to TC1\"): the project is in power.interconnection_queue_pjm_cycle too, under the id before \" - moved to\"; false otherwise"}},
	flags: []Flag{{Field: "moved_to_cycle", Value: "true", Note: "counted_in_cycle_queue", Sum: "requested_mw",
		Rows:   "are serial-queue projects PJM marks as moved to a transition cycle (queue ids such as \"AE1-070 - moved to TC1\"): the same projects are in power.interconnection_queue_pjm_cycle, under the id before \" - moved to\", and are counted there too",
		Advice: "an answer over both PJM queues counts them twice: filter moved_to_cycle to false to count each project once (the cycle queue counts the moved ones), or to true to see only them"}},
	columns: []QueueColumn{
		{Header: "Project ID"}, {Header: "Name"}, {Header: "Commercial Name"}, {Header: "State"}, {Header: "County"}, {Header: "Status"}, {Header: "Transmission Owner"}, {Header: "MFO"}, {Header: "MW Energy", Type: Number}, {Header: "MW Capacity", Type: Number}, {Header: "MW In Service", Type: Number}, {Header: "Capacity or Energy"}, {Header: "Project Type", Filter: true}, {Header: "Fuel"}, {Header: "Project (AC/DC)"}, {Header: "Rights (MW)"}, {Header: "Initial Study"}, {Header: "Feasibility Study"}, {Header: "Feasibility Study Status"}, {Header: "System Impact Study"}, {Header: "System Impact Study Status"}, {Header: "Facilities Study"}, {Header: "Facilities Study Status"}, {Header: "Interim/Interconnection Service/Generation Interconnection Agreement"}, {Header: "Interim/Interconnection Service/Generation Interconnection Agreement Status"}, {Header: "Wholesale Market Participation Agreement"}, {Header: "Construction Service Agreement"}, {Header: "Construction Service Agreement Status"}, {Header: "Upgrade Construction Service Agreement"}, {Header: "Upgrade Construction Service Agreement Status"}, {Header: "Backfeed Date"}, {Header: "Submitted Date"}, {Header: "Long-Term Firm Service Start Date"}, {Header: "Long-Term Firm Service End Date"}, {Header: "Test Energy Date"}, {Header: "Withdrawal Date"}, {Header: "Withdrawn Remarks"}, {Header: "Commercial Operation Milestone"}, {Header: "Revised In Service Date"}, {Header: "Actual In Service Date"}, {Header: "Attachment Type"}, {Header: "Alternate Project"}, {Header: "Sliding Project"},
	},
	rules: []string{
		"Serial projects moved to a transition cycle stay in this export under their old id with \" - moved to TC1\" (or TC2) appended, with their serial status (Active or Withdrawn): moved_to_cycle marks them, and an answer that includes them says they are counted in the cycle queue (power.interconnection_queue_pjm_cycle) too.",
		"requested_mw is MW Energy (the injection requested); MW Capacity and MW In Service are their own columns and metrics, never merged. PJM publishes no summer, winter or net MW.",
		"Statuses as PJM publishes them: Active, Engineering and Procurement, Under Construction and Partially in Service - Under Construction are active; Suspended is suspended; In Service is operational; Withdrawn, Canceled and Deactivated (a unit deactivated after service) are withdrawn from the queue.",
		"Fuel combinations (\"Solar; Storage\") are hybrid; Methane (landfill and other biogas) and Wood are biomass; Diesel is oil.",
		"The published dates are text (M/D/YYYY); they are kept as published, and queue_date (Submitted Date), in_service_date (Commercial Operation Milestone) and withdrawal_date are their calendar dates.",
		"The Definitions-Mapping sheet documents the columns; it holds no projects and is not ingested.",
	},
})

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
	columns: []QueueColumn{
		{Header: "Project ID"}, {Header: "Name"}, {Header: "Commercial Name"}, {Header: "State"}, {Header: "County"}, {Header: "Status"}, {Header: "Transmission Owner"}, {Header: "MFO"}, {Header: "MW Energy", Type: Number}, {Header: "MW Capacity", Type: Number}, {Header: "MW In Service", Type: Number}, {Header: "Capacity or Energy"}, {Header: "Project Type"}, {Header: "Fuel"}, {Header: "Project (AC/DC)"}, {Header: "Rights (MW)"}, {Header: "Initial Study"}, {Header: "Feasibility Study"}, {Header: "Feasibility Study Status"}, {Header: "System Impact Study"}, {Header: "System Impact Study Status"}, {Header: "Facilities Study"}, {Header: "Facilities Study Status"}, {Header: "Interim/Interconnection Service/Generation Interconnection Agreement"}, {Header: "Interim/Interconnection Service/Generation Interconnection Agreement Status"}, {Header: "Wholesale Market Participation Agreement"}, {Header: "Construction Service Agreement"}, {Header: "Construction Service Agreement Status"}, {Header: "Upgrade Construction Service Agreement"}, {Header: "Upgrade Construction Service Agreement Status"}, {Header: "Backfeed Date"}, {Header: "Submitted Date"}, {Header: "Long-Term Firm Service Start Date"}, {Header: "Long-Term Firm Service End Date"}, {Header: "Test Energy Date"}, {Header: "Withdrawal Date"}, {Header: "Withdrawn Remarks"}, {Header: "Commercial Operation Milestone"}, {Header: "Revised In Service Date"}, {Header: "Actual In Service Date"}, {Header: "Attachment Type"}, {Header: "Alternate Project"}, {Header: "Sliding Project"},
	},
	rules: []string{
		"requested_mw is MW Energy (the injection requested); MW Capacity and MW In Service are their own columns and metrics, never merged. PJM publishes no summer, winter or net MW.",
		"Statuses as PJM publishes them: Active, Engineering and Procurement, Under Construction and Partially in Service - Under Construction are active; Suspended is suspended; In Service is operational; Withdrawn, Canceled and Deactivated (a unit deactivated after service) are withdrawn from the queue.",
		"Fuel combinations (\"Solar; Storage\") are hybrid; Methane (landfill and other biogas) and Wood are biomass; Diesel is oil.",
		"The published dates are text (M/D/YYYY); they are kept as published, and queue_date (Submitted Date), in_service_date (Commercial Operation Milestone) and withdrawal_date are their calendar dates.",
		"The Definitions-Mapping sheet documents the columns; it holds no projects and is not ingested.",
	},
})

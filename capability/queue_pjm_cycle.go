package capability

// QueuePJMCycle is power.interconnection_queue_pjm_cycle: PJM's Transition Cycle projects
// (TC1, TC2), one row per project of the CycleProjects export.
var QueuePJMCycle = queueCapability(queueSpec{
	id:          "power.interconnection_queue_pjm_cycle",
	title:       "Interconnection queue: PJM cycle projects",
	publisher:   "PJM Interconnection",
	description: "Every project of PJM's cycle service request export (CycleProjects-All.xlsx, sheet Data: Transition Cycles TC1 and TC2), with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "the latest Last Updated date in the export (CycleProjects-All.xlsx gives 2025-04-18); each file is its own snapshot",
	cadence:     Irregular,
	requestedMW: "MW Energy",
	kindRule:    "From the published Project Type: Generation Interconnection is generation, Merchant Transmission transmission; a Project Type no table knows rejects the snapshot.",
	columns: []QueueColumn{
		{Header: "Project ID"}, {Header: "Cycle"}, {Header: "Stage"}, {Header: "Name"}, {Header: "Commercial Name"}, {Header: "Developer"}, {Header: "State"}, {Header: "County"}, {Header: "Status"}, {Header: "Project Type", Filter: true}, {Header: "Transmission Owner"}, {Header: "MFO"}, {Header: "MW Energy", Type: Number}, {Header: "MW Capacity", Type: Number}, {Header: "MW In Service", Type: Number}, {Header: "Capacity or Energy"}, {Header: "Fuel"}, {Header: "Submitted Date"}, {Header: "Requested In-Service Date"}, {Header: "Revised In-Service Date"}, {Header: "Actual In-Service Date"}, {Header: "Commercial Operation Milestone"}, {Header: "Backfeed Date"}, {Header: "Test Energy Date"}, {Header: "Last Updated"}, {Header: "Withdrawn Date"}, {Header: "Withdrawn Remarks"}, {Header: "Phase 1 SIS Report"}, {Header: "Phase 1 SIS Report Status"}, {Header: "Phase 2 SIS Report"}, {Header: "Phase 2 SIS Report Status"}, {Header: "Phase 3 SIS Report"}, {Header: "Phase 3 SIS Report Status"}, {Header: "GIA/WMPA Report"}, {Header: "GIA/WMPA Report Status"}, {Header: "CSA/USCA Report"}, {Header: "CSA/USCA Report Status"}, {Header: "Transmission Type", Filter: true}, {Header: "Rights (MW)"}, {Header: "Long-Term Firm Service Start Date"}, {Header: "Long-Term Firm Service End Date"},
	},
	rules: []string{
		"requested_mw is MW Energy; MW Capacity and MW In Service are their own columns and metrics. PJM publishes no summer, winter or net MW.",
		"study_phase is the published Stage (PHASE 1..3, DP1, DP2, APPLICATION REVIEW, FINAL AGREEMENT); Cycle (TC1, TC2) is kept as the published column cycle.",
		"Statuses: Active is active (progress from Stage), EP (Engineering and Procurement) active with an executed agreement, Withdrawn withdrawn.",
		"MW columns are numbers stored as text; they are read as numbers. State \"-\" and County \"Not Specified\" are kept as published; Fuel \"Not Specified\" has a null generation_type.",
	},
})

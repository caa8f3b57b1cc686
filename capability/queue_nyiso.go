package capability

// QueueNYISO is power.interconnection_queue_nyiso: NYISO's interconnection queue workbook,
// every sheet (serial queue, cluster projects, withdrawn, cluster withdrawn, in service).
var QueueNYISO = queueCapability(queueSpec{
	id:          "power.interconnection_queue_nyiso",
	title:       "Interconnection queue: NYISO",
	publisher:   "New York Independent System Operator (NYISO)",
	description: "Every project of NYISO's Interconnection Queue workbook: the serial queue (Interconnection Queue), the Cluster 2024 projects, the withdrawn serial and cluster projects and the projects in service, generation, transmission and load, with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "the latest Last Updated date on sheet Interconnection Queue (NYISO dates its updates by month end: NYISO-Interconnection-Queue_2025-01.xlsx gives 2025-01-31, the 2020-11 file 2020-10-31); each file is its own snapshot",
	cadence:     Monthly,
	requestedMW: "SP (MW)",
	summerMW:    "SP (MW)",
	winterMW:    "WP (MW)",
	kindRule:    "From Type/ Fuel: AC and DC (transmission projects) are transmission, L load, any other type generation; a row with no type has no kind (null).",
	columns: []QueueColumn{
		{Header: "Queue Pos."}, {Header: "Developer/Interconnection Customer"}, {Header: "Project Name"}, {Header: "Date of IR"}, {Header: "SP (MW)", Type: Number}, {Header: "WP (MW)", Type: Number}, {Header: "Type/ Fuel"}, {Header: "County"}, {Header: "State"}, {Header: "Z"}, {Header: "Points of Interconnection"}, {Header: "Utility"}, {Header: "S"}, {Header: "Last Updated Date", Type: Date}, {Header: "Availability of Studies"}, {Header: "IA Tender Date", Type: Date}, {Header: "CY/FS Complete Date", Type: Date}, {Header: "Proposed In-Service/Initial Backfeed Date"}, {Header: "Proposed Sync Date"}, {Header: "Proposed COD"}, {Header: "Interconnection Customer Name"}, {Header: "Affected Transmission Owner (ATO)"}, {Header: "Owner/Developer"}, {Header: "Interconnection Point"}, {Header: "Last Update"}, {Header: "Location County"}, {Header: "Proposed In-Service"}, {Header: "FS Complete/ SGIA Tender"}, {Header: "Proposed Initial-Sync"},
	},
	rules: []string{
		"status_raw is NYISO's S code: 0 withdrawn; 1 to 13 and 15 active (1 scoping, 2-3 feasibility, 4-6 system reliability impact study, 7-9 facilities study, 10 IA in progress, 11 IA completed, 12 under construction, 13 in service for test, 15 partially in service); 14 in service commercial is operational. Cluster codes 1C to 15C likewise (2C to 7C cluster study). The mixed codes of the 2020-11 file are kept as published: \"9, 10\" is read as facilities study, \"11,14\" and \"12,14\" (In Service sheet) as operational.",
		"The In Service sheet's header spans rows 1 and 2; its labels are the two rows joined (\"Queue\" over \"Pos.\" is Queue Pos., \"Location\" over \"County\" is Location County).",
		"Type/ Fuel codes follow NYISO's key (S solar, W wind, OSW offshore wind, ES energy storage, CR and CW storage with solar or wind, AC and DC transmission, L load, CT, CC and CS gas turbines, D dual fuel, ...); HSR, which the key does not list, is other.",
		"MW is N/A for transmission projects and TBD on some withdrawn rows: null. NYISO publishes no withdrawal date (withdrawal_date is null; Last Update is kept); proposed dates are text such as 03-2026 or 12/2024 (the first of that month); I/S, N/A and seasons give a null in_service_date, the text staying in its column.",
	},
})

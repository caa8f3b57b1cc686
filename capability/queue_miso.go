package capability

// QueueMISO is power.interconnection_queue: MISO's generator interconnection queue, one
// row per request of the GI Interactive Queue CSV export.
var QueueMISO = queueCapability(queueSpec{
	id:          "power.interconnection_queue",
	title:       "Interconnection queue: MISO",
	publisher:   "Midcontinent Independent System Operator (MISO)",
	description: "Every request of MISO's Generator Interconnection Interactive Queue (CSV export, one table), active, withdrawn and done, with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "MISO prints no report date in the export: as_of is the latest Withdrawn Date in the file (the export was taken after its last recorded withdrawal; GI_Interactive_Queue_2025-01.csv gives 2025-01-17, GI_Interactive_Queue_2025-05.csv 2025-05-09); each file is its own snapshot",
	cadence:     Irregular,
	requestedMW: "Summer MW",
	summerMW:    "Summer MW",
	winterMW:    "Winter MW",
	kindRule:    "MISO's queue holds generator interconnection requests and merchant HVDC lines: Fuel High Voltage DC is transmission, every other request generation (a placeholder row has no kind).",
	columns: []QueueColumn{
		{Header: "Project #"}, {Header: "Request Status"}, {Header: "Queue Date"}, {Header: "Withdrawn Date"}, {Header: "Done Date"},
		{Header: "Appl In Service Date"}, {Header: "Transmission Owner"}, {Header: "County"}, {Header: "State"},
		{Header: "Study Cycle"}, {Header: "Study Group"}, {Header: "Study Phase"}, {Header: "Service Type"}, {Header: "POI Name"},
		{Header: "Summer MW", Type: Number}, {Header: "Winter MW", Type: Number}, {Header: "Fuel"}, {Header: "Generating Facility"},
		{Header: "Post GIA Status"}, {Header: "Negotiated In Service Date"},
		{Header: "Decision Point 1 ERIS MW", Type: Number}, {Header: "Decision Point 1 NRIS MW", Type: Number},
		{Header: "Decision Point 2 ERIS MW", Type: Number}, {Header: "Decision Point 2 NRIS MW", Type: Number},
	},
	rules: []string{
		"The export's single table is the sheet \"csv\"; the status column (Request Status) says what each request is.",
		"MISO's Done requests are mapped by their Post GIA Status: In Service is operational, Under Construction active (construction), Not Started or blank active (IA executed), Withdrawn withdrawn.",
		"Published date columns are kept as the time stamps MISO writes (e.g. 2018-03-12T04:00:00+00:00); queue_date, in_service_date and withdrawal_date are their calendar dates.",
		"The 2025-01 export carries MISO's test row AA1234 (status \"fish mango watermelon\"); it is not a project and is dropped, and the known_defects gate names it.",
		"Kept as published and named by the known_defects gate: the 2025-05 export's row MSG KEEP (status Active, no queue date, place, fuel or facility, 0 MW) is a placeholder, not a project (known_defect placeholder: no normalized status, not counted); the 2025-01 export's Done request published with the id N/A is a project without a queue id (known_defect no_queue_id: counted, not matched between snapshots).",
		"state is normalized where MISO writes it otherwise, the published text staying in state_published: Michigan (four requests) is MI, and AK on J3263 (Desha County, in Arkansas; MISO has no territory in Alaska) is AR. Both exports then name 15 states.",
	},
})

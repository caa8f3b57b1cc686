package capability

// QueueISONE is power.interconnection_queue_isone: ISO New England's interconnection request
// queue (IRTT export), one row per published request row.
var QueueISONE = queueCapability(queueSpec{
	id:          "power.interconnection_queue_isone",
	title:       "Interconnection queue: ISO-NE",
	publisher:   "ISO New England",
	description: "Every row of ISO New England's Interconnection Request Queue export (sheet Queue): generation, elective transmission upgrade and transmission service requests, with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "the \"As of:\" date printed in row 1 of the export (QueueReport_2025-01-23.xlsx gives 2025-01-23); each file is its own snapshot",
	cadence:     Irregular,
	naturalKey:  []string{"sheet", "queue_id", "source_row_number"},
	requestedMW: "Net MW",
	summerMW:    "Summer MW",
	winterMW:    "Winter MW",
	netMW:       "Net MW",
	kindRule:    "From the published Type: G (generation) is generation, ETU (elective transmission upgrade) and TS (transmission service) are transmission.",
	columns: []QueueColumn{
		{Header: "Position"}, {Header: "Updated", Type: Date}, {Header: "Type", Filter: true}, {Header: "Requested", Type: Date}, {Header: "Alternative Name"}, {Header: "Unit"}, {Header: "Fuel Type"}, {Header: "Net MW", Type: Number}, {Header: "Summer MW", Type: Number}, {Header: "Winter MW", Type: Number}, {Header: "County"}, {Header: "State"}, {Header: "Op Date", Type: Date}, {Header: "Sync Date", Type: Date}, {Header: "W/ D Date", Type: Date}, {Header: "Interconnection Location"}, {Header: "Serv"}, {Header: "SIS Complete"}, {Header: "I39"}, {Header: "TO Report"}, {Header: "Dev"}, {Header: "Zone"}, {Header: "FS"}, {Header: "SIS"}, {Header: "OS"}, {Header: "FAC"}, {Header: "IA"}, {Header: "Project Status"},
	},
	rules: []string{
		"Type says what a request is (G generation, ETU elective transmission upgrade, TS transmission service): it is a filter and a group_by dimension (type) and gives request_kind; the transmission requests publish no fuel (Fuel Type N/A), so their generation_type is null.",
		"Positions are not unique (1,601 distinct values over 1,751 rows in the 2025-01-23 export): every published row is kept, the natural key includes the row, and the known_defects gate names the repeats.",
		"status_raw is Project Status: Under Study is active, Under Construction and Partially In Service active (construction), In Service operational, Suspended suspended. ISO-NE leaves it blank on withdrawn requests: a blank status with a W/ D Date is withdrawn; a blank status without one is active (the export does not say more; older rows of this kind may be long completed). Those inferred rows have status_inferred true, and every answer that includes them says how many, with their requested MW and how many have an Op Date before the as_of.",
		"ia_progress of active requests is read from the IA column (Executed: IA executed; In Progress, Not Started, IA Filed Unexecuted: IA pending).",
		"Fuel Type holds EIA energy source codes, several for multi-fuel units: renewable plus storage is hybrid, dual-fuel gas units natural gas; N/A (transmission requests) is null.",
		"The oldest Requested and Op Date cells are Excel serial numbers rather than dates; they are read as dates.",
	},
})

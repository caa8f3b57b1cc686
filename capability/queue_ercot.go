package capability

// QueueERCOT is power.interconnection_queue_ercot: ERCOT's Generator Interconnection Status
// (GIS) report, every project sheet.
var QueueERCOT = queueCapability(queueSpec{
	id:          "power.interconnection_queue_ercot",
	title:       "Interconnection queue: ERCOT (GIS report)",
	publisher:   "Electric Reliability Council of Texas (ERCOT)",
	description: "Every project of ERCOT's monthly Generator Interconnection Status report: the large and small generation projects in the interconnection process, and the month's inactive, cancelled and commissioning projects, with the normalized queue fields shared by every operator's queue and each published column under its own header name.",
	asOfRule:    "the last day of the report's GIM activity period printed on the Contents sheet (\"GIM Activity: Dec 01, 2024 to Dec 31, 2024\" gives 2024-12-31); each report is its own snapshot",
	cadence:     Monthly,
	naturalKey:  []string{"sheet", "queue_id", "source_row_number"},
	requestedMW: "Capacity (MW) (MW ** on the inactive, cancellation and commissioning sheets)",
	kindRule:    "ERCOT's GIS report lists generation projects only: generation.",
	columns: []QueueColumn{
		{Header: "INR"}, {Header: "Project Name"}, {Header: "GIM Study Phase"}, {Header: "Interconnecting Entity"}, {Header: "POI Location"}, {Header: "County"}, {Header: "CDR Reporting Zone"}, {Header: "Projected COD", Type: Date}, {Header: "Fuel"}, {Header: "Technology"}, {Header: "Capacity (MW)", Type: Number}, {Header: "Change indicators: Proj Name, MW Size, COD, SFS/NtP, FIS Request, Status Change INA-to-PLN"}, {Header: "Approval Date for Submission of Proof of Site Control", Type: Date}, {Header: "Screening Study Started", Type: Date}, {Header: "Screening Study Complete", Type: Date}, {Header: "FIS Requested", Type: Date}, {Header: "FIS Approved", Type: Date}, {Header: "Economic Study Required"}, {Header: "IA Signed", Type: Date}, {Header: "Financial Security and Notice to Proceed Provided"}, {Header: "Air Permit"}, {Header: "GHG Permit"}, {Header: "Water Availability"}, {Header: "Meets Planning Guide Section 6.9(1) Requirements for Inclusion in Planning Models", Type: Date}, {Header: "Meets All Planning Guide Section 6.9 Requirements for Inclusion in Planning Models", Type: Date}, {Header: "Meets Planning Guide QSA (Section 5.9) Prerequisites", Type: Date}, {Header: "Construction Start", Type: Date}, {Header: "Construction End", Type: Date}, {Header: "Approved for Energization", Type: Date}, {Header: "Approved for Synchronization", Type: Date}, {Header: "Comment"}, {Header: "Model Ready Date", Type: Date}, {Header: "Change indicators: Proj Name, MW Size, COD, SFS. Status Change INA-to-PLN"}, {Header: "Financial Security Required to fund Dist. Upgrades"}, {Header: "Size Category"}, {Header: "Inactive Date", Type: Date}, {Header: "MW **", Type: Number}, {Header: "Cancel Date", Type: Date}, {Header: "Commissioning Category"}, {Header: "Approval Date *", Type: Date},
	},
	rules: []string{
		"Sheets: Project Details - Large Gen (header rows 31-35) and Project Details - Small Gen (rows 15-17) are the projects in the process: active, with an executed IA where IA Signed holds a date, else their progress from GIM Study Phase; Inactive Projects are suspended; Cancellation Update (the month's cancellations) withdrawn; Commissioning Update operational where commercial operation is approved, else active (construction). A project may appear on several sheets (a commissioning project is also on its details sheet): filter or group by sheet before adding.",
		"A project commissioned in steps appears once per step on Commissioning Update (energization, then synchronization): every row is kept, the natural key includes the row, and the known_defects gate names the repeats.",
		"The Summary, GIM Trends and data_GIM Trends sheets are aggregates of these projects, not projects, and are not ingested.",
		"A row is a project when its INR matches NNINRnnnn; the footnotes under the sheets are not rows. The header labels of the multi-row headers are their rows joined.",
		"1900-01-01 is ERCOT's mark for an unknown date: null. For repowering projects the MW is the net change and can be 0 or negative. queue_date is Screening Study Started (ERCOT publishes no queue-entry date). ERCOT publishes one MW value per project (requested_mw); summer, winter and net are null.",
		"Fuel codes (SOL, WIN, GAS, OIL, OTH) are refined by Technology: OTH with BA is battery storage.",
	},
})

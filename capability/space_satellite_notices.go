package capability

// SatelliteNoticesUnserved says why space.satellite_notices has no snapshot yet.
const SatelliteNoticesUnserved = "no text of a weekly satellite public notice has been ingested yet: `citeq ingest --fetch` downloads the notices the adapter knows from docs.fcc.gov into space/fcc_sat_notices/ (the truncated excerpts in space/fcc_public_notices/ are layout samples, never served)"

// SatelliteNoticesFrom is the first release date of the contract's series of weekly notices.
const SatelliteNoticesFrom = "2025-06-18"

// SpaceSatelliteNotices is space.satellite_notices: the FCC's weekly satellite public
// notices (space station applications accepted for filing, actions taken), one row per entry.
var SpaceSatelliteNotices = register(&Capability{
	ID:    "space.satellite_notices",
	Path:  "space/satellite-notices",
	Title: "Weekly satellite public notices: applications accepted for filing and actions taken",
	Description: "The FCC's weekly public notices on space stations (Report No. SAT-nnnnn): \"Space Station Applications Accepted for Filing\" and " +
		"\"Actions Taken\", one row per listed filing, with its file number, call sign, applicant, the action and its effective date, the date filed, " +
		"and the notice's report number and release date. The contract's series runs from the notice of " + SatelliteNoticesFrom + " on.",
	Grain:      "one entry of one notice: a filing accepted for filing, or an action taken on a filing",
	Cadence:    Weekly,
	Publisher:  "Federal Communications Commission, Space Bureau (International Bureau before April 2023)",
	AsOfRule:   "the latest release date among the snapshot's notices (the date printed beside the report number)",
	Documents:  Documents{Relation: Complement, Document: "the weekly public notices found, read together as one document (each notice its own report number); a newer set of notices replaces it"},
	NaturalKey: []string{"report_number", "file_number", "action"},
	Partitions: []string{"notice_type"},
	Fields: []Field{
		{Name: "notice_type", Type: String, Filter: true, GroupBy: true, Enum: []string{"accepted_for_filing", "actions_taken"},
			Description: "which notice lists the entry: accepted_for_filing (applications found acceptable for filing, open to petitions) or actions_taken (grants, denials, dismissals, withdrawals)"},
		{Name: "report_number", Type: String, Filter: true, GroupBy: true, Description: "the notice's report number (SAT-01603)"},
		{Name: "notice_date", Type: Date, Description: "the notice's release date, printed beside the report number"},
		{Name: "da_number", Type: String, Description: "the notice's DA number where one is printed (08-2118)"},
		{Name: "file_number", Type: String, Filter: true, Description: "the filing's file number (SAT-LOA-20250618-00152)"},
		{Name: "application_type", Type: String, Filter: true, GroupBy: true, Codebook: "application_type", Description: "application type code, the second part of the file number (LOA, MOD, AMD, STA, ...); the codebook gives the type as the notices print it"},
		{Name: "entry_mark", Type: String, Description: "the one-letter column printed between the file number and the call sign, as published"},
		{Name: "call_sign", Type: String, Filter: true, Description: "call sign of the space station or system, as printed"},
		{Name: "applicant", Type: String, Filter: true, GroupBy: true, Description: "the applicant or licensee, as printed"},
		{Name: "action", Type: String, Filter: true, GroupBy: true, Description: "the action taken, as printed (Grant of Authority, Withdrawn, Dismissed, ...); null on notices of applications accepted for filing"},
		{Name: "effective_date", Type: Date, Description: "effective date of the action, as printed (actions taken)"},
		{Name: "date_filed", Type: Date, Description: "date the application was filed, as printed (accepted for filing)"},
		{Name: "nature_of_service", Type: String, Filter: true, GroupBy: true, Description: "nature of service, as printed (actions taken)"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "report number, file number and action"},
		{Name: "source_row_number", Type: Integer, Description: "1-based line of the notice's text on which the entry starts (its file number)"},
	},
	Metrics: []Metric{
		{Name: "entry_count", Unit: "count", Agg: Count, Additive: true, Description: "number of notice entries"},
		{Name: "distinct_file_count", Unit: "count", Agg: CountDistinct, Column: "file_number", Description: "number of distinct file numbers (a filing accepted in one notice and acted on in another counts once)"},
		{Name: "distinct_applicant_count", Unit: "count", Agg: CountDistinct, Column: "applicant", Description: "number of distinct applicant names, as printed"},
	},
	DateRanges: []DateRange{
		{Name: "notice", Column: "notice_date"},
		{Name: "effective", Column: "effective_date"},
		{Name: "filed", Column: "date_filed"},
	},
	Rules: []string{
		"A filing appears once when accepted for filing and again when acted on: count distinct file numbers, or filter notice_type, rather than adding the two.",
		"The contract's series starts with the notice released " + SatelliteNoticesFrom + "; a snapshot holds the notices whose texts were ingested, of any date (its sources name each report and its release): filter notice_date_from " + SatelliteNoticesFrom + " for the contract's series alone.",
		"Only space-station notices (Report No. SAT-) are read; earth-station lists and notices are not space stations and are never served here.",
		"Entries are read as printed: applicant names are not reconciled across notices, and the narrative that follows an entry is not served.",
	},
	Unserved: SatelliteNoticesUnserved,
})

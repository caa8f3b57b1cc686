package capability

// SatelliteFilingsUnserved says why space.satellite_filings has no snapshot yet.
const SatelliteFilingsUnserved = "no export of the FCC's International Bureau Filing System database has been ingested yet: `citeq ingest --fetch` extracts main.dat and address.dat from ftp://ftp.fcc.gov/pub/Bureaus/International/databases/IBFS.zip into space/fcc_ibfs/ (the earth-station lists in space/ are earth stations, never served here)"

// SpaceSatelliteFilings is space.satellite_filings: the FCC's space-station licensing docket,
// one row per SAT- filing of the International Bureau Filing System (IBFS) database export.
var SpaceSatelliteFilings = register(&Capability{
	ID:    "space.satellite_filings",
	Path:  "space/satellite-filings",
	Title: "Satellite licensing docket: every FCC space-station (SAT-) filing",
	Description: "The FCC's space-station licensing docket as its filing database exports it (IBFS.zip, table MAIN with the applicant from table ADDRESS): " +
		"every SAT- filing back to the database's earliest records, with file number, call sign, applicant, application type, status, filing date, " +
		"last action and the dates of grant, denial, dismissal, surrender and expiry.",
	Grain:      "one filing: one record of the export's MAIN table whose subsystem is SAT (space stations)",
	Cadence:    Daily,
	Publisher:  "Federal Communications Commission, Space Bureau (International Bureau Filing System database export)",
	AsOfRule:   "the latest last-update date (date_last_update) among the export's records: the export carries no date of its own",
	Documents:  Documents{Relation: Restate, Document: "one IBFS database export, the whole docket as of its latest update"},
	NaturalKey: []string{"file_number"},
	Fields: []Field{
		{Name: "file_number", Type: String, Filter: true, Description: "the filing's file number as the FCC displays it (SAT-LOA-20250618-00152: subsystem, application type, date filed, sequence), rebuilt from the export's undashed form"},
		{Name: "file_number_exported", Type: String, Description: "the file number as the export stores it (MAIN.file_number, SATLOA2025061800152)"},
		{Name: "filing_key", Type: Integer, Description: "the database's key of the filing (MAIN.filing_key)"},
		{Name: "call_sign", Type: String, Filter: true, Description: "call sign of the space station or system (MAIN.callsign); null where none is assigned"},
		{Name: "applicant", Type: String, Filter: true, GroupBy: true, Description: "the applicant's name: ADDRESS.address_name of the address record the filing names (MAIN.address_key), as published"},
		{Name: "address_key", Type: Integer, Description: "the address record the filing names (MAIN.address_key)"},
		{Name: "application_type", Type: String, Filter: true, GroupBy: true, Codebook: "application_type", Description: "application type code (MAIN.app_type_code: LOA launch and operating authority, MOD modification, AMD amendment, STA special temporary authority, ...), the second part of the file number"},
		{Name: "status_code", Type: String, Filter: true, GroupBy: true, Codebook: "status_code", Description: "the filing's processing status in the database (MAIN.status_code: a workflow state such as AFPN accepted for filing public notice or ATPN action taken public notice, not a disposition)"},
		{Name: "status_date", Type: Date, Description: "date of the status (MAIN.status_date)"},
		{Name: "last_action", Type: String, Filter: true, GroupBy: true, Codebook: "last_action", Description: "code of the last action taken on the filing (MAIN.last_action)"},
		{Name: "last_action_date", Type: Date, Description: "date of the last action (MAIN.last_action_date)"},
		{Name: "filing_date", Type: Date, Description: "date the filing was filed (MAIN.date_filed)"},
		{Name: "filing_year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year of the filing date"},
		{Name: "grant_date", Type: Date, Description: "date of grant (MAIN.date_grant)"},
		{Name: "denial_date", Type: Date, Description: "date of denial (MAIN.date_deny)"},
		{Name: "dismissal_date", Type: Date, Description: "date of dismissal (MAIN.date_dismiss)"},
		{Name: "surrender_date", Type: Date, Description: "date of surrender (MAIN.date_surrender)"},
		{Name: "expiration_date", Type: Date, Description: "expiration date of the authorization (MAIN.date_expire)"},
		{Name: "last_update_date", Type: Date, Description: "date the record was last updated (MAIN.date_last_update)"},
		{Name: "disposition", Type: String, Filter: true, GroupBy: true, Enum: []string{"granted", "denied", "dismissed", "surrendered", "pending"},
			Description: "derived by the service from the outcome dates: the outcome with the latest of the grant, denial, dismissal and surrender dates; pending when none is set"},
		{Name: "description", Type: String, Description: "the filing's description as entered (MAIN.description)"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "the file number as exported"},
		{Name: "source_row_number", Type: Integer, Description: "1-based record of main.dat (records are ended by |^|; a text field may span lines)"},
	},
	Metrics: []Metric{
		{Name: "filing_count", Unit: "count", Agg: Count, Additive: true, Description: "number of filings"},
		{Name: "granted_count", Unit: "count", Agg: CountNonNull, Column: "grant_date", Additive: true, Description: "number of filings with a grant date"},
		{Name: "distinct_applicant_count", Unit: "count", Agg: CountDistinct, Column: "applicant", Description: "number of distinct applicant names, as published (spelling variants count apart)"},
	},
	DateRanges: []DateRange{
		{Name: "filing", Column: "filing_date"},
		{Name: "last_action", Column: "last_action_date"},
		{Name: "grant", Column: "grant_date"},
	},
	Rules: []string{
		"Only space-station filings (subsystem SAT, file numbers SAT-...) are served; the export's earth-station (SES), section 214 (ITC) and other filings are not, nor are the earth-station lists kept beside it.",
		"status_code is the database's workflow state, not an outcome: a granted filing can read ATPN (action taken public notice); use disposition or the outcome dates for outcomes.",
		"disposition is derived from the outcome dates, not published: pending means no grant, denial, dismissal or surrender date is set.",
		"applicant is the name on the address record the filing names, as published: one company under several spellings or successors counts apart.",
		"An amendment (AMD) or a modification (MOD) is a filing of its own with its own file number; the docket counts filings, not satellites or systems.",
	},
	Unserved: SatelliteFilingsUnserved,
})

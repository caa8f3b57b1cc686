package capability

// The first planning year power.capacity_market_miso answers, and why earlier ones are not.
const (
	misoFirstAuction = "2024-2025"
	misoFloorReason  = "planning years before 2024 are not answered: power.capacity_market_miso covers MISO's seasonal Planning Resource Auctions, from planning year 2024-2025 on"
)

// PowerCapacityMarketMISO is power.capacity_market_miso (contract section 2.4): MISO's
// Planning Resource Auction results, one row per result atom: seasonal zonal auction
// clearing prices (ACP), external resource zone clearing quoted verbatim, seasonal
// subregional and annual zonal cost of new entry (CONE) and the independent market
// monitor's conduct thresholds.
var PowerCapacityMarketMISO = register(&Capability{
	ID:          "power.capacity_market_miso",
	Path:        "power/capacity-market-miso",
	Title:       "MISO Planning Resource Auction results",
	Description: "MISO Planning Resource Auction (PRA) results by auction, planning year, season, zone or parameter: seasonal zonal auction clearing prices (ACP, USD per MW-day of seasonal accredited capacity, zones 1 to 10), external resource zone clearing quoted verbatim (ranges included), seasonal subregional and annual zonal cost of new entry (CONE) as stated, and independent market monitor conduct thresholds. Read from MISO's own postings, or from a third party's transcription of them, which every citation marks derived and every atom names its MISO document and page.",
	Grain:       "one result atom: auction, planning year, season, zone or parameter",
	Cadence:     Annual,
	Publisher:   "Midcontinent Independent System Operator (MISO)",
	AsOfRule:    "the posting date of the results posting (the date in its file name, e.g. '2025-2026 PRA Results Posting 20250428' gives 2025-04-28); each posting, a corrections posting included, is its own document and snapshot. A third party's transcription of the postings is one snapshot of its own, as of the latest date in the addresses of the MISO documents whose atoms it serves (a posting's date, or a FERC filing's: '2025-10-15 Docket No. ER26-139-000' gives 2025-10-15)",
	Documents: Documents{Relation: Complement, Document: "one PRA results posting per file (a planning year's posting, or its corrections posting, a document of its own); the planning years complement each other",
		Overlap: "a corrections posting repeats the atoms of the posting it corrects: each atom is served from the newest posting, and an atom whose value the corrections posting revises keeps the earlier posting's row cited beside it (note release_revised); the earlier posting's own as_of still serves it"},
	Partitions: []string{"atom_type"},
	NaturalKey: []string{"auction_label", "season", "zone", "scope", "atom_type"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier (miso_pra_results)"},
		{Name: "sheet_name", Type: String, Bookkeeping: true, Description: "page of the posting the atom is printed on (Page <n>); csv for a transcription, whose row names the page in original_page"},
		{Name: "iso", Key: KeyISO, Type: String, Description: "MISO"},
		{Name: "auction_label", Type: String, Filter: true, GroupBy: true, Description: "the auction, '<planning year> PRA' (e.g. 2025-2026 PRA)",
			Floor: &Floor{Value: misoFirstAuction + " PRA", Reason: misoFloorReason}},
		{Name: "planning_year", Type: String, Filter: true, GroupBy: true, Description: "planning year, two years joined by a hyphen (2025-2026), June 1 to May 31",
			Floor: &Floor{Value: misoFirstAuction, Reason: misoFloorReason}},
		{Name: "season", Type: String, Filter: true, GroupBy: true, Enum: []string{"summer", "fall", "winter", "spring"},
			Description: "season of the atom, lower case (null for annual CONE)"},
		{Name: "zone", Type: String, Filter: true, GroupBy: true, Description: "local resource zone, Z1 to Z10 (null for subregional, external or MISO-wide atoms)"},
		{Name: "scope", Type: String, Filter: true, GroupBy: true, Enum: []string{"zone", "north_central_subregion", "south_subregion", "external_resource_zone"},
			Description: "what the atom covers: a zone, a subregion (North/Central or South), or the external resource zones"},
		{Name: "atom_type", Type: String, Filter: true, GroupBy: true, Enum: []string{"acp", "acp_erz_verbatim", "cone_seasonal", "cone_annual", "imm_threshold"},
			Description: "acp (zonal auction clearing price), acp_erz_verbatim (external resource zone clearing as printed), cone_seasonal (subregional CONE per season), cone_annual (zonal annual CONE), imm_threshold (IMM conduct threshold)"},
		{Name: "acp_usd_mw_day", Type: Number, Description: "auction clearing price, USD per MW-day of seasonal accredited capacity (acp atoms)"},
		{Name: "acp_erz_verbatim", Type: String, Description: "external resource zone clearing exactly as printed, a range included (acp_erz_verbatim atoms)"},
		{Name: "cone_usd_mw_day", Type: Number, Description: "CONE as stated in the posting, never annualized or converted: USD/MW-day on cone_seasonal atoms; on cone_annual atoms the annual figure as MISO states it, USD per MW-year (e.g. 127720 for zone 1 in 2025-2026)"},
		{Name: "cone_unit", Type: String, Enum: []string{"USD/MW-day", "USD/MW-year"},
			Description: "unit of cone_usd_mw_day as the posting states it: USD/MW-day on cone_seasonal atoms, USD/MW-year on cone_annual atoms (null on other atoms)"},
		{Name: "imm_conduct_threshold_usd_mw_day", Type: Number, Description: "IMM conduct threshold as stated, USD/MW-day (imm_threshold atoms)"},
		{Name: "report_period", Type: String, Description: "posting date of the document the atom is printed in, YYYY-MM-DD (a FERC filing's date for CONE stated in a filing)"},
		{Name: "original_document_url", Type: String, Description: "for an atom read from a transcription (derived): MISO's address of the document the value was transcribed from (a results posting, or a FERC filing for CONE stated there), as the transcription names it; null when the file cited is MISO's own posting"},
		{Name: "original_page", Type: String, Description: "for an atom read from a transcription: the page (and table or zone) of the MISO document, as the transcription names it (\"p.18, ZONE=1\"); null for MISO's own posting, whose page is the sheet"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "auction, season, zone or scope, atom type and posting"},
		{Name: "source_row_number", Type: Integer, Description: "row of the table on its page; the line of a transcription"},
	},
	Metrics: []Metric{
		{Name: "avg_acp_usd_mw_day", Unit: "USD/MW-day", Agg: Avg, Column: "acp_usd_mw_day", Description: "average of ACP in scope"},
		{Name: "min_acp_usd_mw_day", Unit: "USD/MW-day", Agg: Min, Column: "acp_usd_mw_day", Description: "minimum ACP"},
		{Name: "max_acp_usd_mw_day", Unit: "USD/MW-day", Agg: Max, Column: "acp_usd_mw_day", Description: "maximum ACP"},
		{Name: "cone_usd_mw_day", Unit: "USD/MW-day", Agg: Max, Column: "cone_usd_mw_day", UnitColumn: "cone_unit", Description: "maximum of published CONE in scope, in the unit the posting states (summary.units names it: USD/MW-day for seasonal CONE, USD/MW-year for annual CONE, which MISO states per MW-year and which is never converted); null with a mixed_units note over a set that holds both: filter or group by atom_type"},
		{Name: "imm_conduct_threshold_usd_mw_day", Unit: "USD/MW-day", Agg: Max, Column: "imm_conduct_threshold_usd_mw_day", Description: "maximum of published threshold in scope"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "count of result atoms"},
	},
	Originals: &Originals{Document: "original_document_url", Page: "original_page"},
	Rules: []string{
		"CONE is recorded as the stated administrative parameter on the basis of its stating document and is never interpreted, annualized or converted: seasonal CONE is per season as printed (USD/MW-day), annual CONE is the annual figure as printed (MISO states it per MW-year).",
		"External resource zone clearing is quoted verbatim in acp_erz_verbatim, ranges included; it is never parsed into a number and never enters the ACP metrics.",
		"A corrections posting is a distinct document identity: its atoms cite the corrections file and it is its own as_of; earlier postings stay served at their own as_of and are never silently replaced.",
		"Planning years before 2024 are not answered: the capability covers the seasonal auctions from planning year 2024-2025 on; a posting for an earlier planning year is refused at ingest (gate planning_year_supported), and a query whose planning_year or auction_label filter names an earlier year (alone or in a list) is refused with invalid_filter, naming 2024-2025 as the first planning year answered (each field's floor in the schema).",
		"IMM conduct thresholds are served from MISO's own posting only: the transcriptions served here carry none, so imm_threshold atoms and imm_conduct_threshold_usd_mw_day are absent (null) in their snapshots.",
		"A transcription (a third party's copy of MISO's tables, each row naming its MISO document and page) is served as derived: the file named and hashed in every citation is the transcription; each atom names the MISO document and page it was transcribed from (original_document_url, original_page; the cited row's own cells source_doc and source_page), and so does its citation: a record's citation, an aggregate citation's verify member and each of its sample rows give that posting as original_url and its page as original_page (the evidence endpoint refuses any other), while an aggregate citation's own original_url, which speaks for rows of several postings, is MISO's resource adequacy page, where the postings are listed; MISO's system-wide rows (ACP and seasonal CONE of the whole MISO system), Net CONE, cleared MW, PRM and demand-curve points in it are not served.",
		"Does not answer: energy-market prices or plant revenue; PRMR, LCR, CIL/CEL, cleared-MW or offer-curve quantities; planning years before 2024; demand-curve position, scarcity interpretation or effective capacity price; ZRC-to-UCAP conversion, resource-specific accreditation or FRAP volumes.",
	},
	Unserved: "neither a MISO Planning Resource Auction results posting nor a transcription of one is here; MISO publishes each posting as a PDF on its document host (cdn.misoenergy.org; the 2024-2025, 2025-2026 and 2026-2027 postings are listed for ingest --fetch), which ingest reads page by page, and a transcription is read from iso/miso/pra_derived",
})

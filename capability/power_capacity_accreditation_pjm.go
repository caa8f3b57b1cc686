package capability

// PowerCapacityAccreditationPJM is power.capacity_accreditation_pjm: PJM's marginal ELCC
// class ratings, by document kind (preliminary, final, ...), auction, delivery year and
// resource class, one row per printed rating.
var PowerCapacityAccreditationPJM = register(&Capability{
	ID:          "power.capacity_accreditation_pjm",
	Path:        "power/capacity-accreditation-pjm",
	Title:       "PJM ELCC class ratings",
	Description: "PJM's marginal effective load carrying capability (ELCC) class ratings, in percent as printed, by document kind (preliminary, final, ...), auction, delivery year and ELCC resource class. Read from PJM's own documents, or from a third party's transcription of them, which every citation marks derived with PJM's address as the original.",
	Grain:       "one class rating: document kind, auction, delivery year and resource class",
	Cadence:     Irregular,
	Publisher:   "PJM Interconnection",
	AsOfRule:    "the posting date printed on the first page of the ELCC class rating document; each document (its kind, auction and delivery year in its title) is its own snapshot, so a final document never replaces a preliminary one. A transcription states no posting date that PJM's documents confirm: it is one snapshot, as of the last day of the latest year that a document it cites names as its own (PJM's 2025 ELCC report, 2025-pjm-elcc-rrs.pdf, gives 2025-12-31), by which every document it cites was published; no posting day is claimed",
	Documents:   Documents{Relation: Complement, Document: "one ELCC class rating document per document kind, auction and delivery year (its file); the documents of different auctions and delivery years complement each other, and a preliminary and a final document are both kept (document_kind tells them apart)"},
	Partitions:  []string{"document_kind"},
	NaturalKey:  []string{"document_kind", "auction", "delivery_year", "resource_class"},
	Fields: []Field{
		{Name: "document_kind", Type: String, Filter: true, GroupBy: true, Description: "preliminary or final (as the document's title says; other kinds are kept as printed, lower case)"},
		{Name: "auction", Type: String, Filter: true, GroupBy: true, Description: "the auction the ratings are for (BRA, or an incremental auction as printed)"},
		{Name: "delivery_year", Type: String, Filter: true, GroupBy: true, Description: "delivery year, YYYY/YYYY"},
		{Name: "resource_class", Type: String, Filter: true, GroupBy: true, Description: "ELCC class as printed (Onshore Wind, Tracking Solar, 4-hr Storage, Nuclear, ...)"},
		{Name: "rating_percent", Type: Number, Description: "ELCC class rating, percent as printed (35 for 35%)"},
		{Name: "posted_date", Type: Date, Bookkeeping: true, Description: "posting date printed on the document's first page; null for a transcription, whose posting dates PJM's documents do not confirm"},
		{Name: "installed_mw", Type: Number, Description: "installed capacity of the class, MW, where a transcription gives it (from PJM's ELCC report); null where PJM withholds it or publishes no figure for the class alone, and for PJM's own rating documents, which print none"},
		{Name: "document_label", Type: String, Description: "for a transcription: its label of the rating set, verbatim (\"2026/2027 BRA (official/final)\"), from which document_kind, auction and delivery_year are read; a date in it is the transcriber's and is not taken as the posting date"},
		{Name: "original_document_url", Type: String, Description: "for a transcription (derived): PJM's address of the document the rating was transcribed from, as the transcription names it; null for PJM's own document, which is the file cited"},
		{Name: "original_page", Type: String, Description: "for a transcription: the page and table of PJM's document, as the transcription names it"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "document kind, auction, delivery year and class"},
		{Name: "source_row_number", Type: Integer, Description: "row of the class on its page; the line of a transcription"},
	},
	Metrics: []Metric{
		{Name: "avg_rating_percent", Unit: "percent", Agg: Avg, Column: "rating_percent", Description: "unweighted mean of the class ratings (not a fleet-weighted accreditation)"},
		{Name: "min_rating_percent", Unit: "percent", Agg: Min, Column: "rating_percent", Description: "lowest class rating"},
		{Name: "max_rating_percent", Unit: "percent", Agg: Max, Column: "rating_percent", Description: "highest class rating"},
		{Name: "class_count", Unit: "count", Agg: Count, Additive: true, Description: "number of class ratings"},
	},
	Originals: &Originals{Document: "original_document_url", Page: "original_page"},
	Rules: []string{
		"A rating is the marginal ELCC class rating as printed, in percent; a preliminary and a final document are distinct documents, each served at its own as_of.",
		"A transcription (a third party's copy of PJM's ratings, each row naming its PJM document and page) is served as derived: the file named and hashed in every citation is the transcription; original_document_url and original_page name the document and page of each rating, and so does its citation: a record's citation, an aggregate citation's verify member and each of its sample rows give that document as original_url and its page as original_page (the evidence endpoint refuses any other), while an aggregate citation's own original_url, which speaks for ratings of several documents, is PJM's ELCC page, which lists the postings. document_kind, auction and delivery_year are as the transcription labels the set: the 2025/2026 ratings it holds are those of the Third Incremental Auction (auction 3IA), not of the base residual auction.",
		"Does not answer: resource-specific accreditation (accredited UCAP of a unit), ELCC class ratings computed by citeq, capacity prices (see power.capacity_market_pjm).",
	},
	Unserved: "neither a PJM ELCC class ratings document nor a transcription of one is here; PJM publishes them as PDFs (ingest --fetch downloads the final ratings of the 2023/2024, 2026/2027 and 2028/2029 base residual auctions from www.pjm.com), which ingest reads page by page, and a transcription is read from iso/pjm/elcc_derived",
})

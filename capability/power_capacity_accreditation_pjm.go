package capability

// PowerCapacityAccreditationPJM is power.capacity_accreditation_pjm: PJM's marginal ELCC
// class ratings, by document kind (preliminary, final, ...), auction, delivery year and
// resource class, one row per printed rating.
var PowerCapacityAccreditationPJM = register(&Capability{
	ID:          "power.capacity_accreditation_pjm",
	Path:        "power/capacity-accreditation-pjm",
	Title:       "PJM ELCC class ratings",
	Description: "PJM's marginal effective load carrying capability (ELCC) class ratings, in percent as printed, by document kind (preliminary, final, ...), auction, delivery year and ELCC resource class.",
	Grain:       "one class rating: document kind, auction, delivery year and resource class",
	Cadence:     Irregular,
	Publisher:   "PJM Interconnection",
	AsOfRule:    "the posting date printed on the first page of the ELCC class rating document; each document (its kind, auction and delivery year in its title) is its own snapshot, so a final document never replaces a preliminary one",
	Documents:   Documents{Relation: Complement, Document: "one ELCC class rating document per document kind, auction and delivery year (its file); the documents of different auctions and delivery years complement each other, and a preliminary and a final document are both kept (document_kind tells them apart)"},
	Partitions:  []string{"document_kind"},
	NaturalKey:  []string{"document_kind", "auction", "delivery_year", "resource_class"},
	Fields: []Field{
		{Name: "document_kind", Type: String, Filter: true, GroupBy: true, Description: "preliminary or final (as the document's title says; other kinds are kept as printed, lower case)"},
		{Name: "auction", Type: String, Filter: true, GroupBy: true, Description: "the auction the ratings are for (BRA, or an incremental auction as printed)"},
		{Name: "delivery_year", Type: String, Filter: true, GroupBy: true, Description: "delivery year, YYYY/YYYY"},
		{Name: "resource_class", Type: String, Filter: true, GroupBy: true, Description: "ELCC class as printed (Onshore Wind, Tracking Solar, 4-hr Storage, Nuclear, ...)"},
		{Name: "rating_percent", Type: Number, Description: "ELCC class rating, percent as printed (35 for 35%)"},
		{Name: "posted_date", Type: Date, Bookkeeping: true, Description: "posting date printed on the document's first page"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "document kind, auction, delivery year and class"},
		{Name: "source_row_number", Type: Integer, Description: "row of the class on its page"},
	},
	Metrics: []Metric{
		{Name: "avg_rating_percent", Unit: "percent", Agg: Avg, Column: "rating_percent", Description: "unweighted mean of the class ratings (not a fleet-weighted accreditation)"},
		{Name: "min_rating_percent", Unit: "percent", Agg: Min, Column: "rating_percent", Description: "lowest class rating"},
		{Name: "max_rating_percent", Unit: "percent", Agg: Max, Column: "rating_percent", Description: "highest class rating"},
		{Name: "class_count", Unit: "count", Agg: Count, Additive: true, Description: "number of class ratings"},
	},
	Rules: []string{
		"A rating is the marginal ELCC class rating as printed, in percent; a preliminary and a final document are distinct documents, each served at its own as_of.",
		"Does not answer: resource-specific accreditation (accredited UCAP of a unit), ELCC class ratings computed by citeq, capacity prices (see power.capacity_market_pjm).",
	},
	Unserved: "no PJM ELCC class ratings document has been obtained here; PJM publishes them as PDFs (ingest --fetch downloads the final ratings of the 2023/2024, 2026/2027 and 2028/2029 base residual auctions from www.pjm.com), which ingest reads page by page",
})

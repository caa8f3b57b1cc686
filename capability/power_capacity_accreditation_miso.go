package capability

// PowerCapacityAccreditationMISO is power.capacity_accreditation_miso: MISO's seasonal
// class-average and indicative DLOL accreditation ratios by resource class, with unit counts,
// storage variants and explicit suppression atoms where MISO withholds a value.
var PowerCapacityAccreditationMISO = register(&Capability{
	ID:          "power.capacity_accreditation_miso",
	Path:        "power/capacity-accreditation-miso",
	Title:       "MISO seasonal accreditation ratios by resource class",
	Description: "MISO's seasonal class-average accreditation ratios and indicative direct loss of load (DLOL) accreditation ratios by resource class (storage by duration), in percent as printed, with the number of units in each class; a value MISO withholds is an atom saying so (suppressed, with the printed mark), never a zero or a missing row.",
	Grain:       "one printed ratio or withheld value: planning year, method, season and resource class",
	Cadence:     Annual,
	Publisher:   "Midcontinent Independent System Operator (MISO)",
	AsOfRule:    "the latest posting date printed under the titles of a planning year's accreditation documents ('Posted 2025-03-03'); the documents of one planning year are one snapshot",
	Documents:   Documents{Relation: Complement, Document: "the accreditation documents of one planning year (class-average and indicative DLOL tables), read together as one document per planning year; a later posting for the same planning year replaces it, and the planning years complement each other"},
	NaturalKey:  []string{"planning_year", "method", "season", "resource_class", "atom_type"},
	Fields: []Field{
		{Name: "planning_year", Type: String, Filter: true, GroupBy: true, Description: "planning year, two years joined by a hyphen (2025-2026)"},
		{Name: "method", Type: String, Filter: true, GroupBy: true, Enum: []string{"class_average", "indicative_dlol"},
			Description: "class_average (the seasonal class-average accreditation) or indicative_dlol (the indicative direct-loss-of-load accreditation)"},
		{Name: "season", Type: String, Filter: true, GroupBy: true, Enum: []string{"summer", "fall", "winter", "spring"}, Description: "season of the ratio"},
		{Name: "resource_class", Type: String, Filter: true, GroupBy: true, Description: "resource class as printed (storage classes by duration, e.g. 'Storage - 4 hour')"},
		{Name: "storage_variant", Type: String, Filter: true, GroupBy: true, Description: "for a storage class, its duration as printed ('4 hour'); null otherwise"},
		{Name: "atom_type", Type: String, Filter: true, GroupBy: true, Enum: []string{"ratio", "suppressed"},
			Description: "ratio (an accreditation ratio) or suppressed (a ratio MISO withholds: the atom says so)"},
		{Name: "ratio_percent", Type: Number, Description: "accreditation ratio, percent as printed (ratio atoms)"},
		{Name: "unit_count", Type: Integer, Description: "number of units in the class, as printed on the class's row (the same on its four seasonal atoms)"},
		{Name: "suppressed", Type: Boolean, Filter: true, Description: "true when MISO withholds the value (suppressed atoms)"},
		{Name: "suppression_mark", Type: String, Description: "the mark printed in place of a withheld value, as printed"},
		{Name: "posted_date", Type: Date, Bookkeeping: true, Description: "posting date printed on the sheet"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "planning year, method, season, class and atom type"},
		{Name: "source_row_number", Type: Integer, Description: "row of the class on its sheet"},
	},
	Metrics: []Metric{
		{Name: "avg_ratio_percent", Unit: "percent", Agg: Avg, Column: "ratio_percent", Description: "unweighted mean of the published ratios (suppressed values are not counted)"},
		{Name: "min_ratio_percent", Unit: "percent", Agg: Min, Column: "ratio_percent", Description: "lowest published ratio"},
		{Name: "max_ratio_percent", Unit: "percent", Agg: Max, Column: "ratio_percent", Description: "highest published ratio"},
		{Name: "ratio_count", Unit: "count", Agg: CountNonNull, Column: "ratio_percent", Additive: true, Description: "number of published ratios"},
		{Name: "suppressed_count", Unit: "count", Agg: CountNonNull, Column: "suppression_mark", Additive: true, Description: "number of values MISO withholds"},
		{Name: "atom_count", Unit: "count", Agg: Count, Additive: true, Description: "number of atoms"},
	},
	Rules: []string{
		"A value MISO withholds is a suppressed atom carrying the printed mark: it is never a zero and never a missing row; ratio metrics skip it and suppressed_count counts it.",
		"Ratios are as printed, in percent; class averages and indicative DLOL ratios are different methods: filter or group by method.",
		"Unit counts are served on every atom of the class (the printed Units cell of its row); no metric sums them, since a class has four seasonal atoms.",
		"Does not answer: resource-specific accreditation (a unit's accredited capacity), ZRC quantities, auction prices (see power.capacity_market_miso).",
	},
	Unserved: "no MISO accreditation document has been obtained here; MISO posts the seasonal class-average and indicative DLOL accreditation results as PDFs (ingest --fetch downloads the indicative DLOL results of planning year 2025-2026 from cdn.misoenergy.org), which ingest reads page by page. The transcription of MISO's wind and solar capacity credit reports here (iso/miso/pra_derived) is not served: its figures are ELCC study results and capacity credits of the wind and solar fleets (wind ELCC by calendar year 2005-2019 against penetration, annual wind credits of planning years 2011-2020, seasonal wind ELCC of two planning years, solar default credits), another method and grain than the class-average and DLOL ratios of resource classes this capability serves, without unit counts",
})

package capability

// PowerCapacityMarketPJM is power.capacity_market_pjm: PJM's Reliability Pricing Model base
// residual auctions, one row per value printed in a results or planning-parameter workbook
// (an atom): resource clearing prices and cleared MW by LDA, the reliability requirement, the
// administrative price collar, the installed reserve margin and the forecast pool requirement.
var PowerCapacityMarketPJM = register(&Capability{
	ID:          "power.capacity_market_pjm",
	Path:        "power/capacity-market-pjm",
	Title:       "PJM capacity market: base residual auction results and planning parameters",
	Description: "Base residual auction (BRA) resource clearing prices (USD/MW-day, UCAP) and cleared MW by delivery year and LDA, the reliability requirement by LDA, the RTO reliability requirement used in the auction, the administrative price collar (cap and floor) where the delivery year has one, and the installed reserve margin and forecast pool requirement, each value one atom read from the cell PJM printed it in (BRA results workbooks and BRA planning-parameter workbooks).",
	Grain:       "one printed value (atom): atom type, delivery year, LDA and document",
	Cadence:     Irregular,
	Publisher:   "PJM Interconnection",
	AsOfRule:    "the latest date the snapshot's workbooks carry: the posting date printed in row 1 of a planning-parameter (or 2021/2022 results) workbook, or the modification date PJM's workbook metadata records (docProps/core.xml) for a results workbook that prints none",
	Documents:   Documents{Relation: Complement, Document: "the BRA results and planning-parameter workbooks of every delivery year, read together as one document (their printed copies of one value are checked against each other); a newer set of workbooks replaces it"},
	Partitions:  []string{"atom_type", "unit"},
	NaturalKey:  []string{"atom_type", "delivery_year", "lda", "document"},
	Fields: []Field{
		{Name: "atom_type", Type: String, Filter: true, GroupBy: true, Codebook: "atom_type",
			Description: "what the value is (see the atom_type codebook): clearing_price, cleared_mw, reliability_requirement, reliability_requirement_adjusted_for_frr, auction_rto_reliability_requirement, price_cap, price_floor, installed_reserve_margin, forecast_pool_requirement"},
		{Name: "delivery_year", Type: String, Filter: true, GroupBy: true, Description: "delivery year, YYYY/YYYY (June 1 to May 31)"},
		{Name: "delivery_year_start", Type: Integer, Filter: true, GroupBy: true, Description: "first calendar year of the delivery year (2027 for 2027/2028)"},
		{Name: "delivery_start_date", Type: Date, Description: "first day of the delivery year (June 1)"},
		{Name: "lda", Type: String, Filter: true, GroupBy: true, Codebook: "lda",
			Description: "locational deliverability area the value is for, in the results workbooks' spelling (PSNORTH, DPLSOUTH, ATSI-CLEVELAND; the planning parameters' PS NORTH, DPL SOUTH and ATSI-Cleveland are read as these); RTO for RTO-wide values"},
		{Name: "lda_as_published", Type: String, Description: "the LDA label as printed (RTO *, PS NORTH, ...)"},
		{Name: "parent_lda", Type: String, Filter: true, GroupBy: true, Description: "the LDA this LDA is nested in (null for RTO), from the lda codebook"},
		{Name: "lda_path", Type: String, Description: "the LDA's nesting from the RTO down, e.g. RTO > MAAC > EMAAC > PS > PSNORTH"},
		{Name: "document", Type: String, Filter: true, GroupBy: true, Enum: []string{"bra_results", "planning_parameters"},
			Description: "the workbook the value was printed in: the BRA results workbook or the BRA planning-parameter workbook of the delivery year"},
		{Name: "value", Type: Number, Description: "the value as printed", Cell: &CellRule{ColumnBy: "source_column"}},
		{Name: "unit", Type: String, Filter: true, GroupBy: true, Description: "USD/MW-day UCAP, USD/MW-day ICAP, MW UCAP, MW or ratio"},
		{Name: "row_label", Type: String, Description: "the text in column A of the cited row, as printed (the LDA on the Summary sheet, 'Reliability Requirement', 'IRM', ...)"},
		{Name: "column_label", Type: String, Description: "the header of the value's column, as printed"},
		{Name: "source_column", Type: String, Bookkeeping: true, Description: "the column letter of the cell the value was read from, on the cited row"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "atom type, delivery year, LDA and document"},
		{Name: "source_row_number", Type: Integer, Description: "1-based Excel row of the value"},
	},
	Metrics: []Metric{
		{Name: "value", Unit: "unit of the atom", Agg: Sum, Column: "value", UnitColumn: "unit", Description: "the value; over one atom it is the printed value (sums across LDAs double count nested LDAs: filter on lda)"},
		{Name: "avg_value", Unit: "unit of the atom", Agg: Avg, Column: "value", UnitColumn: "unit", Description: "mean of the values (an unweighted mean across delivery years or LDAs)"},
		{Name: "min_value", Unit: "unit of the atom", Agg: Min, Column: "value", UnitColumn: "unit", Description: "smallest value"},
		{Name: "max_value", Unit: "unit of the atom", Agg: Max, Column: "value", UnitColumn: "unit", Description: "largest value"},
		{Name: "atom_count", Unit: "count", Agg: Count, Additive: true, Description: "number of atoms"},
	},
	DateRanges: []DateRange{{Name: "delivery_start", Column: "delivery_start_date"}},
	Rules: []string{
		"One atom per printed value: a value PJM prints in more than one place (the RTO cleared MW on the Summary sheet, as the zonal obligation total and on the Load Pricing sheet; the IRM and FPR in both the results and the planning-parameter workbook) is served from one cell and the other copies are checked by the printed_copies_agree gate; a disagreement rejects the snapshot with the values named, it is never averaged.",
		"Units differ by atom type (USD/MW-day UCAP prices, USD/MW-day ICAP collar, MW, ratios): value metrics over rows of mixed units are null with a mixed_units note; filter on atom_type.",
		"LDAs nest (RTO > MAAC > EMAAC > PS > PSNORTH, ...): parent_lda, lda_path and the lda codebook give the nesting; cleared MW of a parent LDA include those of the LDAs nested in it, so never add cleared_mw across LDAs.",
		"reliability_requirement and reliability_requirement_adjusted_for_frr are the planning parameters' values; auction_rto_reliability_requirement is the RTO value the results workbook prints ('including EE addback and PRD reduction'); they differ by definition and are not reconciled.",
		"The price collar (price_cap, price_floor, USD/MW-day ICAP, established in FERC docket ER25-1357) exists only in the planning parameters of the delivery years that print it (2026/2027 and 2027/2028); other years have no collar atom, never a zero.",
		"Does not answer: incremental auction results, zonal net load prices, capacity transfer rights, resource-specific offers or clearing, ELCC class ratings (see power.capacity_accreditation_pjm), energy prices.",
	},
})

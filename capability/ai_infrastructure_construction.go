package capability

// AIInfrastructureConstruction is ai_infrastructure.construction: the Census Bureau's value of
// construction put in place (C30), monthly, seasonally adjusted annual rate, one row per
// sector, published line and month.
var AIInfrastructureConstruction = register(&Capability{
	ID:          "ai_infrastructure.construction",
	Path:        "ai-infrastructure/construction",
	Title:       "Construction spending: value of construction put in place (Census C30), including data centers and computer/electronic/electrical manufacturing",
	Description: "Value of construction put in place, monthly, seasonally adjusted annual rate, millions of current dollars, for every line of the Census Bureau's C30 workbooks privsatime.xlsx (private construction) and pubsatime.xlsx (public, state and local, federal). The lines this capability exists for: `Data center` (private office construction, published since January 2014) and `Computer/ electronic/ electrical` (private manufacturing construction; the Census category that holds semiconductor plants among other computer, electronic and electrical manufacturing facilities; it is not a count or a list of chip plants). The line hierarchy, implied in the workbook by column order only, is data: line_path, parent_line and level.",
	Grain:       "one published value (sector, line, month)",
	Cadence:     Monthly,
	Publisher:   "U.S. Census Bureau (Value of Construction Put in Place, C30)",
	AsOfRule:    "the release date in the workbooks' source line (\"Source: U.S. Census Bureau, Construction Spending, July 1, 2026\" gives 2026-07-01); the latest when the two workbooks differ",
	Partitions:  []string{"sector", "level"},
	Periods:     &Periods{Field: "period", Value: "value_musd"},
	NaturalKey:  []string{"sector", "line_path", "period"},
	Fields: []Field{
		{Name: "sector", Type: String, Filter: true, GroupBy: true, Enum: []string{"private", "public", "state_and_local", "federal"}, Description: "ownership: private (privsatime.xlsx); public (all public construction), state_and_local or federal (pubsatime.xlsx)"},
		{Name: "line", Type: String, Filter: true, GroupBy: true, Description: "the line's label as published, footnote digits dropped (\"Data center\", \"Computer/ electronic/ electrical\", \"Total Private Construction\")"},
		{Name: "line_path", Type: String, Filter: true, GroupBy: true, Codebook: "line_path", Description: "the line with its ancestors, joined by \" > \" (\"Total Private Construction > Nonresidential > Office > Data center\"); unique within a sector"},
		{Name: "parent_line", Type: String, Filter: true, GroupBy: true, Description: "the line this line is a part of (null for a sector's total)",
			Nulls: "a sector's total line, which is part of no other line"},
		{Name: "level", Type: Integer, Filter: true, GroupBy: true, Description: "depth in the hierarchy: 0 the sector's total, 1 residential/nonresidential, and so on"},
		{Name: "column_header", Type: String, Bookkeeping: true, Description: "the column's header cell as published (white space folded)"},
		{Name: "source_column", Type: String, Bookkeeping: true, Description: "spreadsheet column letter of the value in the cited row (the value is the cell at source_row, source_column)"},
		{Name: "observation_date", Type: Date, Description: "first day of the month"},
		{Name: "period", Type: String, Filter: true, GroupBy: true, Description: "YYYY-MM"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year"},
		{Name: "period_label", Type: String, Description: "the Date cell as published (\"May-26p\", \"Apr-26r\", \"Dec-18\")"},
		{Name: "mark", Type: String, Filter: true, GroupBy: true, Enum: []string{"preliminary", "revised", "not_marked"}, Description: "the mark on the month: p (preliminary), r (revised), or none"},
		{Name: "value_musd", Type: Number, Description: "value put in place, millions of current dollars, seasonally adjusted annual rate",
			Cell: &CellRule{ColumnBy: "source_column"}},
		{Name: "unit", Type: String, Description: "millions of USD, seasonally adjusted annual rate"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "sector, line path and period"},
		{Name: "source_row_number", Type: Integer, Description: "1-based row of the month in the workbook's sheet"},
	},
	Metrics: []Metric{
		{Name: "avg_value_musd", Unit: "USD millions, SAAR", Agg: Avg, Column: "value_musd", Description: "average of the published monthly values (an annual-rate level: the average over the 12 months of a year estimates that year's spending)"},
		{Name: "min_value_musd", Unit: "USD millions, SAAR", Agg: Min, Column: "value_musd", Description: "minimum published monthly value"},
		{Name: "max_value_musd", Unit: "USD millions, SAAR", Agg: Max, Column: "value_musd", Description: "maximum published monthly value"},
		{Name: "sum_value_musd", Unit: "USD millions, SAAR", Agg: Sum, Column: "value_musd", Description: "sum of the matched values of one month: meaningful over lines that do not contain one another (a parent line already includes its children); null over values of several months (not_additive_over_time)",
			OnePeriod: &Why{
				Reason:  "the values are seasonally adjusted annual rates, each the pace of a year's spending rather than that month's spending, so the values of several months add up to nothing spent",
				Instead: "for one month's sum, filter the observation range to that month (observation_date_from and observation_date_to, e.g. 2026-05) or add period to group_by; over one line, avg_value_musd is the average annual rate of those months (over the twelve months of a year it estimates that year's spending)",
			}},
		{Name: "observation_count", Unit: "count", Agg: CountNonNull, Column: "value_musd", Additive: true, Description: "number of published values"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of source values"},
	},
	DateRanges: []DateRange{{Name: "observation", Column: "observation_date"}},
	Rules: []string{
		"Values are seasonally adjusted annual rates in millions of current dollars, as published; a month's value is not that month's spending. A sum over several months is therefore not given: sum_value_musd is null over values of more than one month, with a not_additive_over_time note (filter one month, group by period, or read avg_value_musd).",
		"Lines nest (a sector's total contains residential and nonresidential, Office contains Data center): filter on one line_path or group by line_path; a sum over lines of different levels double counts. Details may not add to totals: not every type of construction is shown separately.",
		"`Computer/ electronic/ electrical` is the Census manufacturing category that includes semiconductor fabrication plants together with other computer, electronic and electrical manufacturing; it is not a count of chip plants.",
		"Preliminary (p) and revised (r) months are marked on each value (mark); the next release revises them.",
		"Only published values are rows: the Data center line has no value before January 2014 (blank cells), and pubsatime.xlsx writes 0 for the detailed public types before 2002 (\"not available\"): those cells are not served as values.",
		"census_c30_derived (a third party's extract of a later release) is not served: the agency's own workbook is.",
	},
})

package capability

// NaturalGasPrices is natural_gas.prices: one row per published price observation, in atoms
// (henry_hub_daily_spot, us_electric_power_monthly, state_electric_power_monthly).
var NaturalGasPrices = register(&Capability{
	ID:    "natural_gas.prices",
	Path:  "natural-gas/prices",
	Title: "Natural gas prices: Henry Hub daily spot and electric-power prices (U.S. and states)",
	Description: "Henry Hub daily spot price (EIA series RNGWHHD, USD per MMBtu) as atom henry_hub_daily_spot; U.S. price of natural gas delivered to electric power consumers (EIA series N3045US3, USD per Mcf, monthly) as atom us_electric_power_monthly; " +
		"the price of natural gas sold to electric power consumers in each state and DC (EIA series N3045<state>3, USD per Mcf, monthly) as atom state_electric_power_monthly.",
	Grain:     "one price observation (series, period)",
	Cadence:   Daily,
	Publisher: "U.S. Energy Information Administration",
	AsOfRule:  "the release date printed on each workbook's Contents sheet: each workbook is a document, and each release date an as_of whose snapshot holds the newest release of every workbook published by then (NG_PRI_SUM_DCU_NUS_M.xls released 4/29/2022 gives 2022-04-29; with the state workbook, 2023-02-28; with RNGWHHDd.xls released 7/10/2024, 2024-07-10)",
	Documents: Documents{Relation: Complement, Document: "one EIA workbook per series family, named by its file: RNGWHHDd.xls (Henry Hub daily spot, with its CSV export as a check), NG_PRI_SUM_DCU_NUS_M.xls (U.S. price summary), NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls (electric-power price by state); a later release of a workbook (the same file name, a later Release Date) replaces the earlier one",
		Overlap: "N3045US3, the U.S. electric-power price, is published in both the U.S. summary workbook and the state workbook: each month is served from the newest release that publishes it, and a month whose value a newer release revises keeps the earlier release's row cited beside it (note release_revised)"},
	NaturalKey: []string{"series_id", "period"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier"},
		{Name: "atom", Type: String, Filter: true, GroupBy: true, Enum: []string{"henry_hub_daily_spot", "us_electric_power_monthly", "state_electric_power_monthly"}, Description: "the price series family"},
		{Name: "series_id", Type: String, Filter: true, GroupBy: true, Description: "EIA source key (RNGWHHD, N3045US3, N3045<state>3 such as N3045TX3)"},
		{Name: "series_name", Type: String, Description: "series name as published"},
		{Name: "area", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "area the price is for: US, or the two-letter state (DC included) of a state series"},
		{Name: "frequency", Type: String, Filter: true, GroupBy: true, Enum: []string{"daily", "monthly"}, Description: "daily or monthly"},
		{Name: "observation_date", Type: Date, Description: "trading day (daily) or first day of the month (monthly; the workbook's date cell holds the 15th)"},
		{Name: "period", Type: String, Description: "YYYY-MM-DD (daily) or YYYY-MM (monthly)"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year of the observation"},
		{Name: "month", Type: String, Filter: true, GroupBy: true, Description: "calendar month of the observation, YYYY-MM"},
		{Name: "price", Type: Number, Description: "price as published (null where the cell is empty)",
			Cell: &CellRule{ColumnBy: "series_id"}}, // the state workbook holds one column per series
		{Name: "unit", Type: String, Filter: true, GroupBy: true, Description: "USD/MMBtu or USD/Mcf"},
		{Name: "release_date", Bookkeeping: true, Type: Date, Description: "release date printed on the workbook's Contents sheet"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "series id and period"},
		{Name: "source_row_number", Type: Integer, Description: "1-based row of the observation on sheet Data 1"},
		{Name: "raw_file_sha256", Type: String, Description: "sha256 of the raw workbook"},
	},
	Metrics: []Metric{
		{Name: "avg_price", Unit: "unit of the series", Agg: Avg, Column: "price", UnitColumn: "unit", Description: "average of the published prices (empty cells skipped)"},
		{Name: "min_price", Unit: "unit of the series", Agg: Min, Column: "price", UnitColumn: "unit", Description: "minimum published price"},
		{Name: "max_price", Unit: "unit of the series", Agg: Max, Column: "price", UnitColumn: "unit", Description: "maximum published price"},
		{Name: "observation_count", Unit: "count", Agg: CountNonNull, Column: "price", Additive: true, Description: "number of periods with a published price"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of source rows, including periods whose price cell is empty"},
	},
	DateRanges: []DateRange{{Name: "observation", Column: "observation_date"}},
	Partitions: []string{"atom", "unit"},
	Periods:    &Periods{Field: "period", Value: "price"},
	Rules: []string{
		"Prices are nominal and as published; the two atoms have different units (USD/MMBtu and USD/Mcf), so price metrics over a set that mixes them are null with a mixed_units note: filter or group by atom.",
		"Henry Hub values come from the agency's RNGWHHDd.xls workbook; the CSV export of the same series is checked to agree with it where both have a date.",
		"State electric-power prices are USD per Mcf as published (never converted to MMBtu); many states have blank months (withheld or not available), served as null prices: the latest value of a state is the last month whose price is not null. A grouped answer whose groups have prices for different numbers of periods (Arizona 3 months of 2022, North Dakota 12) says each group's number (periods_present), and blank prices among the matched rows are counted in a values_missing note.",
		"N3045US3 appears in two releases: the U.S. summary workbook (NG_PRI_SUM_DCU_NUS_M.xls, release 2022-04-29) and the state workbook (NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls, release 2023-02-28). Each month is served from the newest release that publishes it (release_date on every row); where the releases differ, an answer over the month carries a release_revised note with the earlier value and a citation of the earlier release's row as of its own date, and as_of 2022-04-29 still answers with the earlier release.",
		"Partial periods: a workbook ends with its latest data (Henry Hub through 2024-07-09): an answer over a year or month it covers in part carries a partial_period note.",
	},
})

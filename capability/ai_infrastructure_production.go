package capability

// AIInfrastructureProduction is ai_infrastructure.production: the Federal Reserve's G.17
// industrial production, capacity and capacity utilization of semiconductors and other
// electronic components (NAICS 3344), as distributed by FRED, one row per series and period.
var AIInfrastructureProduction = register(&Capability{
	ID:          "ai_infrastructure.production",
	Path:        "ai-infrastructure/production",
	Title:       "Semiconductor production, capacity and capacity utilization (Federal Reserve G.17, NAICS 3344)",
	Description: "Industrial production (index 2017=100, monthly IPG3344S and quarterly IPG3344SQ), industrial capacity (percent of 2017 output, CAPG3344S) and capacity utilization (percent of capacity, CAPUTLG3344S) of U.S. semiconductor and other electronic component manufacturing (NAICS 3344), seasonally adjusted, from the Federal Reserve Board's G.17 release as downloaded from FRED. One row per series and period, values and units as published. NAICS 3344 is wider than semiconductors: it also holds printed circuit boards and other electronic components (334412-334419).",
	Grain:       "one published observation (series, period)",
	Cadence:     Monthly,
	Publisher:   "Board of Governors of the Federal Reserve System (G.17 Industrial Production and Capacity Utilization), distributed by FRED (Federal Reserve Bank of St. Louis)",
	AsOfRule:    "the latest observation date among the snapshot's FRED files (a FRED CSV download carries no release date); each file's own vintage, the last period it holds, is on every row (vintage) and in the snapshot's sources",
	Documents:   Documents{Relation: Complement, Document: "one FRED download per G.17 series (IPG3344S, IPG3344SQ, CAPG3344S, CAPUTLG3344S), named by its series; a later download of a series restates its history and replaces the earlier one, and the series complement each other"},
	Partitions:  []string{"measure", "frequency"},
	NaturalKey:  []string{"series_id", "period"},
	Fields: []Field{
		{Name: "series_id", Type: String, Filter: true, GroupBy: true, Enum: []string{"IPG3344S", "IPG3344SQ", "CAPG3344S", "CAPUTLG3344S"}, Description: "FRED series identifier"},
		{Name: "series_name", Type: String, Description: "series title as FRED publishes it"},
		{Name: "measure", Type: String, Filter: true, GroupBy: true, Enum: []string{"industrial_production", "capacity", "capacity_utilization"}, Description: "what the series measures"},
		{Name: "frequency", Type: String, Filter: true, GroupBy: true, Enum: []string{"monthly", "quarterly"}, Description: "monthly or quarterly"},
		{Name: "naics", Key: KeyNAICS, Type: String, Description: "industry code of the series (3344: semiconductor and other electronic component manufacturing)"},
		{Name: "seasonal_adjustment", Type: String, Description: "SA: seasonally adjusted"},
		{Name: "observation_date", Type: Date, Description: "first day of the month or quarter, as the file writes it (observation_date column)"},
		{Name: "period", Type: String, Description: "YYYY-MM (monthly) or YYYY-Qn (quarterly)"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year of the period"},
		{Name: "value", Type: Number, Description: "value as published, in the row's unit"},
		{Name: "unit", Type: String, Filter: true, GroupBy: true, Enum: []string{"index 2017=100", "percent of 2017 output", "percent of capacity"}, Description: "unit of the series as FRED states it"},
		{Name: "vintage", Type: String, Filter: true, GroupBy: true, Description: "the file's vintage: \"observations through YYYY-MM\" (YYYY-Qn for the quarterly file), the last period of the FRED download the value was read from (G.17 revises history, so files of different vintages disagree on recent periods)",
			Cell: &CellRule{PerFile: "the vintage of the file the row was read from (its last period), the same on every row of the file"}},
		{Name: "distributor", Type: String, Bookkeeping: true, Description: "who distributed the file (FRED, Federal Reserve Bank of St. Louis); the publisher is the Federal Reserve Board"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "series id and period"},
		{Name: "source_row_number", Type: Integer, Description: "1-based line of the observation in the CSV file (line 1 is the header)"},
	},
	Metrics: []Metric{
		{Name: "avg_value", Unit: "unit of the series", Agg: Avg, Column: "value", UnitColumn: "unit", Description: "average of the published values (null over a set that mixes units: filter or group by series_id or unit)"},
		{Name: "min_value", Unit: "unit of the series", Agg: Min, Column: "value", UnitColumn: "unit", Description: "minimum published value"},
		{Name: "max_value", Unit: "unit of the series", Agg: Max, Column: "value", UnitColumn: "unit", Description: "maximum published value"},
		{Name: "observation_count", Unit: "count", Agg: CountNonNull, Column: "value", Additive: true, Description: "number of periods with a published value"},
		{Name: "vintage_count", Unit: "count", Agg: CountDistinct, Column: "vintage", Description: "number of distinct file vintages among the matched rows: above 1, the answer mixes vintages of G.17 (group by vintage to see which rows come from which file)"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of source rows"},
	},
	DateRanges: []DateRange{{Name: "observation", Column: "observation_date"}},
	Rules: []string{
		"Values are as published in each FRED download; the three series IPG3344S, CAPG3344S and IPG3344SQ come from one download and CAPUTLG3344S from a later one, so recent periods of capacity utilization need not equal production divided by capacity: vintage_count above 1 says an answer mixes vintages.",
		"The units differ by series (index 2017=100, percent of 2017 output, percent of capacity): value metrics over a set mixing them are null with a mixed_units note; filter or group by series_id.",
		"The Federal Reserve Board is the publisher; FRED is the distributor the files were downloaded from.",
		"NAICS 3344 includes more than semiconductors (bare printed circuit boards and other electronic components).",
	},
})

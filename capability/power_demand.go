package capability

// PowerDemand is power.demand: one row per published hourly demand value of an EIA-930
// respondent region, in UTC, hour ending.
var PowerDemand = register(&Capability{
	ID:    "power.demand",
	Path:  "power/demand",
	Title: "Hourly electricity demand by EIA-930 region or balancing authority (UTC, hour ending)",
	Description: "Hourly demand (MWh) of an EIA-930 respondent region as the agency's series EBA.<region>-ALL.D.H publishes it, and of each balancing authority in EIA's six-month BALANCE files: one row per respondent and hour, " +
		"timestamped in UTC at the END of the hour (hour ending), values as published.",
	Grain:     "one region-hour (UTC, hour ending)",
	Cadence:   Hourly,
	Publisher: "U.S. Energy Information Administration",
	AsOfRule:  "the UTC date of the latest hour ending in the file (the series as downloaded that day: 02/19/2022 19H gives 2022-02-19); EIA revises EIA-930 data later, so a later download is a new snapshot",
	Documents: Documents{Relation: Complement,
		Document: "one EIA-930 hourly demand CSV per region (Demand_for_<region>_hourly_-_UTC_time.csv), or one of EIA's six-month BALANCE files (EIA930_BALANCE_<year>_Jan_Jun.csv or _Jul_Dec.csv, every balancing authority's hours of that half-year, local time); " +
			"a later download of a region or of a half-year restates it and replaces the earlier one, and the regions and half-years complement each other",
		Overlap: "a region CSV and a six-month file may publish the same respondent and hour (the region CSV's hours run across half-years; a six-month file's respondents are balancing authorities, and a region's code where EIA lists one): " +
			"the hour is served from the newer publication (the later as_of), and a value it revises keeps the earlier publication's line cited beside it (note release_revised)",
		Kinds: []DocumentKind{
			{Name: "region CSV", Files: "Demand_for_<region>_hourly_-_UTC_time.csv", Match: `^Demand_for_.+_hourly_-_UTC_time\.csv$`},
			{Name: "six-month BALANCE file", Files: "EIA930_BALANCE_<year>_<Jan_Jun|Jul_Dec>.csv", Match: `^EIA930_BALANCE_\d{4}_(Jan_Jun|Jul_Dec)\.csv$`,
				Unserved: "no six-month file is in this snapshot: citeq ingest --fetch --since <date> downloads them from https://www.eia.gov/electricity/gridmonitor/sixMonthFiles/ into eia/eia930_balance, and ingest then serves each half-year beside the region CSVs"},
		}},
	NaturalKey: []string{"respondent", "hour_ending_utc"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier (eia930)"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "respondent", Key: KeyBalancingAuthority, Type: String, Filter: true, GroupBy: true, Description: "EIA-930 respondent code: a region's, read from the series id of a region CSV (CAL), or a balancing authority's, read from the Balancing Authority column of a six-month file (CISO)"},
		{Name: "respondent_name", Type: String, Description: "region name as the file's title gives it, e.g. California (region); null on a six-month file's rows (the file names no respondent)"},
		{Name: "series_id", Type: String, Filter: true, GroupBy: true, Description: "EIA series id, e.g. EBA.CAL-ALL.D.H (a six-month file's rows: EBA.<balancing authority>-ALL.D.H)"},
		{Name: "period_raw", Type: String, Bookkeeping: true, Description: "the hour as published, e.g. '02/19/2022 19H' (UTC, hour ending); a six-month file's UTC Time at End of Hour, e.g. '11/03/2024 9:00:00 AM'"},
		{Name: "hour_ending_utc", Type: String, Filter: true, Description: "end of the hour in UTC, ISO 8601, e.g. 2022-02-19T19:00:00Z (the hour covers 18:00-19:00 UTC)"},
		{Name: "utc_date", Type: Date, Description: "UTC calendar date of the hour (of its start: hour ending 00:00Z belongs to the previous day)"},
		{Name: "utc_month", Type: String, Filter: true, GroupBy: true, Description: "UTC month of the hour (of its start), YYYY-MM"},
		{Name: "utc_year", Type: Integer, Filter: true, GroupBy: true, Description: "UTC year of the hour (of its start)"},
		{Name: "local_time_zone", Type: String, Description: "IANA time zone of the region used for local dates (CAL: America/Los_Angeles); null for a region without one and on a six-month file's rows (the file gives each hour's local time, not its zone)"},
		{Name: "local_date", Type: Date, Description: "local calendar date of the hour (of its start) in local_time_zone"},
		{Name: "demand_mwh", Type: Number, Description: "demand in the hour (MWh) as published"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "source id, series id and UTC hour ending"},
		{Name: "source_row_number", Type: Integer, Description: "1-based line of the value in the CSV file"},
	},
	Metrics: []Metric{
		{Name: "demand_mwh", Unit: "MWh", Agg: Sum, Column: "demand_mwh", Additive: true, Description: "sum of hourly demand"},
		{Name: "mean_demand_mwh", Unit: "MWh per hour", Agg: Avg, Column: "demand_mwh", Description: "mean of the published hourly values (average MW over the hours present)"},
		{Name: "peak_demand_mwh", Unit: "MWh per hour", Agg: Max, Column: "demand_mwh", Description: "largest published hourly value"},
		{Name: "min_demand_mwh", Unit: "MWh per hour", Agg: Min, Column: "demand_mwh", Description: "smallest published hourly value"},
		{Name: "hours_present", Unit: "count", Agg: CountNonNull, Column: "demand_mwh", Additive: true, Description: "hours with a published value"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of published hours"},
	},
	DateRanges: []DateRange{
		{Name: "utc", Column: "utc_date", Instants: &demandHourEnding},
		{Name: "local", Column: "local_date", Instants: &demandHourEnding},
	},
	Rules: []string{
		"Timestamps are UTC and hour ending: '07/1/2015 08H' is the hour 07:00-08:00 UTC, served as hour_ending_utc 2015-07-01T08:00:00Z with utc_date 2015-07-01; hour ending 00:00Z belongs to the previous UTC date.",
		"utc_date_from/utc_date_to select whole UTC days (YYYY-MM-DD, YYYY-MM or YYYY); local_date_from/local_date_to whole local days of the region's time zone. A single hour is selected with the hour_ending_utc filter (a list of timestamps is allowed).",
		"Either range also takes RFC 3339 timestamps (2022-02-19T10:00:00Z, or with an offset: 2022-02-19T02:00:00-08:00), converted to UTC and compared with hour_ending_utc, bounds inclusive: _date_from=T keeps the hours ending at or after T, _date_to=T those ending at or before T, so from 2022-02-19T01:00:00Z to 2022-02-20T00:00:00Z is the UTC day 2022-02-19 (24 hours). A timestamp is an instant, so it selects the same hours in the utc and the local range; a date bound and a timestamp bound may be combined.",
		"Values are as published on the download day; EIA revises EIA-930 data, and the few very low values are the agency's reporting anomalies, kept.",
		"For daily and monthly sums, means and peaks with the hours present and expected, use power.demand_rollup.",
		"A region (e.g. CAL) is EIA's aggregate of its balancing authorities, not one balancing authority. The six-month files' respondents are balancing authorities (CISO), the region CSVs' regions: filter respondent (or series_id) to one kind before summing across respondents, or a balancing authority's demand is counted again in its region's.",
		"A six-month file's half-year is of local time, its rows keyed by their UTC hour: the hour a local clock repeats when it falls back is two rows, one per UTC hour.",
	},
})

// demandHourEnding is how power.demand's date ranges compare timestamp bounds: with the UTC
// end of each published hour.
var demandHourEnding = Instants{From: "hour_ending_utc", To: "hour_ending_utc",
	Convention: "hour_ending_utc is the UTC end of the published hour (the hour 18:00-19:00Z is 2022-02-19T19:00:00Z); a timestamp bound keeps the hours ending at or after _from and at or before _to, so the hours of the UTC day D end from D T01:00:00Z to D+1 T00:00:00Z"}

// rollupNotCited and rollupHoursExpected are why the sums and hours of power.demand_rollup are
// not recomputed from the cells its citations cite.
const (
	rollupNotCited = "a period's row cites one line of the hourly CSV, the line of its peak hour, while its sum and hours cover every hour of the period: " +
		"recompute them from power.demand, whose rows cite every hour (query power.demand over the period's hours and verify that aggregate)"
	rollupHoursExpected = "the hours a period has come from the calendar and the region's time zone, not from a cell; " +
		"the hours present are recomputed from power.demand, whose rows cite every hour of the period"
)

// PowerDemandRollup is power.demand_rollup: daily and monthly sums, means and peaks of the
// hourly rows of power.demand, in UTC and in the region's local time.
var PowerDemandRollup = register(&Capability{
	ID:    "power.demand_rollup",
	Path:  "power/demand-rollup",
	Title: "Hourly electricity demand rolled up by day and month, with hours present and expected",
	Description: "Daily and monthly sums, means and peaks of EIA-930 hourly demand, one row per region, granularity (day, month), time basis (utc, local) and period, " +
		"each with the hours present and the hours the period has, so a gap is visible and never averaged over silently.",
	Grain:      "one region, granularity, time basis and period",
	Cadence:    Daily,
	Publisher:  "U.S. Energy Information Administration",
	AsOfRule:   "the as_of of the hourly series it rolls up: the UTC date of the latest hour ending in the file",
	Documents:  Documents{Relation: Complement, Document: "one EIA-930 hourly demand CSV per region, rolled up (Demand_for_<region>_hourly_-_UTC_time.csv); a later download of a region restates it and replaces the earlier one, and the regions complement each other"},
	Partitions: []string{"granularity", "time_basis", "rollup_basis"},
	NaturalKey: []string{"respondent", "granularity", "time_basis", "period"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier (eia930)"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "respondent", Key: KeyBalancingAuthority, Type: String, Filter: true, GroupBy: true, Description: "EIA-930 respondent (region) code, e.g. CAL"},
		{Name: "respondent_name", Type: String, Description: "region name as the file's title gives it"},
		{Name: "series_id", Type: String, Filter: true, Description: "EIA series id of the hourly values"},
		{Name: "granularity", Type: String, Filter: true, GroupBy: true, Enum: []string{"day", "month"}, Description: "day or month"},
		{Name: "time_basis", Type: String, Filter: true, GroupBy: true, Enum: []string{"utc", "local"}, Description: "utc: periods are UTC days and months; local: days and months of the region's local time zone"},
		{Name: "time_zone", Type: String, Description: "UTC, or the IANA zone of local periods (CAL: America/Los_Angeles)"},
		{Name: "rollup_basis", Type: String, Filter: true, GroupBy: true,
			Description: "granularity and time zone together, e.g. 'day UTC' or 'month America/Los_Angeles': the unit column of the sums, so a set mixing bases has no sum"},
		{Name: "period", Type: String, Filter: true, GroupBy: true, Description: "YYYY-MM-DD (day) or YYYY-MM (month) in the time basis"},
		{Name: "period_start_date", Type: Date, Description: "first day of the period"},
		{Name: "demand_mwh", Type: Number, Description: "sum of the hourly values present in the period (MWh)"},
		{Name: "hours_present", Type: Number, Description: "hours of the period with a published value"},
		{Name: "hours_expected", Type: Number, Description: "hours the period has (24 for a UTC day; 23 or 25 on a local day when clocks change)"},
		{Name: "hours_missing", Type: Number, Description: "hours_expected - hours_present"},
		{Name: "complete", Type: Boolean, Filter: true, Description: "true when every hour of the period is present"},
		{Name: "mean_mwh", Type: Number, Description: "demand_mwh / hours_present: the mean over the hours present (see hours_missing)"},
		{Name: "peak_mwh", Type: Number, Description: "largest hourly value of the period, read from the line this row cites"},
		{Name: "peak_period_raw", Type: String, Bookkeeping: true, Description: "the peak hour as published (UTC, hour ending)"},
		{Name: "peak_hour_ending_utc", Type: String, Description: "the peak hour's end in UTC, ISO 8601 (the earliest on a tie)"},
		{Name: "first_hour_ending_utc", Type: String, Description: "first hour present in the period (UTC, hour ending)"},
		{Name: "last_hour_ending_utc", Type: String, Description: "last hour present in the period (UTC, hour ending)"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "source id, series id, granularity, time basis and period"},
		{Name: "source_row_number", Type: Integer, Description: "1-based CSV line of the period's peak hour (the line this row cites)"},
	},
	Metrics: []Metric{
		{Name: "demand_mwh", Unit: "MWh", Agg: Sum, Column: "demand_mwh", UnitColumn: "rollup_basis", Additive: true, Description: "sum of the periods' demand (null over a set that mixes rollup bases)",
			NotRecomputable: rollupNotCited},
		{Name: "mean_mwh", Unit: "MWh per hour", Agg: Ratio, Column: "demand_mwh", Denominator: "hours_present", Description: "sum of demand divided by the sum of hours present: the mean hourly demand over the hours present, never an average of means",
			NotRecomputable: rollupNotCited},
		{Name: "peak_mwh", Unit: "MWh per hour", Agg: Max, Column: "peak_mwh", Description: "largest hourly value in the matched periods"},
		{Name: "hours_present", Unit: "hours", Agg: Sum, Column: "hours_present", UnitColumn: "rollup_basis", Additive: true, Description: "hours with a published value",
			NotRecomputable: rollupNotCited},
		{Name: "hours_expected", Unit: "hours", Agg: Sum, Column: "hours_expected", UnitColumn: "rollup_basis", Additive: true, Description: "hours the matched periods have",
			NotRecomputable: rollupHoursExpected},
		{Name: "hours_missing", Unit: "hours", Agg: Sum, Column: "hours_missing", UnitColumn: "rollup_basis", Additive: true, Description: "hours expected but not published",
			NotRecomputable: rollupHoursExpected},
		{Name: "period_count", Unit: "count", Agg: Count, Additive: true, Description: "number of periods"},
	},
	DateRanges: []DateRange{{Name: "period", Column: "period_start_date", Instants: &Instants{From: "first_hour_ending_utc", To: "last_hour_ending_utc",
		Convention: "hours are UTC and hour ending; a period is kept whole or not at all: period_date_from=T keeps the periods whose first hour present ends at or after T, period_date_to=T those whose last hour present ends at or before T (a UTC day's hours end from 01:00Z to 24:00Z, i.e. 00:00Z of the next day)"}}},
	Rules: []string{
		"period_date_from/period_date_to take dates (compared with period_start_date) or RFC 3339 timestamps (converted to UTC, bounds inclusive): a timestamp selects whole periods, those whose first hour present ends at or after the lower bound and whose last hour present ends at or before the upper one, in either time basis.",
		"Choose one granularity and one time basis (filter rollup_basis, or granularity and time_basis): every hour is in one day and one month of each basis, so a set mixing bases counts it more than once; the sums are then null with a mixed_units note.",
		"Local days and months are the caller's choice (time_basis = local) and the answer's rows state the zone (time_zone, rollup_basis); a local day has 23 or 25 hours when clocks change, and hours_expected says so.",
		"Hours are UTC hour ending: an hour belongs to the day (and month) of its start. The first and last periods of the series are partial: hours_missing and complete say so, and mean_mwh is over the hours present only.",
		"Each row cites the CSV line of its peak hour: peak_mwh is that cell; the sum and the mean are re-derived from power.demand over the same period.",
	},
})

package capability

// PowerCapacityFactor is the capacity-factor capability. The contract gives it a path
// (power/capacity-factor) but no identifier; by the contract's own convention (domain.name,
// with the path's hyphen as an underscore) it is power.capacity_factor, and its MCP tools are
// describe_power_capacity_factor_v1 and query_power_capacity_factor_v1.
//
// It is derived: the service computes it at query time from the served snapshots of
// power.generation (plant-total net generation, EIA-923) and power.capacity (operating
// generators, EIA-860M) of the same months, so it has no adapter and no snapshot of its own.
// Its rows are the rows of both inputs it joins, each citing its own file.
var PowerCapacityFactor = register(&Capability{
	ID:    "power.capacity_factor",
	Path:  "power/capacity-factor",
	Title: "Capacity factor: net generation divided by (operating nameplate × hours)",
	Description: "Net generation divided by operating nameplate capacity times the calendar hours of the period, per plant and month, computed at query time from power.generation (EIA-923 plant totals) and power.capacity (the EIA-860M inventory of the same month). " +
		"The contract lists this capability by path only; its identifier power.capacity_factor (tools describe_power_capacity_factor_v1, query_power_capacity_factor_v1) follows the contract's convention.",
	Grain:      "one input row: a plant's net generation in a month (a power.generation plant total) or one of its operating generators that month (a power.capacity row), for plant-months that both inputs have",
	Cadence:    Monthly,
	Publisher:  "U.S. Energy Information Administration",
	AsOfRule:   "an as_of date of one of the inputs: the answer joins the power.generation and power.capacity snapshots whose as_of is on or before it (latest: the newest of both); records and citations carry each input row's own as_of",
	Documents:  Documents{Relation: Derived, Document: "none of its own: the power.generation and power.capacity snapshots on or before the as_of asked"},
	Inputs:     []string{"power.generation", "power.capacity"},
	NaturalKey: []string{"side", "month", "eia_plant_id", "generator_id"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier of the input row (eia_api_v2, eia860m)"},
		{Name: "as_of", Type: Date, Description: "as_of of the input snapshot the row comes from"},
		{Name: "side", Type: String, Enum: []string{"generation", "capacity"},
			Description: "generation: a power.generation plant total (net generation); capacity: a power.capacity operating generator (nameplate)"},
		{Name: "month", Type: String, Filter: true, GroupBy: true, Description: "calendar month, YYYY-MM: the generation period, and the capacity inventory's report month"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year of the month"},
		{Name: "period_date", Type: Date, Description: "first day of the month"},
		{Name: "eia_plant_id", Key: KeyEIAPlantID, Type: Integer, Filter: true, GroupBy: true, Description: "EIA plant id (the join key: plantCode of EIA-923, Plant ID of EIA-860M)"},
		{Name: "plant_name", Key: NamePlant, Type: String, Description: "plant name as the input row publishes it"},
		{Name: "state", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "plant state as the input row publishes it"},
		{Name: "generator_id", Type: String, Description: "Generator ID (capacity rows; null on generation rows)"},
		{Name: "technology", Type: String, Description: "technology of the generator (capacity rows)"},
		{Name: "energy_source_code", Type: String, Description: "energy source code of the generator (capacity rows; generation rows are plant totals, ALL)"},
		{Name: "prime_mover_code", Type: String, Description: "prime mover code of the generator (capacity rows)"},
		{Name: "status_code", Type: String, Description: "status of the generator on the inventory's Operating sheet, e.g. operating.OP, operating.SB (capacity rows)"},
		{Name: "net_generation_mwh", Type: Number, Description: "net generation of the plant in the month (MWh), as published (generation rows; may be negative)"},
		{Name: "nameplate_mw", Type: Number, Description: "nameplate capacity of the generator (MW), as published (capacity rows)"},
		{Name: "hours", Type: Number, Description: "calendar hours of the month: its days × 24, daylight saving not applied (744 for October, 696 for February of a leap year)"},
		{Name: "available_mwh", Type: Number, Description: "nameplate_mw × hours (capacity rows)"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "the input row's own source_record_key"},
		{Name: "source_row_number", Type: Integer, Description: "the input row's row in its source file"},
	},
	Metrics: []Metric{
		{Name: "capacity_factor", Unit: "ratio", Agg: Ratio, Column: "net_generation_mwh", Denominator: "available_mwh",
			Description: "sum of plant-total net generation divided by the sum of nameplate × hours over the matched plant-months: a ratio of sums, never an average of ratios"},
		{Name: "net_generation_mwh", Unit: "MWh", Agg: Sum, Column: "net_generation_mwh", Additive: true, Description: "sum of plant-total net generation"},
		{Name: "available_mwh", Unit: "MWh", Agg: Sum, Column: "available_mwh", Additive: true, Description: "sum of operating nameplate × calendar hours"},
		{Name: "plant_count", Unit: "count", Agg: CountDistinct, Column: "eia_plant_id", Description: "distinct plants"},
		{Name: "plant_month_count", Unit: "count", Agg: CountNonNull, Column: "net_generation_mwh", Additive: true, Description: "plant-months: generation rows"},
		{Name: "generator_month_count", Unit: "count", Agg: CountNonNull, Column: "nameplate_mw", Additive: true, Description: "generator-months: capacity rows"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "input rows of both sides"},
	},
	DateRanges: []DateRange{{Name: "period", Column: "period_date"}},
	Rules: []string{
		"capacity_factor = sum of net generation / sum of (operating nameplate × hours), over the plant-months both inputs have; it is a ratio of sums, never an average of per-plant ratios, and is not additive across groups.",
		"Generation is the plant total (power.generation level plant_total: energy source and prime mover ALL), one row per plant and month, so nothing is counted twice; net generation is as published, negative values included. Its scope is the plant, so the capability filters and groups by plant, state and month only, never by fuel or prime mover.",
		"Operating nameplate is the sum of the nameplate of the plant's generators on the Operating sheet (power.capacity lifecycle operating: every status on that sheet, standby and out of service included) of the EIA-860M inventory whose report month is the month: a month is joined only with the inventory of that very month, never a nearer one.",
		"Hours are the calendar hours of the month: its days × 24 (October 744, February 672, or 696 in a leap year); daylight saving is not applied, so March and November count 744 and 720 hours, as their days do. The period of both inputs is the calendar month.",
		"Every month asked (period_date_from/_to, month or year; without them, every month either input has) must be on both sides within the filters: otherwise the query is refused with 400 invalid_parameter naming the side that lacks which months and the months and states each side has.",
		"A plant with generation but no operating generator in the month's inventory, or with operating generators but no generation row, is left out of the join; summary.notes says how many plants and how much net generation or nameplate each side left out (join_unmatched).",
		"Rows are the inputs' rows, each cited to its own file with its own snapshot's as_of: the citations of an answer come from both sides (the EIA-923 API response and the EIA-860M workbook). verify_aggregate does not take this capability's citations: verify each row with the evidence endpoint, or query power.generation and power.capacity.",
		"Does not answer: capacity factor by fuel, technology or prime mover (generation is taken at the plant level), net summer or winter capacity factors, hourly or daily factors.",
	},
})

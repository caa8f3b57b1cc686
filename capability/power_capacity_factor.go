package capability

// PowerCapacityFactor is the capacity-factor capability. The contract gives it a path
// (power/capacity-factor) but no identifier; by the contract's own convention (domain.name,
// with the path's hyphen as an underscore) it is power.capacity_factor, and its MCP tools are
// describe_power_capacity_factor_v1 and query_power_capacity_factor_v1.
//
// It divides net generation by operating nameplate times hours, so it joins power.generation
// (EIA-923) with power.capacity (EIA-860M) for the same period and scope; the service does not
// compute that join yet, and the files ingested cover different periods: it is described but
// not served.
var PowerCapacityFactor = register(&Capability{
	ID:    "power.capacity_factor",
	Path:  "power/capacity-factor",
	Title: "Capacity factor: net generation divided by (operating nameplate × hours)",
	Description: "Net generation divided by operating nameplate capacity times the hours of the period. " +
		"The contract lists this capability by path only; its identifier power.capacity_factor (tools describe_power_capacity_factor_v1, query_power_capacity_factor_v1) follows the contract's convention. " +
		"Not served until the join of power.generation and power.capacity over one period is computed.",
	Grain:      "one generator-month: net generation with the generator's operating nameplate and the hours of the month",
	Cadence:    Monthly,
	Publisher:  "U.S. Energy Information Administration",
	AsOfRule:   "the later of the generation and the capacity snapshots' as_of",
	Unserved:   "computing it joins power.generation with power.capacity for the same period, which the service does not do yet; and the files ingested do not overlap (generation: Colorado 2022-08..2022-12; capacity: May 2016)",
	NaturalKey: []string{"eia_plant_id", "generator_id", "month"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "eia_plant_id", Type: Integer, Filter: true, Description: "EIA plant id"},
		{Name: "generator_id", Type: String, Filter: true, Description: "Generator ID"},
		{Name: "state", Type: String, Filter: true, GroupBy: true, Description: "plant state as reported"},
		{Name: "technology", Type: String, Filter: true, GroupBy: true, Description: "technology as reported"},
		{Name: "energy_source_code", Type: String, Filter: true, GroupBy: true, Codebook: "energy_source_code", Description: "Energy Source Code"},
		{Name: "prime_mover_code", Type: String, Filter: true, GroupBy: true, Codebook: "prime_mover_code", Description: "Prime Mover Code"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year"},
		{Name: "month", Type: String, Filter: true, GroupBy: true, Description: "calendar month, YYYY-MM"},
		{Name: "period_date", Type: Date, Description: "first day of the month"},
		{Name: "net_generation_mwh", Type: Number, Description: "net generation in the month (MWh), as reported"},
		{Name: "nameplate_mw", Type: Number, Description: "operating nameplate capacity (MW)"},
		{Name: "hours", Type: Number, Description: "hours in the month"},
		{Name: "available_mwh", Type: Number, Description: "nameplate_mw × hours"},
		{Name: "raw_file_sha256", Type: String, Description: "sha256 of the raw workbook"},
	},
	Metrics: []Metric{
		{Name: "capacity_factor", Unit: "ratio", Agg: Ratio, Column: "net_generation_mwh", Denominator: "available_mwh", Additive: false,
			Description: "sum of net generation divided by the sum of nameplate × hours over the matched generator-months"},
		{Name: "net_generation_mwh", Unit: "MWh", Agg: Sum, Column: "net_generation_mwh", Additive: true, Description: "sum of net generation"},
		{Name: "available_mwh", Unit: "MWh", Agg: Sum, Column: "available_mwh", Additive: true, Description: "sum of nameplate × hours"},
		{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "count of generator-months"},
	},
	DateRanges: []DateRange{{Name: "period", Column: "period_date"}},
	Rules: []string{
		"capacity_factor is a ratio of sums, never an average of per-generator ratios, and is not additive across groups.",
	},
})

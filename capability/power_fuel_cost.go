package capability

// FuelCostLayout quotes the agency's page-5 file layout for the columns whose units the
// capability states: EIA's definitions of QUANTITY, Average Heat Content, the sulfur, ash and
// mercury contents and FUEL_COST, as reproduced word for word in public descriptions of the
// workbook (the layout itself is not among the raw files).
const FuelCostLayout = "EIA's page-5 file layout: QUANTITY \"Quantity of fuel received in tons, barrel, or Mcf\"; " +
	"Average Heat Content \"Heat content of the fuel in millions of Btus per physical unit\"; " +
	"Average Sulfur Content \"Sulfur content percentage by weight\"; Average Ash Content \"Ash content percentage by weight\"; " +
	"Average Mercury Content \"Mercury content in parts per million (ppm)\"; " +
	"FUEL_COST \"All costs incurred in the purchase and delivery of the fuel to the plant in cents per million Btu (MMBtu) to the nearest 0.1 cent\". " +
	"It gives no unit for Moisture Content and Chlorine Content."

// PowerFuelCost is power.fuel_cost: one row per published fuel receipt of Form EIA-923 page 5
// (Fuel Receipts and Costs).
var PowerFuelCost = register(&Capability{
	ID:    "power.fuel_cost",
	Path:  "power/fuel-cost",
	Title: "Fuel receipts and delivered fuel costs by plant (Form EIA-923 page 5)",
	Description: "One row per fuel receipt published on page 5 (Fuel Receipts and Costs) of the EIA-923 Schedules 2, 3, 4, 5 workbook: plant and month, purchase type, " +
		"energy source and fuel group, supplier and coal mine, physical quantity with its unit, heat, sulfur, ash and mercury content, and the delivered cost in cents per MMBtu as published. " +
		"Served from the agency's workbook when it is ingested; here, from a DERIVED excerpt: 29 January-2024 coal receipts copied verbatim, with page 5's 32 headers, from a third party's CSV extract of " +
		"EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx (f923_2024.zip). Every citation of the excerpt says so (derived: true, EIA's address of the workbook as original_url) and hashes the excerpt as served. " +
		"It is a selection, not the month's receipts: sums over it are sums over those 29 rows.",
	Grain:      "one published receipt: plant, month, supplier and purchase, as the agency lists it (no row dropped or merged)",
	Cadence:    Monthly,
	Publisher:  "U.S. Energy Information Administration",
	AsOfRule:   "the last day of the month the workbook's name covers (EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx gives 2024-12-31); an excerpt takes the as_of of the workbook it was copied from",
	Documents:  Documents{Relation: Complement, Document: "one EIA-923 Schedules 2-5 workbook per data year; a later release of the year (a later month, the final release) replaces the earlier one, and the years complement each other"},
	NaturalKey: []string{"year", "source_row_number"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier (eia923)"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "YEAR"},
		{Name: "month", Type: Integer, Description: "MONTH (1-12)"},
		{Name: "period", Type: String, Filter: true, GroupBy: true, Description: "YYYY-MM of the receipt"},
		{Name: "period_date", Type: Date, Description: "first day of the receipt's month"},
		{Name: "eia_plant_id", Key: KeyEIAPlantID, Type: Integer, Filter: true, Description: "Plant Id"},
		{Name: "plant_name", Key: NamePlant, Type: String, Description: "Plant Name as published"},
		{Name: "plant_state", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "Plant State"},
		{Name: "purchase_type", Type: String, Filter: true, GroupBy: true, Description: "Purchase Type as published (C contract, NC new contract, S spot, T tolling)"},
		{Name: "contract_expiration_date", Type: String, Description: "Contract Expiration Date as published (MMYY)"},
		{Name: "energy_source_code", Type: String, Filter: true, GroupBy: true, Description: "ENERGY_SOURCE code"},
		{Name: "fuel_group", Type: String, Filter: true, GroupBy: true, Description: "FUEL_GROUP as published (Coal, Natural Gas, Petroleum, Petroleum Coke, Other Gas)"},
		{Name: "coalmine_type", Type: String, Description: "Coalmine Type as published"},
		{Name: "coalmine_state", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "Coalmine State as published"},
		{Name: "coalmine_county", Type: String, Description: "Coalmine County as published"},
		{Name: "coalmine_msha_id", Type: String, Description: "Coalmine Msha Id as published"},
		{Name: "coalmine_name", Type: String, Description: "Coalmine Name as published"},
		{Name: "supplier", Type: String, Filter: true, Description: "SUPPLIER as published"},
		{Name: "quantity", Type: Number, Description: "QUANTITY as published, in quantity_unit"},
		{Name: "quantity_unit", Type: String, Filter: true, GroupBy: true, Enum: []string{"short tons", "barrels", "Mcf"},
			Description: "unit of QUANTITY by fuel group: EIA's page-5 layout gives QUANTITY in \"tons, barrel, or Mcf\"; tons for coal and petroleum coke (EIA's tons are short tons: its own aggregate of these receipts, the Coal Data Browser's price by plant state, is in dollars per short ton), barrels for petroleum, Mcf for natural gas and other gas"},
		{Name: "average_heat_content_mmbtu_per_unit", Type: Number, Description: "Average Heat Content: MMBtu per unit of quantity (the layout: \"millions of Btus per physical unit\")"},
		{Name: "average_sulfur_content_pct", Type: Number, Description: "Average Sulfur Content: percent by weight"},
		{Name: "average_ash_content_pct", Type: Number, Description: "Average Ash Content: percent by weight"},
		{Name: "average_mercury_content_ppm", Type: Number, Description: "Average Mercury Content: parts per million"},
		{Name: "fuel_cost_cents_per_mmbtu", Type: Number, Description: "FUEL_COST: delivered cost in cents per MMBtu as published; null where withheld (fuel_cost_status), never 0"},
		{Name: "fuel_cost_status", Type: String, Filter: true, GroupBy: true, Enum: []string{"published", "withheld", "blank"},
			Description: "published: FUEL_COST holds a cost; withheld: it holds EIA's mark '.', the cost not published (EIA withholds it for the receipts of unregulated plants, Regulated UNR); blank: the cell is empty"},
		{Name: "mmbtu", Type: Number, Description: "quantity × average heat content (MMBtu), computed",
			Cell: &CellRule{Product: []string{"quantity", "average_heat_content_mmbtu_per_unit"}}},
		{Name: "mmbtu_with_cost", Type: Number, Description: "mmbtu where a delivered cost is published, else null: the denominator of the average cost",
			Cell: &CellRule{Product: []string{"quantity", "average_heat_content_mmbtu_per_unit"}, Present: []string{"fuel_cost_cents_per_mmbtu"}}},
		{Name: "delivered_cost_usd", Type: Number, Description: "mmbtu × fuel cost / 100 (USD), computed; null where the cost is withheld",
			Cell: &CellRule{Product: []string{"quantity", "average_heat_content_mmbtu_per_unit", "fuel_cost_cents_per_mmbtu"}, Divide: 100}},
		{Name: "regulated", Type: String, Filter: true, GroupBy: true, Description: "Regulated as published (REG, UNR)"},
		{Name: "operator_name", Key: NameUtility, Type: String, Description: "Operator Name as published"},
		{Name: "operator_id", Key: KeyEIAUtilityID, Type: Integer, Filter: true, Description: "Operator Id"},
		{Name: "reporting_frequency", Type: String, Description: "Reporting Frequency as published (M, A)"},
		{Name: "primary_transportation_mode", Type: String, Filter: true, GroupBy: true, Description: "Primary Transportation Mode as published"},
		{Name: "secondary_transportation_mode", Type: String, Description: "Secondary Transportation Mode as published"},
		{Name: "natural_gas_supply_contract_type", Type: String, Description: "Natural Gas Supply Contract Type as published"},
		{Name: "natural_gas_delivery_contract_type", Type: String, Description: "Natural Gas Delivery Contract Type as published"},
		{Name: "moisture_content", Type: Number, Description: "Moisture Content as published (coal); EIA's page-5 layout text found here states no unit for it, so none is given"},
		{Name: "chlorine_content", Type: Number, Description: "Chlorine Content as published (coal); EIA's page-5 layout text found here states no unit for it, so none is given"},
		{Name: "balancing_authority_code", Key: KeyBalancingAuthority, Type: String, Filter: true, GroupBy: true, Description: "Balancing Authority Code as published"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "source id, year and row of the receipt"},
		{Name: "source_row_number", Type: Integer, Description: "1-based Excel row of the receipt on page 5"},
	},
	Metrics: []Metric{
		{Name: "receipt_count", Unit: "count", Agg: Count, Additive: true, Description: "number of published receipts"},
		{Name: "quantity", Unit: "quantity_unit", Agg: Sum, Column: "quantity", UnitColumn: "quantity_unit", Additive: true, Description: "sum of quantities (null over a set mixing units)"},
		{Name: "mmbtu", Unit: "MMBtu", Agg: Sum, Column: "mmbtu", Additive: true,
			Description: "sum of heat received (QUANTITY x Average Heat Content of each receipt: computed from two cells, which the aggregate evidence does not recompute; the records cite both)"},
		{Name: "delivered_cost_usd", Unit: "USD", Agg: Sum, Column: "delivered_cost_usd", Additive: true, NullNote: "fuel_cost_not_published",
			Description: "sum of delivered cost of the receipts whose cost is published; the fuel_cost_not_published note counts the matched receipts left out (cost withheld or blank)"},
		{Name: "average_cost_usd_per_mmbtu", Unit: "USD/MMBtu", Agg: Ratio, Column: "delivered_cost_usd", Denominator: "mmbtu_with_cost", NullNote: "fuel_cost_not_published",
			Description: "delivered cost divided by the heat of the receipts whose cost is published (a heat-weighted average, never an average of prices); the fuel_cost_not_published note counts the receipts left out"},
		{Name: "cost_published_count", Unit: "count", Agg: CountNonNull, Column: "fuel_cost_cents_per_mmbtu", Additive: true, Description: "receipts whose delivered cost is published"},
	},
	DateRanges: []DateRange{{Name: "period", Column: "period_date"}},
	Rules: []string{
		"One row per receipt as published: none is dropped or merged, and the agency's own state or national aggregates (such as the Coal Data Browser's state-quarter prices) are not receipts and are never served here.",
		"QUANTITY is in short tons, barrels or Mcf by fuel group (quantity_unit); a sum over a set mixing units is null. Heat (mmbtu) and cost (USD) add up across fuels.",
		"FUEL_COST is published in cents per MMBtu and kept so; delivered_cost_usd and the average cost are computed from it and the receipt's heat, and leave out receipts whose cost is withheld ('.', fuel_cost_status withheld) or blank: the answer's fuel_cost_not_published note counts them. A withheld cost is null, never 0.",
		"Units are those of " + FuelCostLayout,
		"The excerpt served here (eia923_page5_derived/coal_receipts_2024_page5_EXCERPT.csv) is derived: 29 coal receipts of January 2024 that a third party's script copied verbatim from the 2024 Final workbook, a selection of that month's receipts, not all of them. The agency's own workbook, when ingested, supersedes the excerpt of it.",
	},
})

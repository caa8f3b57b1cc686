package capability

// The three import capabilities read the Census Bureau's international trade API
// (timeseries/intltrade/imports/hs) for their commodities; they share one shape.

// tradeUnserved says why a trade capability has no snapshot yet.
const tradeUnserved = "no response of the Census international trade API (imports by HS commodity and country) has been ingested yet: `citeq ingest --fetch` downloads it from api.census.gov into aiinfra_robotics/census_trade/"

// AIInfrastructureTrade is ai_infrastructure.trade: U.S. imports of semiconductors (HS 8541,
// 8542) by country of origin, monthly.
var AIInfrastructureTrade = register(tradeCapability("ai_infrastructure.trade",
	"Semiconductor imports by country of origin (HS 8541, 8542)",
	"U.S. monthly imports of semiconductor devices (HS 8541: diodes, transistors, photosensitive devices, LEDs) and electronic integrated circuits (HS 8542), by country of origin, from the Census Bureau's international trade API: value in USD and quantity with its unit where published, general imports and imports for consumption kept apart.",
	[]string{"8541", "8542"}))

// AIInfrastructureEquipmentTrade is ai_infrastructure.equipment_trade: U.S. imports of
// semiconductor-manufacturing equipment (HS 8486) by country of origin, monthly.
var AIInfrastructureEquipmentTrade = register(tradeCapability("ai_infrastructure.equipment_trade",
	"Semiconductor-manufacturing equipment imports by country of origin (HS 8486)",
	"U.S. monthly imports of machines and apparatus for manufacturing semiconductor boules, wafers, devices and integrated circuits and flat panel displays (HS 8486), by country of origin, from the Census Bureau's international trade API: value in USD and quantity with its unit where published, general imports and imports for consumption kept apart.",
	[]string{"8486"}))

// RoboticsTrade is robotics.trade: U.S. imports of industrial robots (HS 847950) by country
// of origin, monthly, in dollars and counts.
var RoboticsTrade = register(tradeCapability("robotics.trade",
	"Industrial robot imports by country of origin (HS 847950), dollars and counts",
	"U.S. monthly imports of industrial robots not elsewhere specified (HS 847950), by country of origin, from the Census Bureau's international trade API: value in USD and quantity (number of units, where published), general imports and imports for consumption kept apart.",
	[]string{"847950"}))

func tradeCapability(id, title, description string, commodities []string) *Capability {
	path := map[string]string{
		"ai_infrastructure.trade":           "ai-infrastructure/trade",
		"ai_infrastructure.equipment_trade": "ai-infrastructure/equipment-trade",
		"robotics.trade":                    "robotics/trade",
	}[id]
	return &Capability{
		ID:          id,
		Path:        path,
		Title:       title,
		Description: description,
		Grain:       "one published line of the API response (commodity, country or country aggregate, month)",
		Cadence:     Monthly,
		Publisher:   "U.S. Census Bureau, Economic Indicators Division (U.S. International Trade in Goods)",
		AsOfRule:    "the first day of the latest month among the snapshot's responses (an API response carries no release date)",
		Documents:   Documents{Relation: Complement, Document: "one Census trade API response per HS commodity (imports_hs<code>.json: every country and month from 2024-01 on); a later response for a commodity restates it and replaces the earlier one, and the commodities complement each other"},
		Partitions:  []string{"country_kind"},
		NaturalKey:  []string{"commodity", "country_code", "period"},
		Fields: []Field{
			{Name: "commodity", Type: String, Filter: true, GroupBy: true, Enum: commodities, Description: "HS commodity code (I_COMMODITY)"},
			{Name: "commodity_description", Type: String, Description: "the commodity's description as the API gives it (I_COMMODITY_LDESC)"},
			{Name: "country_code", Type: String, Filter: true, GroupBy: true, Description: "Census country code (CTY_CODE); \"-\" is the total for all countries, 0003-0028 country groupings, 1XXX-7XXX continents"},
			{Name: "country_name", Type: String, Filter: true, GroupBy: true, Description: "country or aggregate name as published (CTY_NAME)"},
			{Name: "country_kind", Type: String, Filter: true, GroupBy: true, Enum: []string{"country", "all_countries_total", "country_grouping", "continent"}, Description: "whether the line is one country of origin or an aggregate the API also returns: sum over country_kind country only"},
			{Name: "observation_date", Type: Date, Description: "first day of the month"},
			{Name: "period", Type: String, Description: "YYYY-MM (the API's time)"},
			{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year"},
			{Name: "general_imports_usd", Type: Number, Description: "general imports, customs value, USD (GEN_VAL_MO)"},
			{Name: "consumption_imports_usd", Type: Number, Description: "imports for consumption, customs value, USD (CON_VAL_MO)"},
			{Name: "general_quantity", Type: Number, Description: "general imports, first quantity (GEN_QY1_MO), in quantity_unit; null where not published"},
			{Name: "consumption_quantity", Type: Number, Description: "imports for consumption, first quantity (CON_QY1_MO), in quantity_unit; null where not published"},
			{Name: "quantity_unit", Type: String, Filter: true, GroupBy: true, Description: "unit of the quantities as published (UNIT_QY1: NO number, KG kilograms, ...)"},
			{Name: "general_quantity_flag", Type: String, Description: "the API's flag on the general-imports quantity (GEN_QY1_MO_FLAG) as published"},
			{Name: "consumption_quantity_flag", Type: String, Description: "the API's flag on the consumption quantity (CON_QY1_MO_FLAG) as published"},
			{Name: "source_record_key", Type: String, Unique: true, Description: "commodity, country code and month"},
			{Name: "source_row_number", Type: Integer, Description: "1-based element of the response array (1 is the header row)"},
		},
		Metrics: []Metric{
			{Name: "general_imports_usd", Unit: "USD", Agg: Sum, Column: "general_imports_usd", Additive: true, Description: "sum of general imports value"},
			{Name: "consumption_imports_usd", Unit: "USD", Agg: Sum, Column: "consumption_imports_usd", Additive: true, Description: "sum of imports for consumption value"},
			{Name: "general_quantity", Unit: "unit of the quantity", Agg: Sum, Column: "general_quantity", UnitColumn: "quantity_unit", Additive: true, Description: "sum of general imports quantity (null over a set mixing units)"},
			{Name: "consumption_quantity", Unit: "unit of the quantity", Agg: Sum, Column: "consumption_quantity", UnitColumn: "quantity_unit", Additive: true, Description: "sum of imports for consumption quantity (null over a set mixing units)"},
			{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of response lines"},
		},
		DateRanges: []DateRange{{Name: "observation", Column: "observation_date"}},
		Rules: []string{
			"The API returns aggregates (all countries, groupings, continents) beside single countries: a sum over several lines must filter country_kind country, or it counts imports twice.",
			"General imports (goods entering the U.S., including into warehouses and foreign-trade zones) and imports for consumption (goods entering U.S. consumption) are different measures; they are never added together.",
			"Values are nominal USD, not seasonally adjusted; the latest months are revised in later releases.",
		},
		Unserved: tradeUnserved,
	}
}

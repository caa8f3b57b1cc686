package capability

import "strconv"

// The three import capabilities read the Census Bureau's U.S. import statistics in three forms
// of the publisher's data: responses of the international trade API (imports/hs), USA Trade
// Online report exports, and a third party's line-by-line transcription of API answers
// (derived). They share one shape.

// tradeUnserved says why a trade capability has no snapshot yet.
const tradeUnserved = "no Census import statistics for its commodities have been ingested yet: `citeq ingest --fetch` downloads the international trade API's answers (imports by HS commodity and country) from api.census.gov into aiinfra_robotics/census_trade/; a USA Trade Online export placed there is read too"

// Forms of the publisher's data (field source_form).
const (
	TradeFormAPI     = "api_response"
	TradeFormExport  = "usa_trade_online_export"
	TradeFormExcerpt = "api_excerpt"
)

// Commodity levels and the value unit each gives (fields commodity_level, value_unit).
const (
	TradeHS4     = "HS4"
	TradeHS6     = "HS6"
	TradeUSDHS4  = "USD (HS4 heading)"
	TradeUSDHS6  = "USD (HS6 subheading)"
	tradeLevelOf = "an HS6 subheading is part of its HS4 heading (854232, memories, is part of 8542), so the two levels are never added together: a value summed over both is null (mixed_units); filter commodity_level to one level or group by it"
)

// TradeLevel is the commodity level of an HS code by its length (HS4, HS6, ...).
func TradeLevel(code string) string { return "HS" + strconv.Itoa(len(code)) }

// TradeValueUnit is the value_unit of a commodity level.
func TradeValueUnit(level string) string {
	if level == TradeHS6 {
		return TradeUSDHS6
	}
	return TradeUSDHS4
}

// AIInfrastructureTrade is ai_infrastructure.trade: U.S. imports of semiconductors (HS 8541,
// 8542, and the memories subheading 854232) by country of origin, monthly.
var AIInfrastructureTrade = register(tradeCapability("ai_infrastructure.trade",
	"Semiconductor imports by country of origin (HS 8541, 8542; HS 854232)",
	"U.S. monthly general imports of semiconductor devices (HS 8541: diodes, transistors, photosensitive devices, LEDs) and electronic integrated circuits (HS 8542, and its subheading 854232, memories), by country of origin, customs value in USD as the Census Bureau publishes it: from its international trade API, from USA Trade Online exports (here: imports from China, every month 2024-01 to 2026-03) and from a third party's transcription of API answers (here: 854232 by country, 2026-04 and 2026-06; derived, and every citation of it says so). Quantities and imports for consumption are given where the form published carries them.",
	[]string{"8541", "8542", "854232"}))

// AIInfrastructureEquipmentTrade is ai_infrastructure.equipment_trade: U.S. imports of
// semiconductor-manufacturing equipment (HS 8486) by country of origin, monthly.
var AIInfrastructureEquipmentTrade = register(tradeCapability("ai_infrastructure.equipment_trade",
	"Semiconductor-manufacturing equipment imports by country of origin (HS 8486)",
	"U.S. monthly general imports of machines and apparatus for manufacturing semiconductor boules, wafers, devices and integrated circuits and flat panel displays (HS 8486), by country of origin, customs value in USD as the Census Bureau publishes it: from its international trade API and from USA Trade Online exports (here: imports from China, every month 2024-01 to 2026-03). Quantities and imports for consumption are given where the form published carries them.",
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
	levels := []string{}
	units := []string{}
	for _, l := range []string{TradeHS4, TradeHS6} {
		for _, c := range commodities {
			if TradeLevel(c) == l {
				levels, units = append(levels, l), append(units, TradeValueUnit(l))
				break
			}
		}
	}
	return &Capability{
		ID:          id,
		Path:        path,
		Title:       title,
		Description: description,
		Grain:       "one published line: commodity, country of origin or country aggregate, month, in one form of the publisher's data",
		Cadence:     Monthly,
		Publisher:   "U.S. Census Bureau, Economic Indicators Division (U.S. International Trade in Goods)",
		AsOfRule:    "per document: a USA Trade Online export is as of the date on its \"Current date:\" line (2026-05-31 for the export here); the API's answers, and a transcription of them, are as of the first day of the latest month they hold (they carry no release date)",
		Documents: Documents{Relation: Complement, Document: "each file of each form: a USA Trade Online export, a transcription of API answers, or the API's own responses (one document set); the forms, commodities, countries and months complement each other",
			Overlap: "two documents of one form may publish the same line (commodity, country and month: two exports whose months overlap): the line is served from the newest, and a value it revises keeps the earlier document's row cited beside it (note release_revised)"},
		Partitions: []string{"country_kind", "source_form"},
		NaturalKey: []string{"source_form", "commodity", "country_name", "period"},
		Fields: []Field{
			{Name: "source_form", Type: String, Filter: true, GroupBy: true, Enum: []string{TradeFormAPI, TradeFormExport, TradeFormExcerpt},
				Description: "the form of the Census Bureau's data the line was read from: api_response (an answer of the international trade API), usa_trade_online_export (a USA Trade Online report export) or api_excerpt (a third party's line-by-line transcription of API answers: derived, and its citations say so); forms may repeat one another's figures, so they are never added together silently"},
			{Name: "commodity", Key: KeyHSCode, Type: String, Filter: true, GroupBy: true, Enum: commodities, Description: "HS commodity code as published (I_COMMODITY; the code that starts a USA Trade Online Commodity cell; the commodity a transcription's request named)"},
			{Name: "commodity_level", Type: String, Filter: true, GroupBy: true, Enum: levels,
				Description: "HS4 (a heading) or HS6 (a subheading): the API's COMM_LVL, else the length of the code; " + tradeLevelOf},
			{Name: "commodity_description", Type: String, Description: "the commodity's description as published: the API's long description (I_COMMODITY_LDESC), or the Census short description after the code in a USA Trade Online Commodity cell; null where the form gives none (a transcription)"},
			{Name: "country_code", Type: String, Filter: true, GroupBy: true, Description: "Census country code (CTY_CODE); \"-\" is the total for all countries, 0003-0028 country groupings, 1XXX-7XXX continents; null on the lines of a USA Trade Online export, which names the country only"},
			{Name: "country_name", Key: NameCountry, Type: String, Filter: true, GroupBy: true, Description: "country or aggregate name as published (CTY_NAME; the export's Country cell, e.g. China)"},
			{Name: "country_kind", Type: String, Filter: true, GroupBy: true, Enum: []string{"country", "all_countries_total", "country_grouping", "continent"}, Description: "whether the line is one country of origin or an aggregate the API also returns (the total for all countries, a grouping such as the EU, OECD or APEC, a continent): the countries of a month add up to its total, so a sum over several lines must filter country_kind country, or it counts imports twice"},
			{Name: "observation_date", Type: Date, Description: "first day of the month"},
			{Name: "period", Type: String, Filter: true, GroupBy: true, Description: "YYYY-MM (the API's time; the export's Time \"January 2024\" as 2024-01)"},
			{Name: "year", Type: Integer, Filter: true, GroupBy: true, Description: "calendar year"},
			{Name: "value_unit", Type: String, Filter: true, GroupBy: true, Enum: units,
				Description: "the unit of the line's customs values: US dollars of an HS4 heading or of an HS6 subheading; " + tradeLevelOf},
			{Name: "general_imports_usd", Type: Number, Description: "general imports, customs value, whole US dollars as published (GEN_VAL_MO; the export's Customs Value (Gen) ($US), thousands separators removed)"},
			{Name: "consumption_imports_usd", Type: Number, Description: "imports for consumption, customs value, USD (CON_VAL_MO); null where the form carries none (the export and the transcription here carry general imports only)"},
			{Name: "general_quantity", Type: Number, Description: "general imports, first quantity (GEN_QY1_MO), in quantity_unit; null where not published (the export and the transcription here carry no quantity)"},
			{Name: "consumption_quantity", Type: Number, Description: "imports for consumption, first quantity (CON_QY1_MO), in quantity_unit; null where not published (the export and the transcription here carry no quantity)"},
			{Name: "quantity_unit", Type: String, Filter: true, GroupBy: true, Description: "unit of the quantities as published (UNIT_QY1: NO number, KG kilograms, ...)"},
			{Name: "general_quantity_flag", Type: String, Description: "the API's flag on the general-imports quantity (GEN_QY1_MO_FLAG) as published"},
			{Name: "consumption_quantity_flag", Type: String, Description: "the API's flag on the consumption quantity (CON_QY1_MO_FLAG) as published"},
			{Name: "source_record_key", Type: String, Unique: true, Description: "form, commodity, country (code, or name in an export) and month"},
			{Name: "source_row_number", Type: Integer, Description: "1-based row of the line in its file: the element of the API's response array (1 is the header row), the line of the export or of the transcription"},
		},
		Metrics: []Metric{
			{Name: "general_imports_usd", Unit: "USD", Agg: Sum, Column: "general_imports_usd", UnitColumn: "value_unit", Additive: true, Description: "sum of general imports, customs value in USD (null over a set mixing HS4 headings and HS6 subheadings)"},
			{Name: "consumption_imports_usd", Unit: "USD", Agg: Sum, Column: "consumption_imports_usd", UnitColumn: "value_unit", Additive: true, Description: "sum of imports for consumption, customs value in USD (null over a set mixing HS4 headings and HS6 subheadings; null where the form carries none)"},
			{Name: "general_quantity", Unit: "unit of the quantity", Agg: Sum, Column: "general_quantity", UnitColumn: "quantity_unit", Additive: true, Description: "sum of general imports quantity (null over a set mixing units; null where the form carries no quantity)"},
			{Name: "consumption_quantity", Unit: "unit of the quantity", Agg: Sum, Column: "consumption_quantity", UnitColumn: "quantity_unit", Additive: true, Description: "sum of imports for consumption quantity (null over a set mixing units; null where the form carries no quantity)"},
			{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of published lines"},
		},
		DateRanges: []DateRange{{Name: "observation", Column: "observation_date"}},
		Rules: []string{
			"The API returns aggregates (all countries, groupings, continents) beside single countries: a sum over several lines must filter country_kind country, or it counts imports twice; an answer whose lines span both carries a mixed_partition note.",
			"Commodity level is data: " + tradeLevelOf + ".",
			"General imports (goods entering the U.S., including into warehouses and foreign-trade zones) and imports for consumption (goods entering U.S. consumption) are different measures; they are never added together.",
			"Values are customs values in nominal US dollars as published, not seasonally adjusted; the latest months are revised in later releases, and a transcription's values are as of the day its API answer was fetched.",
			"A USA Trade Online export lists only the months with trade (a month without is absent, not zero), and names the country only (country_code null); it carries no quantity and no imports for consumption, so those metrics are null over its lines (not_published).",
			"A transcription (source_form api_excerpt) is a third party's copy of the API's answers, not the agency's bytes: each of its citations says derived, with the API request as original_url.",
		},
		Unserved: tradeUnserved,
	}
}

package capability

import "strings"

// retailSectors are the end-use sectors of the EIA-861 sales workbook, in sheet order, with
// the total the agency publishes beside them.
var retailSectors = []string{"residential", "commercial", "industrial", "transportation", "total"}

// PowerRetailSales is power.retail_sales: one row per published line of the EIA-861 "Sales to
// Ultimate Customers" workbook (utility × state × part × balancing authority), with the
// revenue, sales and customers of each sector as published.
var PowerRetailSales = register(&Capability{
	ID:    "power.retail_sales",
	Path:  "power/retail-sales",
	Title: "Retail electricity sales: revenue, sales and customers by utility, state and sector",
	Description: "One row per published line of the EIA-861 'Sales to Ultimate Customers' workbook (sheets States and Territories): " +
		"revenue (thousand USD), sales (MWh) and customers for the residential, commercial, industrial and transportation sectors and the total, " +
		"by utility, state, part (A bundled, B energy only, C delivery only, D bundled service by a retail marketer), ownership type and balancing authority.",
	Grain:      "one published line: utility, state, part, service type and balancing authority, for the data year",
	Cadence:    Annual,
	Publisher:  "U.S. Energy Information Administration",
	AsOfRule:   "the last day of the data year (Data Year column, agreeing with the file name: Sales_Ult_Cust_2018.xlsx gives 2018-12-31)",
	Documents:  Documents{Relation: Complement, Document: "one EIA-861 Sales to Ultimate Customers workbook per data year (Sales_Ult_Cust_<year>.xlsx, with its year's balancing authority list); a later release of a year replaces the earlier one, and the years complement each other"},
	Partitions: []string{"region_scope", "part"},
	Repeats: []Repeat{{Dimension: "part", Values: []string{"C"}, Of: []string{"B"}, Metrics: retailCountedMetrics(),
		Reason: "Part C (delivery-only) lines report the sales and customers whose energy a Part B (energy-only) line sells; the workbook's note: to get state or U.S. totals, sum Parts A, B, C and D for revenue but only Parts A, B and D for sales and customers"}},
	NaturalKey: []string{"data_year", "sheet_name", "source_row_number"},
	Fields: append(append([]Field{
		{Name: "source_id", Type: String, Description: "source identifier (eia861)"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "data_year", Type: Integer, Filter: true, Description: "Data Year (one per snapshot)"},
		{Name: "sheet_name", Bookkeeping: true, Type: String, Description: "source sheet: States or Territories"},
		{Name: "region_scope", Type: String, Filter: true, GroupBy: true, Enum: []string{"us_state_or_dc", "us_territory"},
			Description: "us_state_or_dc for rows of sheet States (50 states and DC), us_territory for sheet Territories; the agency's U.S. totals are over us_state_or_dc"},
		{Name: "utility_number", Key: KeyEIAUtilityID, Type: Integer, Filter: true, Description: "Utility Number (EIA utility id; 99999 marks the agency's adjustment lines, 88888 withheld respondents)"},
		{Name: "utility_name", Key: NameUtility, Type: String, Filter: true, Description: "Utility Name as published"},
		{Name: "part", Type: String, Filter: true, GroupBy: true, Enum: []string{"A", "B", "C", "D"},
			Description: "Part of the form: A full-service (bundled), B energy-only, C delivery-only, D bundled service by a retail power marketer"},
		{Name: "service_type", Type: String, Filter: true, GroupBy: true, Description: "Service Type as published (Bundled, Energy, Delivery)"},
		{Name: "data_type", Type: String, Filter: true, GroupBy: true, Enum: []string{"O", "I"}, Description: "Data Type: O observed, I imputed"},
		{Name: "state", Key: KeyState, Type: String, Filter: true, GroupBy: true, Description: "State (two-letter code; territory code on sheet Territories)"},
		{Name: "ownership", Type: String, Filter: true, GroupBy: true, Description: "Ownership as published (Investor Owned, Cooperative, Municipal, Retail Power Marketer, Behind the Meter, ...; null on adjustment lines)"},
		{Name: "ba_code", Key: KeyBalancingAuthority, Type: String, Filter: true, GroupBy: true, Codebook: "ba_code", Description: "BA Code: balancing authority as published (NA where none)"},
		{Name: "counted_in_sales_totals", Type: Boolean, Filter: true,
			Description: "false for Part C (delivery-only) lines, whose sales and customers repeat those of Part B; the sales and customers metrics count only true lines"},
		{Name: "counted_in_customer_totals", Type: Boolean, Filter: true,
			Description: "false for Part C lines and for Behind the Meter respondents (third-party owners of rooftop solar), whose customers the agency leaves out of state and U.S. counts"},
	}, retailSectorFields()...), []Field{
		{Name: "source_record_key", Type: String, Unique: true, Description: "source id, data year, sheet and row"},
		{Name: "source_row_number", Type: Integer, Description: "1-based Excel row of the line on its sheet"},
	}...),
	Metrics:    retailMetrics(),
	DateRanges: nil,
	Rules: []string{
		"Revenue counts every part (A, B, C and D); sales and customers count Parts A, B and D only, as the workbook's own note says: Part C (delivery-only) lines repeat the energy sold under Part B. The sales and customers metrics therefore sum the *_counted columns, which are null on Part C lines, so no query double-counts; the published Part C cells stay in the records.",
		"An answer whose rows span Part C and other parts carries a mixed_partition note on part saying that adding the published Part C sales or customers to the others would count a sale twice, which metrics leave Part C out, and how to split (group_by part, or filter part); a metric that is null because only Part C rows match carries a not_counted note.",
		"Customer metrics also leave out Behind the Meter respondents (third-party owners of rooftop solar), as the agency's state and U.S. customer counts do.",
		"The agency's U.S. totals cover the States sheet (50 states and DC): filter region_scope = us_state_or_dc for them; territories are on their own sheet.",
		"Average price is a ratio of sums (revenue over counted sales, thousand USD per MWh = USD per kWh), never an average of prices.",
		"Published total columns are served as published; the total customers column of some lines differs from the sum of the sector customers, and a few adjustment lines' revenue differs in the last decimal.",
		"Does not answer: monthly sales, sales by rate schedule, prices paid by individual customers, distribution-system or net-metering figures.",
	},
})

// RetailSalesNotCounted are the EIA-861 lines whose sales are not counted in totals: Part C
// (delivery-only) lines repeat the energy a Part B line sells.
var RetailSalesNotCounted = Unless{"part": {"C"}}

// RetailCustomersNotCounted are the lines whose customers are not counted in totals: Part C
// lines, and Behind the Meter respondents (third-party owners of rooftop solar), whom the
// agency leaves out of state and U.S. customer counts.
var RetailCustomersNotCounted = Unless{"part": {"C"}, "ownership": {"Behind the Meter"}}

// retailSectorFields are the published revenue, sales and customer columns of each sector and
// the counted sales and customers beside them.
func retailSectorFields() []Field {
	var out []Field
	for _, s := range retailSectors {
		out = append(out,
			Field{Name: s + "_revenue_kusd", Type: Number, Description: s + " revenues (thousand USD), as published"},
			Field{Name: s + "_sales_mwh", Type: Number, Description: s + " sales (MWh), as published"},
			Field{Name: s + "_customers", Type: Number, Description: s + " customers (count), as published"},
			Field{Name: s + "_sales_mwh_counted", Type: Number, Description: s + " sales (MWh) counted in totals: as published, null on Part C lines",
				Cell: &CellRule{CopyOf: s + "_sales_mwh", Unless: RetailSalesNotCounted}},
			Field{Name: s + "_customers_counted", Type: Number, Description: s + " customers counted in totals: as published, null on Part C lines and Behind the Meter respondents",
				Cell: &CellRule{CopyOf: s + "_customers", Unless: RetailCustomersNotCounted}},
		)
	}
	return out
}

// retailCountedMetrics are the metrics that leave Part C lines out: sales, customers and the
// average prices over counted sales, of every sector and the total.
func retailCountedMetrics() []string {
	var out []string
	for _, m := range retailMetrics() {
		if strings.HasSuffix(m.Column, "_counted") || strings.HasSuffix(m.Denominator, "_counted") {
			out = append(out, m.Name)
		}
	}
	return out
}

func retailMetrics() []Metric {
	var out []Metric
	for _, s := range retailSectors {
		p := s + "_"
		if s == "total" {
			p = ""
		}
		out = append(out,
			Metric{Name: p + "revenue_kusd", Unit: "thousand USD", Agg: Sum, Column: s + "_revenue_kusd", Additive: true, Description: "sum of " + s + " revenues, every part"},
			Metric{Name: p + "sales_mwh", Unit: "MWh", Agg: Sum, Column: s + "_sales_mwh_counted", Additive: true, Description: "sum of " + s + " sales, Parts A, B and D"},
			Metric{Name: p + "customers", Unit: "count", Agg: Sum, Column: s + "_customers_counted", Additive: true, Description: "sum of " + s + " customers, Parts A, B and D, Behind the Meter excluded"},
			Metric{Name: p + "average_price_usd_per_kwh", Unit: "USD/kWh", Agg: Ratio, Column: s + "_revenue_kusd", Denominator: s + "_sales_mwh_counted",
				Description: "sum of " + s + " revenues divided by the sum of counted " + s + " sales (thousand USD per MWh = USD per kWh)"},
		)
	}
	return append(out,
		Metric{Name: "utility_count", Unit: "count", Agg: CountDistinct, Column: "utility_number", Description: "distinct utility numbers (adjustment 99999 and withheld 88888 count as one each)"},
		Metric{Name: "source_record_count", Unit: "count", Agg: Count, Additive: true, Description: "number of published lines"},
	)
}

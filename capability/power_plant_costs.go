package capability

// PlantCostConcepts are the line items of FERC Form 1 schedule 402, Steam-Electric Generating
// Plant Statistics (Large Plants), pages 402-403, as the FERC XBRL taxonomy names them: the
// plant part (lines 1 to 35 and the plant name and order heading the column) and the fuel
// statistics part (lines 36 to 44).
var PlantCostConcepts = []string{
	"PlantName", "OrderNumber", "PlantKind", "PlantConstructionType", "YearPlantOriginallyConstructed", "YearLastUnitOfPlantInstalled",
	"InstalledCapacityOfPlant", "NetPeakDemandOnPlant", "PlantHoursConnectedToLoad", "NetContinuousPlantCapability",
	"NetContinuousPlantCapabilityNotLimitedByCondenserWater", "NetContinuousPlantCapabilityLimitedByCondenserWater",
	"PlantAverageNumberOfEmployees", "NetGenerationExcludingPlantUse", "CostOfLandAndLandRightsSteamProduction",
	"CostOfStructuresAndImprovementsSteamProduction", "CostOfEquipmentSteamProduction", "AssetRetirementCostsSteamProduction",
	"CostOfPlant", "CostPerKilowattOfInstalledCapacity", "OperationSupervisionAndEngineeringExpense", "FuelSteamPowerGeneration",
	"CoolantsAndWater", "SteamExpensesSteamPowerGeneration", "SteamFromOtherSources", "SteamTransferredCredit",
	"ElectricExpensesSteamPowerGeneration", "MiscellaneousSteamPowerExpenses", "RentsSteamPowerGeneration", "Allowances",
	"MaintenanceSupervisionAndEngineeringSteamPowerGeneration", "MaintenanceOfStructuresSteamPowerGeneration",
	"MaintenanceOfBoilerPlantSteamPowerGeneration", "MaintenanceOfElectricPlantSteamPowerGeneration",
	"MaintenanceOfMiscellaneousSteamPlant", "PowerProductionExpensesSteamPower", "ExpensesPerNetKilowattHour",
	"FuelKind", "FuelUnit", "QuantityOfFuelBurned", "FuelBurnedAverageHeatContent", "AverageCostOfFuelPerUnitAsDelivered",
	"AverageCostOfFuelPerUnitBurned", "AverageCostOfFuelBurnedPerMillionBritishThermalUnit",
	"AverageCostOfFuelBurnedPerKilowattHourNetGeneration", "AverageBritishThermalUnitPerKilowattHourNetGeneration",
}

// PowerPlantCosts is power.plant_costs: one row per fact of FERC Form 1 schedule 402 in the
// respondents' XBRL filings.
var PowerPlantCosts = register(&Capability{
	ID:    "power.plant_costs",
	Path:  "power/plant-costs",
	Title: "Large steam-electric plant statistics and costs (FERC Form 1, schedule 402)",
	Description: "One separately cited XBRL fact per respondent, report year, raw plant name and source concept of FERC Form 1 schedule 402, " +
		"Steam-Electric Generating Plant Statistics (Large Plants), pages 402-403: installed capacity, peak demand, hours, capability, employees, net generation, " +
		"the cost of plant by account, production expenses by account, expenses per net kWh, and per fuel the quantity burned, heat content and fuel costs. " +
		"Values, units and plant names are as filed.",
	Grain:      "one XBRL fact: respondent, report year, plant name as filed, fuel kind (fuel statistics only) and concept",
	Cadence:    Annual,
	Publisher:  "Federal Energy Regulatory Commission",
	AsOfRule:   "the latest attestation date among the filings served (AttestationDate, else ReportDate, else the end of the report year)",
	Documents:  Documents{Relation: Complement, Document: "the FERC Form 1 XBRL filings found, read together as one document (of a respondent's filings of one report year the latest is served: gate filings_superseded); a newer set of filings replaces it"},
	NaturalKey: []string{"respondent_id", "report_year", "plant_name", "fuel_kind", "concept"},
	Fields: []Field{
		{Name: "source_id", Type: String, Description: "source identifier (ferc1)"},
		{Name: "as_of", Type: Date, Description: "snapshot date"},
		{Name: "respondent_id", Type: String, Filter: true, GroupBy: true, Description: "the filer's FERC company identifier (CID) as the fact's context gives it, e.g. C001130"},
		{Name: "respondent_name", Type: String, Filter: true, GroupBy: true, Description: "RespondentLegalName as filed"},
		{Name: "report_year", Type: Integer, Filter: true, GroupBy: true, Description: "ReportYear of the filing"},
		{Name: "report_period", Type: String, Description: "ReportPeriod of the filing (Q4 for the annual Form 1)"},
		{Name: "submission_type", Type: String, Filter: true, GroupBy: true, Description: "SubmissionType as filed: O original, R resubmission"},
		{Name: "attestation_date", Type: Date, Description: "AttestationDate of the filing (the date its officer certified it)"},
		{Name: "plant_name", Key: NamePlant, Type: String, Filter: true, GroupBy: true,
			Description: "the plant's name as filed (the typed member of PlantNameAxis); never normalized or matched to an EIA plant id"},
		{Name: "plant_key", Type: String, Description: "respondent_id and plant_name joined by ' | ': what distinct_plant_count counts",
			Cell: &CellRule{Join: []string{"respondent_id", "plant_name"}, Sep: " | "}},
		{Name: "plant_entry", Type: String, Filter: true, GroupBy: true, Enum: []string{"plant", "filer_total", "placeholder"},
			Description: "what the plant name as filed stands for, read from the name: filer_total when it has the word total (ROCKPORT TOTAL AEG, the filer's total of its units; ROCKPORT TOTAL PLANT, the whole plant the filer owns a share of), " +
				"placeholder when it has no letter (0: a column the filer's tool left empty), plant otherwise (a plant or unit, or the filer's share of one, as filed)"},
		{Name: "plant_kind", Type: String, Filter: true, GroupBy: true, Description: "the plant's PlantKind fact (line 1) as filed, on every fact of the plant"},
		{Name: "fuel_kind", Type: String, Filter: true, GroupBy: true,
			Description: "the fuel statistics row as filed (the typed member of FuelKindAxis: Coal, Gas, Oil, ...); null on the plant's own lines"},
		{Name: "part", Type: String, Filter: true, GroupBy: true, Enum: []string{"plant", "fuel"},
			Description: "plant: the plant's column (plant name, order and lines 1-35); fuel: the fuel statistics (lines 36-44)"},
		{Name: "concept", Type: String, Filter: true, GroupBy: true, Enum: PlantCostConcepts,
			Description: "the XBRL concept of the FERC taxonomy (namespace http://ferc.gov/form/<version>/ferc), e.g. NetGenerationExcludingPlantUse"},
		{Name: "line", Type: Integer, Filter: true, GroupBy: true, Description: "the line of pages 402-403 the concept fills (null for the plant name and order)"},
		{Name: "line_label", Type: String, Description: "the form's label of the line, from the taxonomy"},
		{Name: "value", Type: Number, Description: "the fact's value as a number, where the filed text is one (every numeric line, in unit: kWh, MW, nominal USD, USD per kW, ...; and the years of lines 3-4); never converted"},
		{Name: "value_text", Type: String, Description: "a text or year fact's value as filed (plant name, plant kind, construction type, year, fuel kind, fuel unit)"},
		{Name: "unit", Type: String, Filter: true, GroupBy: true,
			Description: "the fact's unit as its measures' local names (USD, MW, kWh, USD/kW, USD/kWh, Btu, USD/MMBTU, pure, ...); null for text facts"},
		{Name: "unit_raw", Type: String, Description: "the unit's measures as written in the filing (iso4217:USD, utr:MW, iso4217:USD/utr:kW, ...)"},
		{Name: "decimals", Type: String, Description: "the fact's decimals attribute as filed (INF, 0, 2, ...)"},
		{Name: "is_nil", Type: Boolean, Description: "true when the fact is filed as nil (xsi:nil), its value then null"},
		{Name: "period_start", Type: Date, Description: "start of the fact's period (null for an instant)"},
		{Name: "period_end", Type: Date, Description: "end of the fact's period, or its instant (the balance date of the cost of plant lines)"},
		{Name: "fact_id", Type: String, Unique: true, Description: "the fact's id attribute in the instance document"},
		{Name: "context_id", Type: String, Description: "the id of the fact's context in the instance document"},
		{Name: "source_record_key", Type: String, Unique: true, Description: "source id, respondent, report year, plant, fuel kind and concept"},
		{Name: "source_row_number", Type: Integer, Description: "the fact's row on the facts sheet: its position among the document's facts, plus one for the header row"},
	},
	Metrics: []Metric{
		{Name: "fact_count", Unit: "count", Agg: Count, Additive: true, Description: "number of facts"},
		{Name: "numeric_fact_count", Unit: "count", Agg: CountNonNull, Column: "value", Additive: true, Description: "facts with a numeric value"},
		{Name: "value_sum", Unit: "unit", Agg: Sum, Column: "value", UnitColumn: "unit", Additive: true,
			Description: "sum of the numeric values (null over facts of different units); adding different concepts double counts (a total and its accounts): filter or group by concept"},
		{Name: "value_min", Unit: "unit", Agg: Min, Column: "value", UnitColumn: "unit", Additive: false, Description: "smallest numeric value (null over facts of different units)"},
		{Name: "value_max", Unit: "unit", Agg: Max, Column: "value", UnitColumn: "unit", Additive: false, Description: "largest numeric value (null over facts of different units)"},
		{Name: "respondent_count", Unit: "count", Agg: CountDistinct, Column: "respondent_id", Additive: false, Description: "distinct respondents"},
		{Name: "distinct_plant_count", Unit: "count", Agg: CountDistinct, Column: "plant_key", Additive: false,
			Description: "distinct (respondent, plant name) pairs: a plant filed under two names, or by two owners, counts twice"},
	},
	Partitions: []string{"concept", "plant_entry"},
	Rules: []string{
		"One row per XBRL fact of schedule 402 as filed: a plant's facts have the plant name as their only dimension, its fuel statistics the plant name and the fuel kind; values and units are as filed (kWh stay kWh, dollars are nominal), never converted, allocated, divided by generation or combined into a derived total.",
		"Plant names are the filers' own strings and are not matched to EIA plant ids. Filers also file totals on the plant name axis (AEP Generating 2023: ROCKPORT UNIT 1 AEG and UNIT 2 AEG, ROCKPORT TOTAL AEG their sum, ROCKPORT TOTAL PLANT the whole plant of which AEG owns a share) and placeholder columns named 0: plant_entry tells them apart and is a partition, so an answer that adds plants and totals says so; filter plant_entry to plant to count each unit once. A plant_entry of plant can still be a filer's share of a plant another respondent also files.",
		"A figure is asked for by its concept: net generation is value_sum with concept NetGenerationExcludingPlantUse (kWh), total cost of plant CostOfPlant (USD), fuel expense FuelSteamPowerGeneration (USD), installed capacity InstalledCapacityOfPlant (MW). value_sum adds facts of one unit only (null with a mixed_units note otherwise); concept is a partition, since a total (cost of plant, production expenses) and its accounts are both facts.",
		"Coverage is the filings ingested: Form 1 respondents (major electric utilities and licensees), not the whole fleet; a plant absent from the answer is absent from the filings, not zero.",
		"When a respondent filed a report year more than once, the latest filing (by attestation date, then report date, a resubmission after an original) is served; the earlier ones are named in the filings_superseded gate and serve nothing (SIGECO's original 2021 filing, superseded by its refiling of 2022-10-21, reports F.B. Culley Station at 12,063,170,000 kWh net generation; the refiling served reports 2,118,170,000). Every filing stays in the raw store under its own hash.",
		"Does not answer: hydroelectric (schedule 406), pumped storage (408) or small plants (410); EIA plant ids; capacity factors, costs per MWh or inflation-adjusted dollars computed by the service; filings before 2021 (FERC's Visual FoxPro era).",
	},
})

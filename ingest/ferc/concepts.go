package ferc

// concept is one line item of schedule 402 as the FERC Form 1 taxonomy defines it: the line
// of pages 402-403 it fills, the form's label of the line (the taxonomy's schedule label, else
// its standard label), the part of the schedule and whether its values are numbers (the
// taxonomy's string and gYear items are not).
type concept struct {
	line    int
	label   string
	part    string
	numeric bool
}

// Parts of the schedule.
const (
	partPlant = "plant"
	partFuel  = "fuel"
)

// concepts are the line items of schedule 402, Steam-Electric Generating Plant Statistics
// (Large Plants), from the taxonomy form-1_2022-01-01 (the definition linkbase
// sched-402_2022-01-01_def.xml lists them; ferc-core-ref-form-location gives the lines).
// The filings of 2023 (taxonomy 2023-11-01) use the same names.
var concepts = map[string]concept{
	"PlantName":                      {0, "Plant Name", partPlant, false},
	"OrderNumber":                    {0, "Order Number", partPlant, true},
	"PlantKind":                      {1, "Kind of Plant (Internal Comb, Gas Turb, Nuclear)", partPlant, false},
	"PlantConstructionType":          {2, "Type of Constr (Conventional, Outdoor, Boiler, etc)", partPlant, false},
	"YearPlantOriginallyConstructed": {3, "Year Originally Constructed", partPlant, false},
	"YearLastUnitOfPlantInstalled":   {4, "Year Last Unit was Installed", partPlant, false},
	"InstalledCapacityOfPlant":       {5, "Total Installed Cap (Max Gen Name Plate Ratings-MW)", partPlant, true},
	"NetPeakDemandOnPlant":           {6, "Net Peak Demand on Plant - MW (60 minutes)", partPlant, true},
	"PlantHoursConnectedToLoad":      {7, "Plant Hours Connected to Load", partPlant, true},
	"NetContinuousPlantCapability":   {8, "Net Continuous Plant Capability (Megawatts)", partPlant, true},
	"NetContinuousPlantCapabilityNotLimitedByCondenserWater":   {9, "When Not Limited by Condenser Water", partPlant, true},
	"NetContinuousPlantCapabilityLimitedByCondenserWater":      {10, "When Limited by Condenser Water", partPlant, true},
	"PlantAverageNumberOfEmployees":                            {11, "Average Number of Employees", partPlant, true},
	"NetGenerationExcludingPlantUse":                           {12, "Net Generation, Exclusive of Plant Use - kWh", partPlant, true},
	"CostOfLandAndLandRightsSteamProduction":                   {13, "Cost of Plant: Land and Land Rights", partPlant, true},
	"CostOfStructuresAndImprovementsSteamProduction":           {14, "Structures and Improvements", partPlant, true},
	"CostOfEquipmentSteamProduction":                           {15, "Equipment Costs", partPlant, true},
	"AssetRetirementCostsSteamProduction":                      {16, "Asset Retirement Costs", partPlant, true},
	"CostOfPlant":                                              {17, "Cost of Plant", partPlant, true},
	"CostPerKilowattOfInstalledCapacity":                       {18, "Cost per KW of Installed Capacity (line 17/5) Including", partPlant, true},
	"OperationSupervisionAndEngineeringExpense":                {19, "Production Expenses: Oper, Supv, & Engr", partPlant, true},
	"FuelSteamPowerGeneration":                                 {20, "Fuel", partPlant, true},
	"CoolantsAndWater":                                         {21, "Coolants and Water (Nuclear Plants Only)", partPlant, true},
	"SteamExpensesSteamPowerGeneration":                        {22, "Steam Expenses", partPlant, true},
	"SteamFromOtherSources":                                    {23, "Steam From Other Sources", partPlant, true},
	"SteamTransferredCredit":                                   {24, "Steam Transferred (Cr)", partPlant, true},
	"ElectricExpensesSteamPowerGeneration":                     {25, "Electric Expenses", partPlant, true},
	"MiscellaneousSteamPowerExpenses":                          {26, "Misc Steam (or Nuclear) Power Expenses", partPlant, true},
	"RentsSteamPowerGeneration":                                {27, "Rents", partPlant, true},
	"Allowances":                                               {28, "Allowances", partPlant, true},
	"MaintenanceSupervisionAndEngineeringSteamPowerGeneration": {29, "Maintenance Supervision and Engineering", partPlant, true},
	"MaintenanceOfStructuresSteamPowerGeneration":              {30, "Maintenance of Structures", partPlant, true},
	"MaintenanceOfBoilerPlantSteamPowerGeneration":             {31, "Maintenance of Boiler (or reactor) Plant", partPlant, true},
	"MaintenanceOfElectricPlantSteamPowerGeneration":           {32, "Maintenance of Electric Plant", partPlant, true},
	"MaintenanceOfMiscellaneousSteamPlant":                     {33, "Maintenance of Misc Steam (or Nuclear) Plant", partPlant, true},
	"PowerProductionExpensesSteamPower":                        {34, "Power Production Expenses - Steam Power", partPlant, true},
	"ExpensesPerNetKilowattHour":                               {35, "Expenses per Net kWh", partPlant, true},
	"FuelKind":                                                 {36, "Fuel Kind", partFuel, false},
	"FuelUnit":                                                 {37, "Fuel Unit", partFuel, false},
	"QuantityOfFuelBurned":                                     {38, "Quantity (Units) of Fuel Burned", partFuel, true},
	"FuelBurnedAverageHeatContent":                             {39, "Avg Heat Cont - Fuel Burned (btu/indicate if nuclear)", partFuel, true},
	"AverageCostOfFuelPerUnitAsDelivered":                      {40, "Avg Cost of Fuel/unit, as Delvd f.o.b. during year", partFuel, true},
	"AverageCostOfFuelPerUnitBurned":                           {41, "Average Cost of Fuel per Unit Burned", partFuel, true},
	"AverageCostOfFuelBurnedPerMillionBritishThermalUnit":      {42, "Average Cost of Fuel Burned per Million BTU", partFuel, true},
	"AverageCostOfFuelBurnedPerKilowattHourNetGeneration":      {43, "Average Cost of Fuel Burned per kWh Net Gen", partFuel, true},
	"AverageBritishThermalUnitPerKilowattHourNetGeneration":    {44, "Average BTU per kWh Net Generation", partFuel, true},
}

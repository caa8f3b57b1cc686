package ncses

// absTable is one NCSES table of the Annual Business Survey, as the converted CSV holds it.
type absTable struct {
	id, file, title, dataYear, survey string
	// kind is how rows and columns are laid out: "industry" or "size" (a row per industry
	// or size class, a column per answer or technology), "tech_by_sector" or "tech_by_size"
	// (a row per technology, a column per sector or size class).
	kind string
	// technology is what every cell is about, for tables on one technology.
	technology string
	// rows is the number of rows the published table has.
	rows int
}

var absTables = []absTable{
	{"11547", "ncses_11547_robotics_use_by_industry_2021.csv", "Companies using autonomous systems and robotics, by industry: 2021", "2021", "2022 ABS", "industry", "Autonomous systems and robotics", 71},
	{"11548", "ncses_11548_robotics_use_by_size_2021.csv", "Companies using autonomous systems and robotics, by company size: 2021", "2021", "2022 ABS", "size", "Autonomous systems and robotics", 17},
	{"12515", "ncses_12515_cet_use_by_industry_2021.csv", "Companies using critical and emerging technologies, by industry: 2021", "2021", "2022 ABS", "industry", "", 71},
	{"12516", "ncses_12516_cet_use_by_size_2021.csv", "Companies using critical and emerging technologies, by company size: 2021", "2021", "2022 ABS", "size", "", 17},
	{"11305", "ncses_11305_select_tech_use_by_sector_2021.csv", "Companies using select technologies, by sector: 2021", "2021", "2022 ABS", "tech_by_sector", "", 14},
	{"11306", "ncses_11306_select_tech_use_by_size_2021.csv", "Companies using select technologies, by company size: 2021", "2021", "2022 ABS", "tech_by_size", "", 14},
	{"9029", "ncses_9029_robotics_use_by_industry_2020.csv", "Use of robotics technology, by industry: 2020", "2020", "2021 ABS", "industry", "Robotics", 71},
	{"5704", "ncses_5704_robotics_production_use_by_industry_2016_18.csv", "Use of robotics as a production technology for goods and services, by industry: 2016-18", "2016-18", "2019 ABS", "industry", "Robotics as a production technology", 71},
	{"5705", "ncses_5705_robotics_production_use_by_size_2016_18.csv", "Use of robotics as a production technology for goods and services, by company size: 2016-18", "2016-18", "2019 ABS", "size", "Robotics as a production technology", 17},
}

// Row dimension columns of each layout.
var (
	industryDims = []string{"industry_full_path", "industry_level_1", "industry_level_2", "industry_level_3", "industry_level_4", "industry_level_5", "industry_hierarchy_depth", "field_naics_code"}
	sizeDims     = []string{"employment_size_full_path", "employment_size_level_1", "employment_size_level_2", "employment_size_level_3", "employment_size_hierarchy_depth"}
	techDims     = []string{"technology"}
)

// companiesColumn is the column of the number of companies.
const companiesColumn = "field_companies_number_"

// answers are the answer columns of the robotics tables: the answer each gives the share of.
var answers = map[string]string{
	"field_a_lot":                     "a lot",
	"field_somewhat":                  "somewhat",
	"field_a_little":                  "a little",
	"field_not_at_all":                "not at all",
	"field_in_use":                    "in use",
	"field_in_testing_but_not_in_use": "in testing but not in use",
	"field_not_in_use_nor_testing":    "not in use nor testing",
	"field_don_t_know":                "don't know",
	"field_did_not_answer":            "did not answer",
	"field_did_not_use":               "did not use",
	"field_tested_but_not_used_in_production_or_service": "tested but not used in production or service",
	"field_tested_but_notused_inproduction_orservice":    "tested but not used in production or service",
	"field_low_use":      "low use",
	"field_moderate_use": "moderate use",
	"field_high_use":     "high use",
}

// technologies are the technology columns of tables 12515 and 12516, named as the rows of
// tables 11305 and 11306 name them.
var technologies = map[string]string{
	"field_advanced_computing":                           "Advanced computing",
	"field_advanced_sensing":                             "Advanced sensing",
	"field_artificial_intelligence":                      "Artificial intelligence",
	"field_autonomous_systems_and_robotics":              "Autonomous systems and robotics",
	"field_additive_manufacturing":                       "Additive manufacturing",
	"field_biotechnology":                                "Biotechnology",
	"field_human_machine_interfaces":                     "Human-machine interfaces",
	"field_human_machine_interface":                      "Human-machine interfaces",
	"field_communication_and_networking":                 "Communication and networking technologies",
	"field_communication_and_networking_technologies":    "Communication and networking technologies",
	"field_advanced_financial_technologies":              "Advanced financial technologies",
	"field_advanced_semiconductors_and_microelectronics": "Advanced semiconductors and microelectronics",
	"field_advanced_engineering_materials":               "Advanced engineering materials",
	"field_renewable_energy_generation_and_storage":      "Renewable energy generation and storage",
	"field_advanced_gas_turbine_engine_technologies":     "Advanced gas turbine engine technologies",
	"field_advanced_nuclear_energy_technologies":         "Advanced nuclear energy technologies",
}

// sectors are the sector columns of table 11305.
var sectors = map[string]string{
	"all_industries":              "All industries",
	"manufacturing_industries":    "Manufacturing industries",
	"nonmanufacturing_industries": "Nonmanufacturing industries",
}

// sizes are the size columns of table 11306, written as the size tables' rows write them.
var sizes = map[string]string{
	"all_companies":            "All companies",
	"1_4_employees":            "1–4",
	"5_9_employees":            "5–9",
	"10_19_employees":          "10–19",
	"20_49_employees":          "20–49",
	"50_99_employees":          "50–99",
	"100_249_employees":        "100–249",
	"250_499_employees":        "250–499",
	"500_999_employees":        "500–999",
	"1_000_4_999_employees":    "1,000–4,999",
	"5_000_9_999_employees":    "5,000–9,999",
	"10_000_24_999_employees":  "10,000–24,999",
	"25_000_or_more_employees": "25,000 or more",
}

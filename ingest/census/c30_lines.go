package census

// c30Line is one column of a C30 workbook: its label (as published, footnote digits
// dropped) and its depth in the hierarchy the column order implies.
type c30Line struct {
	label string
	level int
}

// privateLines are the value columns of privsatime.xlsx (B..BP), in order. The workbook
// has no indent column: the levels follow the Census Bureau's table of private construction
// (a line's parent is the nearest line before it one level up).
var privateLines = []c30Line{
	{"Total Private Construction", 0},
	{"Residential (inc. Improvements)", 1},
	{"New single family", 2},
	{"New multifamily", 2},
	{"Nonresidential", 1},
	{"Lodging", 2},
	{"Office", 2},
	{"General", 3},
	{"Data center", 3},
	{"Financial", 3},
	{"Commercial (inc. Farm)", 2},
	{"Automotive", 3},
	{"Sales", 4},
	{"Service/parts", 4},
	{"Parking", 4},
	{"Food/beverage", 3},
	{"Food", 4},
	{"Dining/drinking", 4},
	{"Multi-retail", 3},
	{"General merchandise", 4},
	{"Shopping center", 4},
	{"Shopping mall", 4},
	{"Other commercial", 3},
	{"Drug store", 4},
	{"Building supply store", 4},
	{"Other stores", 4},
	{"Warehouse", 3},
	{"General commercial", 4},
	{"Mini-storage", 4},
	{"Health care", 2},
	{"Hospital", 3},
	{"Medical building", 3},
	{"Special care", 3},
	{"Educational", 2},
	{"Preschool", 3},
	{"Primary/secondary", 3},
	{"Higher education", 3},
	{"Instructional", 4},
	{"Dormitory", 4},
	{"Sports/recreation", 4},
	{"Other educational", 3},
	{"Gallery/museum", 4},
	{"Religious", 2},
	{"House of worship", 3},
	{"Other religious", 3},
	{"Auxiliary building", 4},
	{"Amusement and Recreation", 2},
	{"Theme/amusement park", 3},
	{"Sports", 3},
	{"Fitness", 3},
	{"Performance/ meeting center", 3},
	{"Social center", 3},
	{"Movie theater/ studio", 3},
	{"Transportation", 2},
	{"Air", 3},
	{"Land", 3},
	{"Communication", 2},
	{"Power (inc. Gas and Oil)", 2},
	{"Electric", 3},
	{"Manufacturing", 2},
	{"Food/beverage/ tobacco", 3},
	{"Chemical", 3},
	{"Plastic/rubber", 3},
	{"Nonmetallic mineral", 3},
	{"Fabricated metal", 3},
	{"Computer/ electronic/ electrical", 3},
	{"Transportation equipment", 3},
}

// publicTypes are the types of construction of each public block of pubsatime.xlsx, under
// its total; Sewage and waste disposal and Water supply are not published for federal.
var publicTypes = []c30Line{
	{"Residential", 1},
	{"Nonresidential", 1},
	{"Office", 2},
	{"Commercial", 2},
	{"Health care", 2},
	{"Educational", 2},
	{"Public safety", 2},
	{"Amusement and recreation", 2},
	{"Transportation", 2},
	{"Power", 2},
	{"Highway and street", 2},
	{"Sewage and waste disposal", 2},
	{"Water supply", 2},
	{"Conservation and development", 2},
}

// publicBlock is one sector's columns in pubsatime.xlsx: the total's label, the prefix of
// its types' headers ("State\n<type>") and the types it has.
type publicBlock struct {
	sector, total, prefix string
	skip                  []string
}

var publicBlocks = []publicBlock{
	{"public", "Total Public Construction", "Public", nil},
	{"state_and_local", "Total State and Local Construction", "State", nil},
	{"federal", "Total Federal Construction", "Federal", []string{"Sewage and waste disposal", "Water supply"}},
}

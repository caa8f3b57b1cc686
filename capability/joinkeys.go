package capability

import "fmt"

// JoinKey names the shared vocabulary a field's values come from, so that two answers can be
// combined on it: the same value means the same thing in every capability that declares the
// key. A name-only key (NameOnly in JoinKeys) marks a field that names an entity by its
// printed name, with no code: it joins, if at all, by spelling, and the key to join on
// instead is named.
type JoinKey string

// The join keys. The first group are codes of one vocabulary; the second, names only.
const (
	KeyState              JoinKey = "state"
	KeyCountyFIPS         JoinKey = "county_fips"
	KeyBalancingAuthority JoinKey = "balancing_authority"
	KeyEIAPlantID         JoinKey = "eia_plant_id"
	KeyEIAUtilityID       JoinKey = "eia_utility_id"
	KeyNAICS              JoinKey = "naics"
	KeyHSCode             JoinKey = "hs_code"
	KeyISO                JoinKey = "iso"

	NameCounty  JoinKey = "county_name"
	NameState   JoinKey = "state_name"
	NamePlant   JoinKey = "plant_name"
	NameUtility JoinKey = "utility_name"
	NameCountry JoinKey = "country_name"
)

// JoinKeyDoc describes one join key.
type JoinKeyDoc struct {
	Key         JoinKey
	Description string
	// NameOnly marks a name without a code; Instead names the key to join on, when there is one.
	NameOnly bool
	Instead  JoinKey
}

// JoinKeys is the vocabulary of join keys, in the order the documentation lists them.
var JoinKeys = []JoinKeyDoc{
	{Key: KeyState, Description: "U.S. state, DC or territory as its two-letter USPS postal code (CA, TX, DC, PR); US where a row is the national figure; an interconnection queue's project in Canada carries its province's two-letter code"},
	{Key: KeyCountyFIPS, Description: "county as its five-digit FIPS code (two digits of the state, three of the county)"},
	{Key: KeyBalancingAuthority, Description: "balancing authority as EIA's code (ERCO, MISO, CISO, PJM); EIA-930 also names regions (CAL, TEX) with codes of this list, which are no balancing authority. A balancing authority is not a state"},
	{Key: KeyEIAPlantID, Description: "EIA plant identifier (the ORIS code EIA-860, EIA-860M and EIA-923 give a plant)"},
	{Key: KeyEIAUtilityID, Description: "EIA utility (entity) identifier, as EIA-860 and EIA-861 number a utility or plant operator"},
	{Key: KeyNAICS, Description: "North American Industry Classification System code (3344; a range such as 31-33 as published)"},
	{Key: KeyHSCode, Description: "Harmonized System commodity code (HS4 8542, HS6 854232, ...); codes of different lengths nest and are never added together"},
	{Key: KeyISO, Description: "grid operator (ISO or RTO) by its short name: MISO, PJM, CAISO, NYISO, ISO-NE, ERCOT, SPP"},
	{Key: NameCounty, NameOnly: true, Instead: KeyCountyFIPS, Description: "a county by its printed name, without FIPS code: join only together with the state, expect spellings to differ, and use county_fips where a capability gives it"},
	{Key: NameState, NameOnly: true, Instead: KeyState, Description: "a state by its printed name: join on the two-letter state field instead"},
	{Key: NamePlant, NameOnly: true, Instead: KeyEIAPlantID, Description: "a plant by the name its publisher prints: names repeat and change; join on eia_plant_id where a capability gives it"},
	{Key: NameUtility, NameOnly: true, Instead: KeyEIAUtilityID, Description: "a utility, owner or operator by its printed name: join on the EIA utility id where a capability gives it"},
	{Key: NameCountry, NameOnly: true, Description: "a country or grouping by the Census Bureau's printed name (its code is the Census Schedule C code, no ISO code): join by name between the trade capabilities only"},
}

// JoinKeyOf returns the description of key k.
func JoinKeyOf(k JoinKey) (JoinKeyDoc, bool) {
	for _, d := range JoinKeys {
		if d.Key == k {
			return d, true
		}
	}
	return JoinKeyDoc{}, false
}

// validJoinKey reports an undeclared join key.
func validJoinKey(k JoinKey) error {
	if k == "" {
		return nil
	}
	if _, ok := JoinKeyOf(k); !ok {
		return fmt.Errorf("join key %q is not one of capability.JoinKeys", k)
	}
	return nil
}

// JoinFields lists c's fields that declare a join key, in field order.
func (c *Capability) JoinFields() []Field {
	var out []Field
	for _, f := range c.Fields {
		if f.Key != "" {
			out = append(out, f)
		}
	}
	return out
}

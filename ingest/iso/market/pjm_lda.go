package market

import (
	"strings"

	"github.com/citeq/citeq/snapshots"
)

// pjmLDA is one locational deliverability area and the LDA it is nested in.
type pjmLDA struct {
	Code, Parent, Name string
}

// pjmLDAs is the nesting of the LDAs PJM models in its base residual auctions (PJM Manual 18,
// section 2.3.1, and the Reliability Assurance Agreement, Schedule 10.1): the workbooks print
// the LDAs, not their nesting, so the nesting is stated here, served as the lda codebook and
// on every row (parent_lda, lda_path).
var pjmLDAs = []pjmLDA{
	{"RTO", "", "PJM Region (RTO)"},
	{"MAAC", "RTO", "Mid-Atlantic Area Council"},
	{"EMAAC", "MAAC", "Eastern MAAC"},
	{"SWMAAC", "MAAC", "Southwestern MAAC"},
	{"PS", "EMAAC", "PSEG"},
	{"PSNORTH", "PS", "PSEG North"},
	{"DPLSOUTH", "EMAAC", "Delmarva Power South"},
	{"JCPL", "EMAAC", "Jersey Central Power & Light"},
	{"PEPCO", "SWMAAC", "Potomac Electric Power Co."},
	{"BGE", "SWMAAC", "Baltimore Gas & Electric"},
	{"PL", "MAAC", "PPL Electric Utilities"},
	{"ATSI", "RTO", "American Transmission Systems, Inc."},
	{"ATSI-CLEVELAND", "ATSI", "ATSI Cleveland"},
	{"COMED", "RTO", "Commonwealth Edison"},
	{"DAYTON", "RTO", "Dayton Power & Light"},
	{"DEOK", "RTO", "Duke Energy Ohio and Kentucky"},
	{"DOM", "RTO", "Dominion"},
}

func ldaByCode(code string) (pjmLDA, bool) {
	for _, l := range pjmLDAs {
		if l.Code == code {
			return l, true
		}
	}
	return pjmLDA{}, false
}

// ldaCode folds an LDA label as printed to the results workbooks' spelling: footnote marks
// dropped, upper case, no spaces ("RTO *" is RTO, "PS NORTH" is PSNORTH, "ATSI-Cleveland" is
// ATSI-CLEVELAND).
func ldaCode(label string) string {
	s := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(label), "*"))
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// ldaPath is the nesting of code from the RTO down ("RTO > MAAC > EMAAC > PS").
func ldaPath(code string) string {
	var path []string
	for c := code; c != ""; {
		path = append([]string{c}, path...)
		l, ok := ldaByCode(c)
		if !ok {
			break
		}
		c = l.Parent
	}
	return strings.Join(path, " > ")
}

// ldaCodebook is the lda codebook: each LDA with its parent as its group.
func ldaCodebook() snapshots.Codebook {
	cb := snapshots.Codebook{Name: "lda", Description: "PJM locational deliverability areas; group is the LDA each is nested in (PJM Manual 18, section 2.3.1), description its name and nesting"}
	for _, l := range pjmLDAs {
		cb.Codes = append(cb.Codes, snapshots.Code{Code: l.Code, Group: l.Parent, InAgencyTable: true,
			Description: l.Name + " (" + ldaPath(l.Code) + ")"})
	}
	return cb
}

// pjmAtomTypes is the atom_type codebook.
var pjmAtomTypes = []snapshots.Code{
	{Code: "clearing_price", Description: "BRA resource clearing price of the LDA, USD/MW-day UCAP (results workbook, Summary sheet)", InAgencyTable: true},
	{Code: "cleared_mw", Description: "BRA cleared UCAP MW of the LDA (results workbook, Summary sheet: sell offers cleared, equivalent annual resources; 2021/2022: total resources cleared for PJM LSEs); the RTO row is the RTO cleared MW", InAgencyTable: true},
	{Code: "auction_rto_reliability_requirement", Description: "RTO Reliability Requirement [MW] printed on the results workbook's BRA Load Pricing Results sheet (including EE addback and PRD reduction)", InAgencyTable: true},
	{Code: "reliability_requirement", Description: "Reliability Requirement of the LDA, MW UCAP (planning parameters)", InAgencyTable: true},
	{Code: "reliability_requirement_adjusted_for_frr", Description: "Reliability Requirement adjusted for FRR of the LDA, MW UCAP (planning parameters)", InAgencyTable: true},
	{Code: "price_cap", Description: "administrative price cap, USD/MW-day ICAP (planning parameters, 'Price Cap ($/MW-ICAP)', FERC ER25-1357)", InAgencyTable: true},
	{Code: "price_floor", Description: "administrative price floor, USD/MW-day ICAP (planning parameters, 'Price Floor ($/MW-ICAP)', FERC ER25-1357)", InAgencyTable: true},
	{Code: "installed_reserve_margin", Description: "Installed Reserve Margin (IRM), a ratio (planning parameters; checked against the results workbook's copy)", InAgencyTable: true},
	{Code: "forecast_pool_requirement", Description: "Forecast Pool Requirement (FPR), a ratio (planning parameters; checked against the results workbook's copy)", InAgencyTable: true},
}

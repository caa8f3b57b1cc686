package market

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

const (
	pjmFolder       = "iso/pjm/rpm"
	pjmResultsID    = "pjm_bra_results"
	pjmParametersID = "pjm_bra_planning_parameters"
	pjmURLBase      = "https://www.pjm.com/-/media/DotCom/markets-ops/rpm/rpm-auction-info/"
	docResults      = "bra_results"
	docParameters   = "planning_parameters"
)

var (
	pjmResultsFile    = regexp.MustCompile(`^(\d{4})-(\d{4})-(?:base-residual-auction|bra)-results\.xlsx$`)
	pjmParametersFile = regexp.MustCompile(`^(\d{4})-(\d{4})-.*planning-(?:period-)?parameters.*\.xlsx$`)
)

// pjmKnown are the official names of the workbooks, by delivery year.
var pjmKnown = []string{
	"2021-2022/2021-2022-base-residual-auction-results.xlsx",
	"2022-2023/2022-2023-base-residual-auction-results.xlsx",
	"2023-2024/2023-2024-base-residual-auction-results.xlsx",
	"2024-2025/2024-2025-base-residual-auction-results.xlsx",
	"2025-2026/2025-2026-base-residual-auction-results.xlsx",
	"2026-2027/2026-2027-bra-results.xlsx",
	"2027-2028/2027-2028-bra-results.xlsx",
	"2021-2022/2021-2022-bra-planning-period-parameters.xlsx",
	"2022-2023/2022-2023-planning-period-parameters-for-base-residual-auction.xlsx",
	"2023-2024/2023-2024-planning-period-parameters-for-base-residual-auction.xlsx",
	"2024-2025/2024-2025-rpm-bra-planning-parameters.xlsx",
	"2025-2026/2025-2026-planning-period-parameters-for-base-residual-auction.xlsx",
	"2026-2027/2026-2027-planning-period-parameters-for-base-residual-auction.xlsx",
	"2027-2028/2027-2028-planning-period-parameters-for-base-residual-auction.xlsx",
	"2028-2029/2028-2029-planning-period-parameters-for-base-residual-auction.xlsx",
}

// PJMCapacityMarket ingests power.capacity_market_pjm from PJM's base residual auction
// results workbooks (<DY>-base-residual-auction-results.xlsx, from 2026/2027
// <DY>-bra-results.xlsx) and BRA planning-parameter workbooks, all in one snapshot (results
// first, each kind from the latest delivery year back): one atom per printed value, the
// values printed in several places checked to agree (printed_copies_agree). The values stand
// in label-found blocks, so each kind of workbook is read by its Open hook.
var PJMCapacityMarket = kit.New(&kit.Spec{
	Cap:     capability.PowerCapacityMarketPJM,
	Version: "pjm-rpm-bra/1",
	Folders: []string{pjmFolder},
	Known:   pjmKnownSources(),
	Files: []*kit.File{
		{Match: pjmResultsFile, SourceID: pjmResultsID, Publisher: PublisherPJM, URL: pjmURL, Open: pjmOpen(results)},
		{Match: pjmParametersFile, SourceID: pjmParametersID, Publisher: PublisherPJM, URL: pjmURL, Open: pjmOpen(parameters)},
	},
	Together: true,
	Sort:     pjmLatestFirst,
	State:    func() any { return &pjmCopies{copies: map[string][]printedCopy{}} },
	AsOf:     pjmAsOf,
	Gates:    pjmGates,
	Required: []string{"atom_type", "delivery_year", "lda", "document", "unit"},
	Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 1e6}, "delivery_year_start": {Min: 2007, Max: 2100}},
})

// pjmKnownSources are the workbooks ingest --fetch downloads.
func pjmKnownSources() []fetch.Source {
	var out []fetch.Source
	for _, k := range pjmKnown {
		out = append(out, fetch.Source{URL: pjmURLBase + k, Kind: fetch.XLSX, Dest: pjmFolder + "/" + filepath.Base(k)})
	}
	return out
}

// pjmURL is a workbook's address, under its delivery year's folder.
func pjmURL(name string, m []string) string { return pjmURLBase + m[1] + "-" + m[2] + "/" + name }

// pjmLatestFirst orders the one snapshot's files each kind from the latest delivery year back.
func pjmLatestFirst(plans []ingest.Plan) {
	for _, p := range plans {
		n := 0
		for n < len(p.Files) && p.Files[n].SourceID == pjmResultsID {
			n++
		}
		slices.Reverse(p.Files[:n])
		slices.Reverse(p.Files[n:])
	}
}

// pjmOpen is the Open hook that reads a workbook's blocks with read, then dates the workbook
// by what it prints, else by its metadata, and titles it by its name.
func pjmOpen(read func(fr *kit.FileRead, dy int)) func(fr *kit.FileRead) error {
	return func(fr *kit.FileRead) error {
		modified, err := workbookModified(fr.Path)
		if err != nil {
			return err
		}
		dy, _ := strconv.Atoi(fr.Match[1])
		read(fr, dy)
		if fr.Source.Release == "" {
			fr.Source.Release = modified
		}
		fr.Source.Title = strings.TrimSuffix(fr.Name, ".xlsx")
		return nil
	}
}

// pjmAsOf is the latest date the workbooks carry, else the plan's hint.
func pjmAsOf(b *kit.Book) (string, error) {
	asOf := ""
	for _, fr := range b.Files {
		asOf = max(asOf, fr.Source.Release)
	}
	if asOf == "" {
		asOf = b.Plan.AsOfHint
	}
	return asOf, nil
}

// pjmGates are the snapshot's gates, with the atom_type and LDA codebooks.
func pjmGates(b *kit.Book) []snapshots.Gate {
	b.Codebooks = []snapshots.Codebook{
		{Name: "atom_type", Description: "what each atom is", Codes: append([]snapshots.Code(nil), pjmAtomTypes...)},
		ldaCodebook(),
	}
	return []snapshots.Gate{
		b.HeadersGate(strings.Join(b.Found, "; ")),
		b.CellsGate(fmt.Sprintf("%d values read", len(b.Facts))),
		b.CompleteGate("every results workbook has its Summary blocks, zonal Total and RTO reliability requirement; every planning-parameter workbook its IRM, FPR and reliability requirement rows"),
		b.State.(*pjmCopies).agree(),
	}
}

// pjmCopies are the values printed more than once, by delivery year and what they are.
type pjmCopies struct {
	copies map[string][]printedCopy
}

// printedCopy is one printing of a value: where and what.
type printedCopy struct {
	where string
	value float64
}

// copyOf records a printing of what for delivery year dy, where.
func copyOf(fr *kit.FileRead, dy int, what, where string, v any) {
	if f, ok := v.(float64); ok {
		pc := fr.Book.State.(*pjmCopies)
		k := fmt.Sprintf("%d/%d %s", dy, dy+1, what)
		pc.copies[k] = append(pc.copies[k], printedCopy{where, f})
	}
}

// header records the header row of sheet.
func header(fr *kit.FileRead, sheet string, row int) { fr.Source.HeaderRows[sheet] = row }

// row1Date is the first date printed in row 1 of sh (the posting date of a planning-parameter
// workbook, the auction results date of the 2021/2022 results), "" when none.
func row1Date(sh *grid.Sheet) string {
	for _, c := range sh.Row(1) {
		if c.Kind != grid.Number {
			continue
		}
		if d, err := kit.Date(c); err == nil && d != nil {
			return d.(string)
		}
	}
	return ""
}

// colA is the folded text of column A of row r.
func colA(sh *grid.Sheet, r int) string { return kit.Norm(sh.Cell(r, 1).Value) }

// findRow is the first row at or after from whose column A folds to one of labels (0: none).
func findRow(sh *grid.Sheet, from int, labels ...string) int {
	for r := from; r <= sh.NumRows(); r++ {
		a := colA(sh, r)
		for _, l := range labels {
			if a == kit.Norm(l) {
				return r
			}
		}
	}
	return 0
}

// blockEnd reports whether row r ends an LDA block: column A blank or a footnote.
func blockEnd(sh *grid.Sheet, r int) bool {
	a := strings.TrimSpace(sh.Cell(r, 1).Value)
	return a == "" || strings.HasPrefix(a, "*") || kit.IsNote(sh.Row(r))
}

// number reads the cell of row r, column c of sh as a number, recording one that does not
// parse at its address.
func number(fr *kit.FileRead, sh *grid.Sheet, r, c int) any {
	v, err := kit.Number(sh.Cell(r, c))
	if err != nil {
		fr.Book.Bad.Add("%s %s!%s%d: %v", fr.Name, sh.Name, grid.ColumnName(c), r, err)
	}
	return v
}

// add adds the atom read from row r, column c of sh, unless the cell is blank. Each value's
// column is cited in source_column, which the definition declares chooses it (the LDA matrix
// and the 2021/2022 Summary hold values in several columns).
func add(fr *kit.FileRead, sh *grid.Sheet, r, c int, atomType, doc string, dy int, lda, unit, columnLabel string) any {
	v := number(fr, sh, r, c)
	if v == nil {
		return nil
	}
	code := ldaCode(lda)
	var parent any
	if l, ok := ldaByCode(code); ok && l.Parent != "" {
		parent = l.Parent
	}
	year := fmt.Sprintf("%d/%d", dy, dy+1)
	fr.Book.Rows.Add(ingest.Lineage{SourceID: fr.SourceID, File: fr.Name, Sheet: sh.Name, Row: r, SHA256: fr.SHA256}).
		Set("atom_type", atomType).
		Set("delivery_year", year).
		Set("delivery_year_start", dy).
		Set("delivery_start_date", fmt.Sprintf("%d-06-01", dy)).
		Set("lda", code).
		Set("lda_as_published", kit.Squash(strings.TrimSpace(lda))).
		Set("parent_lda", parent).
		Set("lda_path", ldaPath(code)).
		Set("document", doc).
		Set("unit", unit).
		SetCell("row_label", 1, kit.Squash(strings.TrimSpace(sh.Cell(r, 1).Value))).
		Set("column_label", kit.Squash(columnLabel)).
		Set("source_column", grid.ColumnName(c)).
		SetCell("value", c, v).
		Key(strings.Join([]string{atomType, year, code, doc}, "|"))
	return v
}

// results reads a BRA results workbook: the Summary sheet's clearing prices and cleared MW by
// LDA (and the zonal obligation total, a copy of the RTO cleared MW), and the Load Pricing
// sheet's RTO reliability requirement (and its copies of the IRM, FPR and RTO cleared MW).
func results(fr *kit.FileRead, dy int) {
	name, wb := fr.Name, fr.WB
	where := func(sh *grid.Sheet, r, c int) string {
		return fmt.Sprintf("%s %s!%s%d", name, sh.Name, grid.ColumnName(c), r)
	}
	sh := wb.Sheet("Summary")
	if sh == nil {
		fr.Book.Missing = append(fr.Book.Missing, name+": no Summary sheet")
	} else {
		if d := row1Date(sh); d != "" {
			fr.Source.Release = d
		}
		var rto any
		headed := true
		if h, err := kit.FindHeader(sh, 10, "LDA/External Source Zone", "Total Resources Cleared for PJM LSEs (MW)", "Resource Clearing Price ($/MW-day)"); err == nil {
			// 2021/2022: cleared MW and price on one row.
			header(fr, sh.Name, h.Row)
			cMW, cPrice := h.Col("Total Resources Cleared for PJM LSEs (MW)"), h.Col("Resource Clearing Price ($/MW-day)")
			n := 0
			for r := h.Row + 1; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
				lda := sh.Cell(r, 1).Value
				v := add(fr, sh, r, cMW, "cleared_mw", docResults, dy, lda, "MW UCAP", h.Label(cMW))
				add(fr, sh, r, cPrice, "clearing_price", docResults, dy, lda, "USD/MW-day UCAP", h.Label(cPrice))
				if ldaCode(lda) == "RTO" {
					rto = v
					copyOf(fr, dy, "RTO cleared MW", where(sh, r, cMW), v)
				}
				n++
			}
			fr.Book.Found = append(fr.Book.Found, fmt.Sprintf("%s: %d LDAs", name, n))
		} else if pr := findRow(sh, 1, "Resource Clearing Prices [$/MW-day]"); pr > 0 && len(kit.HeaderAt(sh, pr+1).Missing("LDA", "Base Residual Auction")) == 0 {
			header(fr, sh.Name, pr+1)
			n := 0
			for r := pr + 2; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
				add(fr, sh, r, 2, "clearing_price", docResults, dy, sh.Cell(r, 1).Value, "USD/MW-day UCAP", "Resource Clearing Prices [$/MW-day]: Base Residual Auction")
				n++
			}
			cr := findRow(sh, pr, "Participant Buy Bids/Sell Offers Cleared [Equivalent Annual Resources in MW]")
			switch {
			case cr == 0:
				headed = false // reported here, not again as a missing RTO cleared MW
				fr.Book.Incomplete = append(fr.Book.Incomplete, name+": the Summary sheet has no cleared MW block 'Participant Buy Bids/Sell Offers Cleared' (cut short?)")
			case len(kit.HeaderAt(sh, cr+1).Missing("LDA", "Base Residual Auction")) > 0:
				headed = false
				fr.Book.Missing = append(fr.Book.Missing, fmt.Sprintf("%s: Summary row %d is not headed LDA | Base Residual Auction", name, cr+1))
			default:
				start := cr + 2
				if strings.TrimSpace(sh.Cell(start, 1).Value) == "" { // the "Participant Sell Offers Cleared" sub-header
					start++
				}
				m := 0
				for r := start; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
					lda := sh.Cell(r, 1).Value
					v := add(fr, sh, r, 2, "cleared_mw", docResults, dy, lda, "MW UCAP", "Participant Buy Bids/Sell Offers Cleared: Base Residual Auction")
					if ldaCode(lda) == "RTO" {
						rto = v
						copyOf(fr, dy, "RTO cleared MW", where(sh, r, 2), v)
					}
					m++
				}
				if m != n {
					fr.Book.Incomplete = append(fr.Book.Incomplete, fmt.Sprintf("%s: %d LDAs with a clearing price, %d with cleared MW", name, n, m))
				}
			}
			fr.Book.Found = append(fr.Book.Found, fmt.Sprintf("%s: %d LDAs", name, n))
		} else {
			headed = false
			fr.Book.Missing = append(fr.Book.Missing, name+": Summary has neither the 2021/2022 header (LDA/External Source Zone, Total Resources Cleared, Resource Clearing Price) nor the block 'Resource Clearing Prices [$/MW-day]' headed LDA | Base Residual Auction")
		}
		if rto == nil && headed {
			fr.Book.Incomplete = append(fr.Book.Incomplete, name+": no RTO cleared MW on the Summary sheet")
		}
		// The zonal table ends with a Total row: the RTO cleared MW again. A sheet cut short
		// has none.
		if zr := findRow(sh, 1, "Total"); zr > 0 {
			copyOf(fr, dy, "RTO cleared MW", where(sh, zr, 2), number(fr, sh, zr, 2))
		} else {
			fr.Book.Incomplete = append(fr.Book.Incomplete, name+": the Summary sheet has no zonal Total row (cut short?)")
		}
	}
	lp := wb.Sheet("BRA Load Pricing Results")
	if lp == nil {
		fr.Book.Missing = append(fr.Book.Missing, name+": no BRA Load Pricing Results sheet")
		return
	}
	if h, err := kit.FindHeader(lp, 30, "LDA", "LDA Base UCAP Obligation [MW]"); err == nil {
		header(fr, lp.Name, h.Row)
		if r := findRow(lp, h.Row+1, "RTO"); r > 0 {
			copyOf(fr, dy, "RTO cleared MW", where(lp, r, h.Col("LDA Base UCAP Obligation [MW]")), number(fr, lp, r, h.Col("LDA Base UCAP Obligation [MW]")))
		}
	} else {
		fr.Book.Missing = append(fr.Book.Missing, name+": "+err.Error())
	}
	rr := findRow(lp, 1, "RTO Reliability Requirement [MW]")
	if rr == 0 {
		fr.Book.Incomplete = append(fr.Book.Incomplete, name+": no 'RTO Reliability Requirement [MW]' row on BRA Load Pricing Results")
	} else {
		add(fr, lp, rr, 2, "auction_rto_reliability_requirement", docResults, dy, "RTO", "MW UCAP", "RPM Parameters")
	}
	for _, k := range []struct{ label, what string }{{"IRM", "installed_reserve_margin"}, {"FPR", "forecast_pool_requirement"}} {
		if r := findRow(lp, 1, k.label); r > 0 {
			copyOf(fr, dy, k.what, where(lp, r, 2), number(fr, lp, r, 2))
		}
	}
}

// parameters reads a planning-parameter workbook: the RTO scalars at the top (IRM, FPR, the
// price collar where printed) and the LDA matrix's reliability requirement rows.
func parameters(fr *kit.FileRead, dy int) {
	name, wb := fr.Name, fr.WB
	var sh *grid.Sheet
	for _, s := range wb.Sheets {
		if strings.HasSuffix(s.Name, "Parameters") {
			sh = s
			break
		}
	}
	if sh == nil {
		fr.Book.Missing = append(fr.Book.Missing, fmt.Sprintf("%s: no Parameters sheet (sheets: %s)", name, strings.Join(wb.SheetNames(), ", ")))
		return
	}
	if d := row1Date(sh); d != "" {
		fr.Source.Release = d
	}
	// The LDA matrix: its header row has RTO and MAAC in columns B and C.
	hr := 0
	for r := 2; r <= min(40, sh.NumRows()); r++ {
		if strings.TrimSpace(sh.Cell(r, 2).Value) == "RTO" && strings.TrimSpace(sh.Cell(r, 3).Value) == "MAAC" {
			hr = r
			break
		}
	}
	if hr == 0 {
		fr.Book.Missing = append(fr.Book.Missing, name+": no LDA matrix header (RTO, MAAC, ... in columns B and C) among the first 40 rows")
		return
	}
	header(fr, sh.Name, hr)
	h := kit.HeaderAt(sh, hr)
	scalars := []struct{ label, atom, unit string }{
		{"Installed Reserve Margin (IRM)", "installed_reserve_margin", "ratio"},
		{"Forecast Pool Requirement (FPR)", "forecast_pool_requirement", "ratio"},
		{"Price Cap ($/MW-ICAP)", "price_cap", "USD/MW-day ICAP"},
		{"Price Floor ($/MW-ICAP)", "price_floor", "USD/MW-day ICAP"},
	}
	for _, s := range scalars {
		r := findRow(sh, 1, s.label)
		if r == 0 || r > hr {
			if s.atom == "installed_reserve_margin" || s.atom == "forecast_pool_requirement" {
				fr.Book.Incomplete = append(fr.Book.Incomplete, fmt.Sprintf("%s: no %q row above the LDA matrix", name, s.label))
			}
			continue
		}
		v := add(fr, sh, r, 2, s.atom, docParameters, dy, "RTO", s.unit, "RTO")
		copyOf(fr, dy, s.atom, fmt.Sprintf("%s %s!B%d", name, sh.Name, r), v)
	}
	for _, m := range []struct{ label, atom string }{
		{"Reliability Requirement", "reliability_requirement"},
		{"Reliability Requirement adjusted for FRR", "reliability_requirement_adjusted_for_frr"},
	} {
		r := findRow(sh, hr+1, m.label)
		if r == 0 {
			fr.Book.Incomplete = append(fr.Book.Incomplete, fmt.Sprintf("%s: no %q row in the LDA matrix", name, m.label))
			continue
		}
		for c := 2; c <= len(sh.Row(hr)); c++ {
			if lda := strings.TrimSpace(h.Label(c)); lda != "" {
				add(fr, sh, r, c, m.atom, docParameters, dy, lda, "MW UCAP", lda)
			}
		}
	}
	fr.Book.Found = append(fr.Book.Found, fmt.Sprintf("%s: %d LDAs", name, len(h.Labels())-1))
}

// agree is the printed_copies_agree gate: every value printed more than once has the same
// value wherever it is printed (within a relative 1e-9, or at the precision of the less
// precise printing: 0.77 and 0.7699 agree).
func (pc *pjmCopies) agree() snapshots.Gate {
	var keys []string
	for k := range pc.copies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	checked, printed := 0, 0
	for _, k := range keys {
		cs := pc.copies[k]
		if len(cs) > 1 {
			printed++
		}
		for _, c := range cs[1:] {
			checked++
			if !samePrinted(cs[0].value, c.value) {
				bad = append(bad, fmt.Sprintf("%s: %v at %s, %v at %s", k, cs[0].value, cs[0].where, c.value, c.where))
			}
		}
	}
	return kit.Failures("printed_copies_agree", bad, fmt.Sprintf("%d values printed more than once, %d further copies agree with the first", printed, checked))
}

// samePrinted reports whether two printings of a value agree: equal within a relative 1e-9,
// or equal once the more precise is rounded to the decimals of the less precise when that one
// prints 1 to 5 decimals (a whole number is not taken as rounded: 140 and 140.02 differ).
func samePrinted(a, b float64) bool {
	if math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) {
		return true
	}
	da, db := decimals(a), decimals(b)
	d := min(da, db)
	if d < 1 || d > 5 {
		return false
	}
	p := math.Pow(10, float64(d))
	return math.Round(a*p) == math.Round(b*p)
}

// decimals is the number of decimals of the shortest printing of x.
func decimals(x float64) int {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

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

// PJMCapacityMarket ingests power.capacity_market_pjm from PJM's base residual auction
// results workbooks (<DY>-base-residual-auction-results.xlsx, from 2026/2027
// <DY>-bra-results.xlsx) and BRA planning-parameter workbooks, all in one snapshot: one atom
// per printed value, the values printed in several places checked to agree.
type PJMCapacityMarket struct{}

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

// Capability implements ingest.Adapter.
func (PJMCapacityMarket) Capability() *capability.Capability {
	return capability.PowerCapacityMarketPJM
}

// Version implements ingest.Adapter.
func (PJMCapacityMarket) Version() string { return "pjm-rpm-bra/1" }

// Folders implements ingest.Adapter.
func (PJMCapacityMarket) Folders() []string { return []string{pjmFolder} }

// Known implements ingest.Adapter.
func (PJMCapacityMarket) Known() []fetch.Source {
	var out []fetch.Source
	for _, k := range pjmKnown {
		out = append(out, fetch.Source{URL: pjmURLBase + k, Kind: fetch.XLSX, Dest: pjmFolder + "/" + filepath.Base(k)})
	}
	return out
}

// Plan implements ingest.Adapter: one snapshot of every results and planning-parameter
// workbook found, results first, each kind from the latest delivery year back.
func (PJMCapacityMarket) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return pjmResultsFile.MatchString(n) || pjmParametersFile.MatchString(n) })
	if err != nil {
		return nil, err
	}
	var results, params []ingest.File
	for _, p := range paths {
		name := filepath.Base(p)
		if m := pjmResultsFile.FindStringSubmatch(name); m != nil {
			results = append(results, ingest.File{Path: p, SourceID: pjmResultsID, Publisher: PublisherPJM, URL: pjmURLBase + m[1] + "-" + m[2] + "/" + name, Role: ingest.RoleData})
			continue
		}
		m := pjmParametersFile.FindStringSubmatch(name)
		params = append(params, ingest.File{Path: p, SourceID: pjmParametersID, Publisher: PublisherPJM, URL: pjmURLBase + m[1] + "-" + m[2] + "/" + name, Role: ingest.RoleData})
	}
	if len(results)+len(params) == 0 {
		return nil, nil
	}
	slices.Reverse(results)
	slices.Reverse(params)
	return []ingest.Plan{{Files: append(results, params...)}}, nil
}

// pjmAtom is one printed value, before it becomes a row.
type pjmAtom struct {
	file                  *ingest.File
	sheet                 string
	row, col              int
	atomType, doc         string
	dyStart               int
	ldaPublished          string
	value                 any
	unit                  string
	rowLabel, columnLabel string
}

// pjmBuild collects what the workbooks hold.
type pjmBuild struct {
	atoms      []pjmAtom
	bad        kit.Problems
	missing    []string
	incomplete []string
	headers    map[string]map[string]int // file -> sheet -> header row
	found      []string
	dates      map[string]string // file -> date it carries
	// copies are the values printed more than once, by delivery year and what they are.
	copies map[string][]printedCopy
}

// printedCopy is one printing of a value: where and what.
type printedCopy struct {
	where string
	value float64
}

func (pb *pjmBuild) copy(dy int, what, where string, v any) {
	if f, ok := v.(float64); ok {
		k := fmt.Sprintf("%d/%d %s", dy, dy+1, what)
		pb.copies[k] = append(pb.copies[k], printedCopy{where, f})
	}
}

func (pb *pjmBuild) header(file, sheet string, row int) {
	if pb.headers[file] == nil {
		pb.headers[file] = map[string]int{}
	}
	pb.headers[file][sheet] = row
}

// Build implements ingest.Adapter.
func (PJMCapacityMarket) Build(p ingest.Plan) (*ingest.Build, error) {
	pb := &pjmBuild{headers: map[string]map[string]int{}, dates: map[string]string{}, copies: map[string][]printedCopy{}}
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("pjm capacity market: %w", err)
		}
		modified, err := workbookModified(f.Path)
		if err != nil {
			return nil, fmt.Errorf("pjm capacity market: %w", err)
		}
		if m := pjmResultsFile.FindStringSubmatch(name); m != nil {
			dy, _ := strconv.Atoi(m[1])
			pb.results(f, wb, dy)
		} else if m := pjmParametersFile.FindStringSubmatch(name); m != nil {
			dy, _ := strconv.Atoi(m[1])
			pb.parameters(f, wb, dy)
		} else {
			return nil, fmt.Errorf("pjm capacity market: %s is neither a results nor a planning-parameter workbook", name)
		}
		if pb.dates[name] == "" {
			pb.dates[name] = modified
		}
	}
	asOf := ""
	for _, d := range pb.dates {
		asOf = max(asOf, d)
	}
	if asOf == "" {
		asOf = p.AsOfHint
	}
	return pb.finish(p, asOf)
}

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

func (pb *pjmBuild) number(f *ingest.File, sh *grid.Sheet, r, c int) any {
	v, err := kit.Number(sh.Cell(r, c))
	if err != nil {
		pb.bad.Add("%s %s!%s%d: %v", filepath.Base(f.Path), sh.Name, grid.ColumnName(c), r, err)
	}
	return v
}

// add records an atom read from row r, column c of sh, unless the cell is blank.
func (pb *pjmBuild) add(f *ingest.File, sh *grid.Sheet, r, c int, atomType, doc string, dy int, lda, unit, columnLabel string) any {
	v := pb.number(f, sh, r, c)
	if v == nil {
		return nil
	}
	pb.atoms = append(pb.atoms, pjmAtom{file: f, sheet: sh.Name, row: r, col: c, atomType: atomType, doc: doc, dyStart: dy,
		ldaPublished: lda, value: v, unit: unit, rowLabel: kit.Squash(strings.TrimSpace(sh.Cell(r, 1).Value)), columnLabel: columnLabel})
	return v
}

// results reads a BRA results workbook: the Summary sheet's clearing prices and cleared MW by
// LDA (and the zonal obligation total, a copy of the RTO cleared MW), and the Load Pricing
// sheet's RTO reliability requirement (and its copies of the IRM, FPR and RTO cleared MW).
func (pb *pjmBuild) results(f *ingest.File, wb *grid.Workbook, dy int) {
	name := filepath.Base(f.Path)
	where := func(sh *grid.Sheet, r, c int) string {
		return fmt.Sprintf("%s %s!%s%d", name, sh.Name, grid.ColumnName(c), r)
	}
	sh := wb.Sheet("Summary")
	if sh == nil {
		pb.missing = append(pb.missing, name+": no Summary sheet")
	} else {
		if d := row1Date(sh); d != "" {
			pb.dates[name] = d
		}
		var rto any
		headed := true
		if h, err := kit.FindHeader(sh, 10, "LDA/External Source Zone", "Total Resources Cleared for PJM LSEs (MW)", "Resource Clearing Price ($/MW-day)"); err == nil {
			// 2021/2022: cleared MW and price on one row.
			pb.header(name, sh.Name, h.Row)
			cMW, cPrice := h.Col("Total Resources Cleared for PJM LSEs (MW)"), h.Col("Resource Clearing Price ($/MW-day)")
			n := 0
			for r := h.Row + 1; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
				lda := sh.Cell(r, 1).Value
				v := pb.add(f, sh, r, cMW, "cleared_mw", docResults, dy, lda, "MW UCAP", h.Label(cMW))
				pb.add(f, sh, r, cPrice, "clearing_price", docResults, dy, lda, "USD/MW-day UCAP", h.Label(cPrice))
				if ldaCode(lda) == "RTO" {
					rto = v
					pb.copy(dy, "RTO cleared MW", where(sh, r, cMW), v)
				}
				n++
			}
			pb.found = append(pb.found, fmt.Sprintf("%s: %d LDAs", name, n))
		} else if pr := findRow(sh, 1, "Resource Clearing Prices [$/MW-day]"); pr > 0 && len(kit.HeaderAt(sh, pr+1).Missing("LDA", "Base Residual Auction")) == 0 {
			pb.header(name, sh.Name, pr+1)
			n := 0
			for r := pr + 2; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
				pb.add(f, sh, r, 2, "clearing_price", docResults, dy, sh.Cell(r, 1).Value, "USD/MW-day UCAP", "Resource Clearing Prices [$/MW-day]: Base Residual Auction")
				n++
			}
			cr := findRow(sh, pr, "Participant Buy Bids/Sell Offers Cleared [Equivalent Annual Resources in MW]")
			switch {
			case cr == 0:
				headed = false // reported here, not again as a missing RTO cleared MW
				pb.incomplete = append(pb.incomplete, name+": the Summary sheet has no cleared MW block 'Participant Buy Bids/Sell Offers Cleared' (cut short?)")
			case len(kit.HeaderAt(sh, cr+1).Missing("LDA", "Base Residual Auction")) > 0:
				headed = false
				pb.missing = append(pb.missing, fmt.Sprintf("%s: Summary row %d is not headed LDA | Base Residual Auction", name, cr+1))
			default:
				start := cr + 2
				if strings.TrimSpace(sh.Cell(start, 1).Value) == "" { // the "Participant Sell Offers Cleared" sub-header
					start++
				}
				m := 0
				for r := start; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
					lda := sh.Cell(r, 1).Value
					v := pb.add(f, sh, r, 2, "cleared_mw", docResults, dy, lda, "MW UCAP", "Participant Buy Bids/Sell Offers Cleared: Base Residual Auction")
					if ldaCode(lda) == "RTO" {
						rto = v
						pb.copy(dy, "RTO cleared MW", where(sh, r, 2), v)
					}
					m++
				}
				if m != n {
					pb.incomplete = append(pb.incomplete, fmt.Sprintf("%s: %d LDAs with a clearing price, %d with cleared MW", name, n, m))
				}
			}
			pb.found = append(pb.found, fmt.Sprintf("%s: %d LDAs", name, n))
		} else {
			headed = false
			pb.missing = append(pb.missing, name+": Summary has neither the 2021/2022 header (LDA/External Source Zone, Total Resources Cleared, Resource Clearing Price) nor the block 'Resource Clearing Prices [$/MW-day]' headed LDA | Base Residual Auction")
		}
		if rto == nil && headed {
			pb.incomplete = append(pb.incomplete, name+": no RTO cleared MW on the Summary sheet")
		}
		// The zonal table ends with a Total row: the RTO cleared MW again. A sheet cut short
		// has none.
		if zr := findRow(sh, 1, "Total"); zr > 0 {
			pb.copy(dy, "RTO cleared MW", where(sh, zr, 2), pb.number(f, sh, zr, 2))
		} else {
			pb.incomplete = append(pb.incomplete, name+": the Summary sheet has no zonal Total row (cut short?)")
		}
	}
	lp := wb.Sheet("BRA Load Pricing Results")
	if lp == nil {
		pb.missing = append(pb.missing, name+": no BRA Load Pricing Results sheet")
		return
	}
	if h, err := kit.FindHeader(lp, 30, "LDA", "LDA Base UCAP Obligation [MW]"); err == nil {
		pb.header(name, lp.Name, h.Row)
		if r := findRow(lp, h.Row+1, "RTO"); r > 0 {
			pb.copy(dy, "RTO cleared MW", where(lp, r, h.Col("LDA Base UCAP Obligation [MW]")), pb.number(f, lp, r, h.Col("LDA Base UCAP Obligation [MW]")))
		}
	} else {
		pb.missing = append(pb.missing, name+": "+err.Error())
	}
	rr := findRow(lp, 1, "RTO Reliability Requirement [MW]")
	if rr == 0 {
		pb.incomplete = append(pb.incomplete, name+": no 'RTO Reliability Requirement [MW]' row on BRA Load Pricing Results")
	} else {
		pb.add(f, lp, rr, 2, "auction_rto_reliability_requirement", docResults, dy, "RTO", "MW UCAP", "RPM Parameters")
	}
	for _, k := range []struct{ label, what string }{{"IRM", "installed_reserve_margin"}, {"FPR", "forecast_pool_requirement"}} {
		if r := findRow(lp, 1, k.label); r > 0 {
			pb.copy(dy, k.what, where(lp, r, 2), pb.number(f, lp, r, 2))
		}
	}
}

// parameters reads a planning-parameter workbook: the RTO scalars at the top (IRM, FPR, the
// price collar where printed) and the LDA matrix's reliability requirement rows.
func (pb *pjmBuild) parameters(f *ingest.File, wb *grid.Workbook, dy int) {
	name := filepath.Base(f.Path)
	var sh *grid.Sheet
	for _, s := range wb.Sheets {
		if strings.HasSuffix(s.Name, "Parameters") {
			sh = s
			break
		}
	}
	if sh == nil {
		pb.missing = append(pb.missing, fmt.Sprintf("%s: no Parameters sheet (sheets: %s)", name, strings.Join(wb.SheetNames(), ", ")))
		return
	}
	if d := row1Date(sh); d != "" {
		pb.dates[name] = d
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
		pb.missing = append(pb.missing, name+": no LDA matrix header (RTO, MAAC, ... in columns B and C) among the first 40 rows")
		return
	}
	pb.header(name, sh.Name, hr)
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
				pb.incomplete = append(pb.incomplete, fmt.Sprintf("%s: no %q row above the LDA matrix", name, s.label))
			}
			continue
		}
		v := pb.add(f, sh, r, 2, s.atom, docParameters, dy, "RTO", s.unit, "RTO")
		pb.copy(dy, s.atom, fmt.Sprintf("%s %s!B%d", name, sh.Name, r), v)
	}
	for _, m := range []struct{ label, atom string }{
		{"Reliability Requirement", "reliability_requirement"},
		{"Reliability Requirement adjusted for FRR", "reliability_requirement_adjusted_for_frr"},
	} {
		r := findRow(sh, hr+1, m.label)
		if r == 0 {
			pb.incomplete = append(pb.incomplete, fmt.Sprintf("%s: no %q row in the LDA matrix", name, m.label))
			continue
		}
		for c := 2; c <= len(sh.Row(hr)); c++ {
			if lda := strings.TrimSpace(h.Label(c)); lda != "" {
				pb.add(f, sh, r, c, m.atom, docParameters, dy, lda, "MW UCAP", lda)
			}
		}
	}
	pb.found = append(pb.found, fmt.Sprintf("%s: %d LDAs", name, len(h.Labels())-1))
}

// agree is the printed_copies_agree gate: every value printed more than once has the same
// value wherever it is printed (within a relative 1e-9, or at the precision of the less
// precise printing: 0.77 and 0.7699 agree).
func (pb *pjmBuild) agree() snapshots.Gate {
	var keys []string
	for k := range pb.copies {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad []string
	checked, printed := 0, 0
	for _, k := range keys {
		cs := pb.copies[k]
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

func (pb *pjmBuild) finish(p ingest.Plan, asOf string) (*ingest.Build, error) {
	c := capability.PowerCapacityMarketPJM
	rows := ingest.NewRows(c)
	// Each value's column is cited in source_column, which the definition declares chooses
	// it (the LDA matrix and the 2021/2022 Summary hold values in several columns).
	for _, a := range pb.atoms {
		name := filepath.Base(a.file.Path)
		code := ldaCode(a.ldaPublished)
		var parent any
		if l, ok := ldaByCode(code); ok && l.Parent != "" {
			parent = l.Parent
		}
		dy := fmt.Sprintf("%d/%d", a.dyStart, a.dyStart+1)
		rows.Add(ingest.Lineage{SourceID: a.file.SourceID, File: name, Sheet: a.sheet, Row: a.row, SHA256: a.file.SHA256}).
			Set("atom_type", a.atomType).
			Set("delivery_year", dy).
			Set("delivery_year_start", a.dyStart).
			Set("delivery_start_date", fmt.Sprintf("%d-06-01", a.dyStart)).
			Set("lda", code).
			Set("lda_as_published", kit.Squash(strings.TrimSpace(a.ldaPublished))).
			Set("parent_lda", parent).
			Set("lda_path", ldaPath(code)).
			Set("document", a.doc).
			Set("unit", a.unit).
			SetCell("row_label", 1, a.rowLabel).
			Set("column_label", kit.Squash(a.columnLabel)).
			Set("source_column", grid.ColumnName(a.col)).
			SetCell("value", a.col, a.value).
			Key(strings.Join([]string{a.atomType, dy, code, a.doc}, "|"))
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	b := &ingest.Build{AsOf: asOf, Rows: facts, Cells: rows.Cells(),
		Required: []string{"atom_type", "delivery_year", "lda", "document", "unit"},
		Ranges:   map[string]snapshots.Range{"value": {Min: 0, Max: 1e6}, "delivery_year_start": {Min: 2007, Max: 2100}},
	}
	for _, f := range p.Files {
		name := filepath.Base(f.Path)
		src := f.Source()
		src.Release, src.HeaderRows = pb.dates[name], pb.headers[name]
		src.Title = strings.TrimSuffix(name, ".xlsx")
		b.Sources = append(b.Sources, src)
	}
	books := []snapshots.Codebook{
		{Name: "atom_type", Description: "what each atom is", Codes: append([]snapshots.Code(nil), pjmAtomTypes...)},
		ldaCodebook(),
	}
	b.Codebooks = ingest.CountCodes(c, books, facts)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, pb.missing, strings.Join(pb.found, "; ")),
		pb.bad.Gate(kit.GateCells, fmt.Sprintf("%d values read", len(facts))),
		kit.Failures(kit.GateComplete, pb.incomplete, "every results workbook has its Summary blocks, zonal Total and RTO reliability requirement; every planning-parameter workbook its IRM, FPR and reliability requirement rows"),
		pb.agree())
	return b, nil
}

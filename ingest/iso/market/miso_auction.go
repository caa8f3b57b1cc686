package market

import (
	"fmt"
	"path/filepath"
	"regexp"
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

// MISOAuction ingests power.capacity_market_miso from MISO's Planning Resource Auction
// results postings, the PDF MISO publishes (read page by page through grid: sheet "Page <n>",
// one row per printed line). The tables, as MISO prints them:
//   - one page per season titled "<Season> <year> PRA Results by Zone" (Winter with both
//     years), the zones across (Z1 ... Z10, then ERZ for the external resource zones, then
//     MISO's totals) and the auction clearing price on the row "ACP ($/MW-Day)". Prices are
//     printed with two decimals, from the 2026-2027 posting on with a dollar sign. The ERZ
//     clearing is quoted as printed; a range that wraps in its cell ("74.09-" over "91.60")
//     is printed on the lines above and below the row and is joined as one quotation;
//   - "CONE (Seasonal)": per season (labels such as "Summer 2025" or "Winter 2025-26") the
//     CONE of the MISO system, of North/Central and of South in USD/MW-day, either axis across;
//     the subregions are read, the system column is not an atom (the contract's seasonal CONE
//     is subregional);
//   - the annual CONE by zone as MISO states it, per MW-year (e.g. 127,720 for zone 1 in
//     2025-2026): the table "CONE (Annual)" (zones 1 to 10 and the ERZs, either axis across;
//     the 2025-2026 posting), or the row "Cost of New Entry (Annual)" of a season's "Auction
//     Clearing Price Comparison" table under its zone header (the 2023-2024 and 2024-2025
//     postings; a row printed in several season tables must agree);
//   - "IMM Conduct Threshold ($/MW-Day)": Zone | Summer | Fall | Winter | Spring (as the
//     adapter expects it: no posting has been read to confirm it).
//
// Each posting is its own snapshot; a corrections posting is a distinct document.
type MISOAuction struct{}

const (
	misoPRAFolder   = "iso/miso/pra"
	misoPRASourceID = "miso_pra_results"
	misoPRAURL      = "https://www.misoenergy.org/planning/resource-adequacy/"
	misoFirstYear   = 2024
)

// misoPosting matches "2025-2026 PRA Results Posting 20250428.pdf" and its corrections,
// "2025-2026 PRA Results Posting 20250529 Corrections.pdf" (spaces or underscores; an xlsx
// copy of a posting is read alike).
var misoPosting = regexp.MustCompile(`^(\d{4})-(\d{4})[ _]PRA[ _]Results[ _]Posting[ _](\d{4})(\d{2})(\d{2})([ _]Corrections?)?\.(pdf|xlsx)$`)

// misoSeasonPage matches the title of a season's results page.
var misoSeasonPage = regexp.MustCompile(`(?i)^(Summer|Fall|Winter|Spring) (\d{4})(?:[/-]\d{2,4})? PRA Results by Zone\b`)

var misoSeasons = []string{"Summer", "Fall", "Winter", "Spring"}

// Table titles as printed.
const (
	titleConeSeason = "CONE (Seasonal)"
	titleConeAnnual = "CONE (Annual)"
	rowConeAnnual   = "Cost of New Entry (Annual)"
	titleIMM        = "IMM Conduct Threshold ($/MW-Day)"
)

// misoPostings are the results postings on MISO's document host, by planning year. The
// 2025-2026 and 2026-2027 postings were replaced by corrections postings, which MISO serves
// in their place (the first 2026-2027 address answers 403).
var misoPostings = []fetch.Source{
	{URL: "https://cdn.misoenergy.org/2024%20PRA%20Results%20Posting%2020240425632665.pdf", Kind: fetch.PDF,
		Dest: misoPRAFolder + "/2024-2025 PRA Results Posting 20240425.pdf"},
	{URL: "https://cdn.misoenergy.org/2025%20PRA%20Results%20Posting%2020250529_Corrections694160.pdf", Kind: fetch.PDF,
		Dest: misoPRAFolder + "/2025-2026 PRA Results Posting 20250529 Corrections.pdf"},
	{URL: "https://cdn.misoenergy.org/2026%20PRA%20Results%20Posting%2020260522%20-%20Corrections754715.pdf", Kind: fetch.PDF,
		Dest: misoPRAFolder + "/2026-2027 PRA Results Posting 20260522 Corrections.pdf"},
}

// Capability implements ingest.Adapter.
func (MISOAuction) Capability() *capability.Capability { return capability.PowerCapacityMarketMISO }

// Version implements ingest.Adapter.
func (MISOAuction) Version() string { return "miso-pra/2" }

// Folders implements ingest.Adapter.
func (MISOAuction) Folders() []string { return []string{misoPRAFolder} }

// Known implements ingest.Adapter: the results postings on MISO's document host, each saved
// under the name Plan reads (planning year and posting date). Each posting has its own
// address, so a new posting is added here when MISO publishes it.
func (MISOAuction) Known() []fetch.Source { return append([]fetch.Source(nil), misoPostings...) }

// Plan implements ingest.Adapter: one snapshot per posting, in posting order.
func (MISOAuction) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return misoPosting.MatchString(n) })
	if err != nil {
		return nil, err
	}
	date := func(p string) string {
		m := misoPosting.FindStringSubmatch(filepath.Base(p))
		return m[3] + "-" + m[4] + "-" + m[5]
	}
	sort.SliceStable(paths, func(i, j int) bool { return date(paths[i]) < date(paths[j]) })
	var plans []ingest.Plan
	for _, p := range paths {
		plans = append(plans, ingest.Plan{AsOfHint: date(p), Files: []ingest.File{{
			Path: p, SourceID: misoPRASourceID, Publisher: PublisherMISO, URL: knownURL(misoPostings, p, misoPRAURL), Role: ingest.RoleData,
		}}})
	}
	return plans, nil
}

// misoAtom is one result atom before it becomes a row.
type misoAtom struct {
	sheet                     string
	row, col                  int
	season, zone, scope, atom string
	acp, cone, imm            any
	erz                       any
	field                     string // the field the value was read into
}

// Build implements ingest.Adapter.
func (MISOAuction) Build(p ingest.Plan) (*ingest.Build, error) {
	f, _ := ingest.SplitRoles(p.Files)
	if f == nil {
		return nil, fmt.Errorf("miso auction: the plan has no data file")
	}
	name := filepath.Base(f.Path)
	m := misoPosting.FindStringSubmatch(name)
	if m == nil {
		return nil, fmt.Errorf("miso auction: %s is not a PRA results posting", name)
	}
	start, _ := strconv.Atoi(m[1])
	py := m[1] + "-" + m[2]
	posted := m[3] + "-" + m[4] + "-" + m[5]
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("miso auction: %w", err)
	}
	rd := &misoReader{name: name, start: start, headers: map[string]int{}, found: map[string]int{}, annual: map[string]any{}}
	for _, sh := range wb.Sheets {
		for r := 1; r <= sh.NumRows(); r++ {
			if t := misoSeasonPage.FindStringSubmatch(kit.Squash(strings.TrimSpace(sh.Cell(r, 1).Value))); t != nil {
				rd.seasonPage(sh, r, t[1], t[2])
				continue
			}
			switch a := colA(sh, r); {
			case a == kit.Norm(titleConeSeason):
				rd.seasonalCONE(sh, r)
			case strings.HasPrefix(a, kit.Norm(titleConeAnnual)):
				rd.annualCONETable(sh, r)
			case strings.HasPrefix(a, kit.Norm(rowConeAnnual)):
				rd.annualCONERow(sh, r)
			case a == kit.Norm(titleIMM):
				rd.immTable(sh, r)
			}
		}
	}
	bad, missing, incomplete, atoms, headers, found := rd.bad, rd.missing, rd.incomplete, rd.atoms, rd.headers, rd.found
	for _, s := range misoSeasons {
		if found[s] == 0 && len(missing) == 0 {
			incomplete = append(incomplete, fmt.Sprintf("%s: no page titled %q (cut short?)", name, s+" <year> PRA Results by Zone"))
		}
	}
	for _, t := range []string{titleConeSeason, titleConeAnnual, titleIMM} {
		if found[t] == 0 && len(missing) == 0 {
			what := fmt.Sprintf("no table titled %q", t)
			if t == titleConeAnnual {
				what += fmt.Sprintf(" nor row %q", rowConeAnnual)
			}
			incomplete = append(incomplete, fmt.Sprintf("%s: %s (cut short?)", name, what))
		}
	}
	if found[titleConeAnnual] > 0 {
		for z := 1; z <= 10; z++ {
			if _, ok := rd.annual["Z"+strconv.Itoa(z)]; !ok {
				incomplete = append(incomplete, fmt.Sprintf("%s: no annual CONE of zone %d", name, z))
			}
		}
	}
	var refused []string
	if start < misoFirstYear {
		refused = append(refused, fmt.Sprintf("%s is for planning year %s: planning years before %d-%d are not answered by power.capacity_market_miso (the contract's scope: the seasonal auctions from %d-%d on)", name, py, misoFirstYear, misoFirstYear+1, misoFirstYear, misoFirstYear+1))
	}
	rows := ingest.NewRows(capability.PowerCapacityMarketMISO)
	// A field read from one column of a sheet is recorded (SetCell); a table that reads one
	// field from several columns (zones, seasons) sets its atoms without it, and so does an ERZ
	// range joined from the lines around its row.
	cols := map[string]map[string]map[int]bool{}
	for _, a := range atoms {
		if a.col == 0 {
			continue
		}
		if cols[a.sheet] == nil {
			cols[a.sheet] = map[string]map[int]bool{}
		}
		if cols[a.sheet][a.field] == nil {
			cols[a.sheet][a.field] = map[int]bool{}
		}
		cols[a.sheet][a.field][a.col] = true
	}
	for _, a := range atoms {
		var zone any
		if a.zone != "" {
			zone = a.zone
		}
		var season any
		if a.season != "" {
			season = a.season
		}
		key := strings.Join([]string{py, a.season, a.zone, a.scope, a.atom, posted}, "|")
		r := rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: a.sheet, Row: a.row, SHA256: f.SHA256}).
			Set("sheet_name", a.sheet).
			Set("iso", "MISO").
			Set("auction_label", py+" PRA").
			Set("planning_year", py).
			Set("season", season).
			Set("zone", zone).
			Set("scope", a.scope).
			Set("atom_type", a.atom).
			Set("report_period", posted).
			Key(key)
		if u := misoConeUnit[a.atom]; u != "" {
			r.Set("cone_unit", u)
		}
		v := map[string]any{"acp_usd_mw_day": a.acp, "cone_usd_mw_day": a.cone, "imm_conduct_threshold_usd_mw_day": a.imm, "acp_erz_verbatim": a.erz}[a.field]
		if a.col > 0 && len(cols[a.sheet][a.field]) == 1 {
			r.SetCell(a.field, a.col, v)
		} else {
			r.Set(a.field, v)
		}
	}
	facts, err := rows.Finish(posted)
	if err != nil {
		return nil, err
	}
	src := f.Source()
	src.Title = strings.TrimSuffix(strings.TrimSuffix(name, ".pdf"), ".xlsx")
	src.Release, src.HeaderRows = posted, headers
	b := &ingest.Build{AsOf: posted, Rows: facts, Cells: rows.Cells(), Sources: []snapshots.Source{src},
		Required: []string{"auction_label", "planning_year", "scope", "atom_type", "report_period"},
		// CONE holds per-MW-year figures on cone_annual atoms (MISO's annual statement).
		Ranges: map[string]snapshots.Range{"acp_usd_mw_day": {Min: 0, Max: 10000}, "cone_usd_mw_day": {Min: 0, Max: 1000000}, "imm_conduct_threshold_usd_mw_day": {Min: 0, Max: 10000}},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, fmt.Sprintf("%d result tables with their headers", len(found))),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d atoms read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "the four season pages, the seasonal and annual CONE and the IMM thresholds, zones 1 to 10"),
		kit.Failures("planning_year_supported", refused, fmt.Sprintf("planning year %s (from %d-%d on)", py, misoFirstYear, misoFirstYear+1)))
	return b, nil
}

// misoConeUnit is the unit each CONE atom is stated in: MISO states seasonal CONE per
// MW-day and annual CONE per MW-year, and neither is converted.
var misoConeUnit = map[string]string{"cone_seasonal": "USD/MW-day", "cone_annual": "USD/MW-year"}

// misoReader reads the tables of one posting.
type misoReader struct {
	name                string
	start               int // first year of the planning year
	bad                 kit.Problems
	missing, incomplete []string
	atoms               []misoAtom
	headers             map[string]int
	found               map[string]int // tables read, by season or title
	annual              map[string]any // annual CONE read, by zone (or ERZ), to compare repeated rows
}

// seasonPage reads a "<Season> <year> PRA Results by Zone" page whose title is on row r: the
// zone header below it and the ACP row.
func (rd *misoReader) seasonPage(sh *grid.Sheet, r int, season, year string) {
	season = strings.ToUpper(season[:1]) + strings.ToLower(season[1:])
	y, _ := strconv.Atoi(year)
	if want := map[bool]int{true: rd.start + 1, false: rd.start}[season == "Spring"]; y != want {
		rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s row %d: %s %s is not a season of planning year %d-%d", rd.name, sh.Name, r, season, year, rd.start, rd.start+1))
		return
	}
	if rd.found[season]++; rd.found[season] > 1 {
		rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s row %d: a second %s results page", rd.name, sh.Name, r, season))
		return
	}
	zones := []string{"ERZ"}
	for z := 1; z <= 10; z++ {
		zones = append(zones, "Z"+strconv.Itoa(z))
	}
	var h *kit.Header
	for hr := r + 1; hr <= min(r+12, sh.NumRows()); hr++ {
		if c := kit.HeaderAt(sh, hr); c.Has("Z1") {
			h = c
			break
		}
	}
	if h == nil || len(h.Missing(zones...)) > 0 {
		miss := zones
		if h != nil {
			miss = h.Missing(zones...)
		}
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s: the %s results page has no zone header with %q", rd.name, sh.Name, season, miss))
		return
	}
	acp := 0
	for ar := h.Row + 1; ar <= sh.NumRows() && acp == 0; ar++ {
		if misoSeasonPage.MatchString(strings.TrimSpace(sh.Cell(ar, 1).Value)) {
			break
		}
		if strings.HasPrefix(colA(sh, ar), "acp") {
			acp = ar
		}
	}
	if acp == 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s: the %s results page has no row ACP ($/MW-Day)", rd.name, sh.Name, season))
		return
	}
	rd.headers[sh.Name] = h.Row
	s := strings.ToLower(season)
	for z := 1; z <= 10; z++ {
		c := h.Col("Z" + strconv.Itoa(z))
		rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: acp, col: c, season: s, zone: "Z" + strconv.Itoa(z), scope: "zone", atom: "acp",
			acp: rd.money(sh, acp, c), field: "acp_usd_mw_day"})
	}
	c := h.Col("ERZ")
	erz, col := strings.TrimSpace(sh.Cell(acp, c).Value), c
	above, below := loneCell(sh, acp-1), loneCell(sh, acp+1)
	switch {
	case erz == "" && strings.HasSuffix(above, "-") && below != "":
		erz, col = above+below, 0
	case strings.HasSuffix(erz, "-") && below != "":
		erz, col = erz+below, 0
	case erz == "":
		rd.bad.Add("%s %s!%s%d: no external resource zone clearing printed", rd.name, sh.Name, grid.ColumnName(c), acp)
	}
	rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: acp, col: col, season: s, scope: "external_resource_zone", atom: "acp_erz_verbatim",
		erz: nilIfEmpty(erz), field: "acp_erz_verbatim"})
}

// loneCell is the text of row r when it holds a single cell, else "".
func loneCell(sh *grid.Sheet, r int) string {
	n, text := 0, ""
	for _, c := range sh.Row(r) {
		if strings.TrimSpace(c.Value) != "" {
			n, text = n+1, strings.TrimSpace(c.Value)
		}
	}
	if n != 1 {
		return ""
	}
	return text
}

// misoSeasonLabel matches a season as a CONE table labels it: "Summer", "Summer 2025",
// "Winter 2025-26".
var misoSeasonLabel = regexp.MustCompile(`^(summer|fall|winter|spring)(?: (\d{4})(?:[/-]\d{2,4})?)?$`)

// misoSeason reads a season label: the season in lower case ("" when the label is not a
// season) and whether the year printed with it, if any, is the season's year in the planning
// year that starts in start.
func misoSeason(label string, start int) (season string, yearOK bool) {
	m := misoSeasonLabel.FindStringSubmatch(kit.Norm(label))
	if m == nil {
		return "", false
	}
	if m[2] == "" {
		return m[1], true
	}
	y, _ := strconv.Atoi(m[2])
	return m[1], y == map[bool]int{true: start + 1, false: start}[m[1] == "spring"]
}

// misoConeAxis is what a label of the seasonal CONE table names: a subregion's scope, "system"
// for MISO's system CONE, "" for anything else. "North/Central CONE (Seasonal)" reads as
// North/Central.
func misoConeAxis(label string) string {
	l := strings.TrimSpace(strings.TrimSuffix(kit.Norm(label), "cone (seasonal)"))
	l = strings.TrimSpace(strings.TrimSuffix(l, "cone"))
	if l == "system" || l == "miso" || l == "miso system" {
		return "system"
	}
	return misoSubregion(l)
}

// seasonalCONE reads the "CONE (Seasonal)" table whose title is on row r: the subregions
// across and the seasons down, or the seasons across and the subregions down. The system CONE
// is read past.
func (rd *misoReader) seasonalCONE(sh *grid.Sheet, r int) {
	h := kit.HeaderAt(sh, r+1)
	labels := h.Labels()
	across, acrossSeasons := map[int]string{}, false
	for c := 2; c <= len(labels); c++ {
		if a := misoConeAxis(labels[c-1]); a != "" {
			across[c] = a
		}
	}
	if len(across) == 0 {
		for c := 2; c <= len(labels); c++ {
			s, ok := misoSeason(labels[c-1], rd.start)
			if s != "" && !ok {
				rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s!%s%d: %q is not a season of planning year %d-%d", rd.name, sh.Name, grid.ColumnName(c), h.Row, labels[c-1], rd.start, rd.start+1))
				return
			}
			if s != "" {
				across[c], acrossSeasons = s, true
			}
		}
	}
	if len(across) == 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q has neither the subregions (North/Central, South) nor the seasons across", rd.name, sh.Name, h.Row, titleConeSeason))
		return
	}
	rd.found[titleConeSeason]++
	rd.headers[sh.Name] = h.Row
	seasons, scopes := map[string]bool{}, map[string]bool{}
	for dr := h.Row + 1; dr <= sh.NumRows() && !blockEnd(sh, dr) && !titleLine(sh, dr); dr++ {
		label := strings.TrimSpace(sh.Cell(dr, 1).Value)
		down, ok := misoConeAxis(label), true
		if !acrossSeasons {
			down, ok = misoSeason(label, rd.start)
		}
		if down == "" || !ok {
			rd.bad.Add("%s %s!A%d: %q is not a %s of planning year %d-%d", rd.name, sh.Name, dr, label, map[bool]string{true: "subregion", false: "season"}[acrossSeasons], rd.start, rd.start+1)
			continue
		}
		for c := 2; c <= len(labels); c++ {
			season, scope := down, across[c]
			if acrossSeasons {
				season, scope = across[c], down
			}
			if across[c] == "" || scope == "system" {
				continue
			}
			seasons[season], scopes[scope] = true, true
			rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: dr, col: c, season: season, scope: scope, atom: "cone_seasonal",
				cone: rd.money(sh, dr, c), field: "cone_usd_mw_day"})
		}
	}
	if len(seasons) != len(misoSeasons) || !scopes["north_central_subregion"] || !scopes["south_subregion"] {
		rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s: the table %q has %d seasons and %d subregions, 4 and 2 expected (cut short?)", rd.name, sh.Name, titleConeSeason, len(seasons), len(scopes)))
	}
}

// titleLine reports whether row r prints nothing past column A (a title, not a table row).
func titleLine(sh *grid.Sheet, r int) bool {
	for i, c := range sh.Row(r) {
		if i > 0 && strings.TrimSpace(c.Value) != "" {
			return false
		}
	}
	return true
}

// misoZoneOrERZ reads a zone label (see misoZone) or the external resource zones ("ERZ",
// "ERZs") as "ERZ".
func misoZoneOrERZ(label string) (string, bool) {
	switch kit.Norm(label) {
	case "erz", "erzs", "external resource zone", "external resource zones":
		return "ERZ", true
	}
	return misoZone(label)
}

// misoZoneColumns is the zones (and ERZ) labelling the columns of row r past column A, by
// column, when zones 1 to 10 are all there; nil otherwise.
func misoZoneColumns(sh *grid.Sheet, r int) map[int]string {
	out, n := map[int]string{}, 0
	for i, c := range sh.Row(r) {
		if z, ok := misoZoneOrERZ(c.Value); ok && i > 0 {
			out[i+1] = z
			if z != "ERZ" {
				n++
			}
		}
	}
	if n < 10 {
		return nil
	}
	return out
}

// annualCONE records the annual CONE of zone (or "ERZ") printed at row r, column c, once: the
// same figure printed again (another season's table) must agree.
func (rd *misoReader) annualCONE(sh *grid.Sheet, r, c int, zone string) {
	v := rd.money(sh, r, c)
	if prev, seen := rd.annual[zone]; seen {
		if prev != v {
			rd.bad.Add("%s %s!%s%d: annual CONE of %s is %v here and %v in the table before", rd.name, sh.Name, grid.ColumnName(c), r, zone, v, prev)
		}
		return
	}
	rd.annual[zone] = v
	a := misoAtom{sheet: sh.Name, row: r, col: c, zone: zone, scope: "zone", atom: "cone_annual", cone: v, field: "cone_usd_mw_day"}
	if zone == "ERZ" {
		a.zone, a.scope = "", "external_resource_zone"
	}
	rd.atoms = append(rd.atoms, a)
}

// annualCONETable reads the "CONE (Annual)" table whose title is on row r: the zones across
// over one row of figures, or the zones down each with its figure.
func (rd *misoReader) annualCONETable(sh *grid.Sheet, r int) {
	if zc := misoZoneColumns(sh, r+1); zc != nil {
		vr := r + 2
		if blockEnd(sh, vr) && strings.TrimSpace(sh.Cell(vr, 2).Value) == "" {
			rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q has no figures under its zones", rd.name, sh.Name, vr, titleConeAnnual))
			return
		}
		rd.found[titleConeAnnual]++
		rd.headers[sh.Name] = r + 1
		for c := 2; c <= len(sh.Row(r+1)); c++ {
			if z := zc[c]; z != "" {
				rd.annualCONE(sh, vr, c, z)
			}
		}
		return
	}
	n := 0
	for dr := r + 1; dr <= sh.NumRows() && !blockEnd(sh, dr) && !titleLine(sh, dr); dr++ {
		label := strings.TrimSpace(sh.Cell(dr, 1).Value)
		zone, ok := misoZoneOrERZ(label)
		var filled []int
		for i, c := range sh.Row(dr) {
			if i > 0 && strings.TrimSpace(c.Value) != "" {
				filled = append(filled, i+1)
			}
		}
		switch {
		case !ok && n == 0 && dr == r+1:
			rd.headers[sh.Name] = dr // a header line over the zones ("LRZ | $/MW-Year")
		case !ok:
			rd.bad.Add("%s %s!A%d: %q is not a zone", rd.name, sh.Name, dr, label)
		case len(filled) != 1:
			rd.bad.Add("%s %s row %d: %d figures printed for %s, one expected", rd.name, sh.Name, dr, len(filled), label)
		default:
			n++
			rd.annualCONE(sh, dr, filled[0], zone)
		}
	}
	if n == 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q lists no zone", rd.name, sh.Name, r, titleConeAnnual))
		return
	}
	rd.found[titleConeAnnual]++
}

// annualCONERow reads the row "Cost of New Entry (Annual)" (row r) of an auction clearing
// price comparison table, under the zone header above it.
func (rd *misoReader) annualCONERow(sh *grid.Sheet, r int) {
	for hr := r - 1; hr >= max(1, r-12); hr-- {
		zc := misoZoneColumns(sh, hr)
		if zc == nil {
			continue
		}
		rd.found[titleConeAnnual]++
		rd.headers[sh.Name] = hr
		for c := 2; c <= len(sh.Row(hr)); c++ {
			if z := zc[c]; z != "" {
				rd.annualCONE(sh, r, c, z)
			}
		}
		return
	}
	rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the row %q has no zone header (Zone 1 ... Zone 10) above it", rd.name, sh.Name, r, rowConeAnnual))
}

// immTable reads the "IMM Conduct Threshold ($/MW-Day)" table whose title is on row r.
func (rd *misoReader) immTable(sh *grid.Sheet, r int) {
	title := strings.TrimSpace(sh.Cell(r, 1).Value)
	h := kit.HeaderAt(sh, r+1)
	if miss := h.Missing(append([]string{"Zone"}, misoSeasons...)...); len(miss) > 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q lacks the headers %q", rd.name, sh.Name, r+1, title, miss))
		return
	}
	rd.found[titleIMM]++
	rd.headers[sh.Name] = h.Row
	n := 0
	for dr := h.Row + 1; dr <= sh.NumRows() && !blockEnd(sh, dr); dr++ {
		label := strings.TrimSpace(sh.Cell(dr, 1).Value)
		zone, ok := misoZone(label)
		if !ok {
			rd.bad.Add("%s %s!A%d: %q is not a zone", rd.name, sh.Name, dr, label)
			continue
		}
		n++
		for _, s := range misoSeasons {
			c := h.Col(s)
			rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: dr, col: c, season: strings.ToLower(s), zone: zone, scope: "zone", atom: "imm_threshold",
				imm: rd.money(sh, dr, c), field: "imm_conduct_threshold_usd_mw_day"})
		}
	}
	if n < 10 {
		rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s: the table %q has %d rows, zones 1 to 10 expected (cut short?)", rd.name, sh.Name, title, n))
	}
}

// money reads a price as MISO prints it: two decimals, a dollar sign from the 2026-2027
// posting on, thousands separated by commas (1,384.36); nil when blank.
func (rd *misoReader) money(sh *grid.Sheet, r, c int) any {
	cell := sh.Cell(r, c)
	t := strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(cell.Value), "$"), ",", "")
	v, err := kit.Number(grid.Cell{Kind: cell.Kind, Value: t})
	if err != nil {
		rd.bad.Add("%s %s!%s%d: %q is not a price", rd.name, sh.Name, grid.ColumnName(c), r, cell.Value)
	}
	return v
}

// knownURL is the address of the known download saved under path's file name, else page.
func knownURL(known []fetch.Source, path, page string) string {
	for _, k := range known {
		if filepath.Base(k.Dest) == filepath.Base(path) {
			return k.URL
		}
	}
	return page
}

// misoZone reads "Zone 1" ... "Zone 10" (or "LRZ 1", "1") as Z1 ... Z10.
func misoZone(label string) (string, bool) {
	s := strings.TrimSpace(label)
	for _, p := range []string{"Zone", "LRZ", "Z"} {
		if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
			s = strings.TrimSpace(s[len(p):])
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 10 {
		return "", false
	}
	return "Z" + strconv.Itoa(n), true
}

// misoSubregion is the scope of a subregion label.
func misoSubregion(label string) string {
	switch strings.ToLower(strings.Join(strings.Fields(label), " ")) {
	case "north/central", "north central", "north-central":
		return "north_central_subregion"
	case "south":
		return "south_subregion"
	}
	return ""
}

package market

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
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
//   - "CONE (Seasonal)": seasons down, the subregions (North/Central, South) across;
//   - "Annual CONE ($/MW-Day)": Zone | CONE, and "IMM Conduct Threshold ($/MW-Day)": Zone |
//     Summer | Fall | Winter | Spring (these two as the adapter expects them: no posting has
//     been read to confirm them).
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
	titleConeAnnual = "Annual CONE ($/MW-Day)"
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
	rd := &misoReader{name: name, start: start, headers: map[string]int{}, found: map[string]int{}}
	for _, sh := range wb.Sheets {
		for r := 1; r <= sh.NumRows(); r++ {
			if t := misoSeasonPage.FindStringSubmatch(kit.Squash(strings.TrimSpace(sh.Cell(r, 1).Value))); t != nil {
				rd.seasonPage(sh, r, t[1], t[2])
				continue
			}
			switch colA(sh, r) {
			case kit.Norm(titleConeSeason):
				rd.seasonalCONE(sh, r)
			case kit.Norm(titleConeAnnual), kit.Norm(titleIMM):
				rd.zoneTable(sh, r)
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
			incomplete = append(incomplete, fmt.Sprintf("%s: no table titled %q (cut short?)", name, t))
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
		Ranges:   map[string]snapshots.Range{"acp_usd_mw_day": {Min: 0, Max: 10000}, "cone_usd_mw_day": {Min: 0, Max: 10000}, "imm_conduct_threshold_usd_mw_day": {Min: 0, Max: 10000}},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, fmt.Sprintf("%d result tables with their headers", len(found))),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d atoms read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "the four season pages, the seasonal and annual CONE and the IMM thresholds, zones 1 to 10"),
		kit.Failures("planning_year_supported", refused, fmt.Sprintf("planning year %s (from %d-%d on)", py, misoFirstYear, misoFirstYear+1)))
	return b, nil
}

// misoReader reads the tables of one posting.
type misoReader struct {
	name                string
	start               int // first year of the planning year
	bad                 kit.Problems
	missing, incomplete []string
	atoms               []misoAtom
	headers             map[string]int
	found               map[string]int // tables read, by season or title
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

// seasonalCONE reads the "CONE (Seasonal)" table whose title is on row r.
func (rd *misoReader) seasonalCONE(sh *grid.Sheet, r int) {
	h := kit.HeaderAt(sh, r+1)
	if miss := h.Missing("North/Central", "South"); len(miss) > 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q lacks the headers %q", rd.name, sh.Name, r+1, titleConeSeason, miss))
		return
	}
	rd.found[titleConeSeason]++
	rd.headers[sh.Name] = h.Row
	n := 0
	for dr := h.Row + 1; dr <= sh.NumRows() && !blockEnd(sh, dr); dr++ {
		label := strings.TrimSpace(sh.Cell(dr, 1).Value)
		if !slices.ContainsFunc(misoSeasons, func(s string) bool { return strings.EqualFold(s, label) }) {
			rd.bad.Add("%s %s!A%d: %q is not a season", rd.name, sh.Name, dr, label)
			continue
		}
		n++
		for _, sub := range []string{"North/Central", "South"} {
			c := h.Col(sub)
			rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: dr, col: c, season: strings.ToLower(label), scope: misoSubregion(sub), atom: "cone_seasonal",
				cone: rd.money(sh, dr, c), field: "cone_usd_mw_day"})
		}
	}
	if n != len(misoSeasons) {
		rd.incomplete = append(rd.incomplete, fmt.Sprintf("%s %s: the table %q has %d seasons, 4 expected (cut short?)", rd.name, sh.Name, titleConeSeason, n))
	}
}

// zoneTable reads a table by zone ("Annual CONE ($/MW-Day)", "IMM Conduct Threshold
// ($/MW-Day)") whose title is on row r.
func (rd *misoReader) zoneTable(sh *grid.Sheet, r int) {
	title := strings.TrimSpace(sh.Cell(r, 1).Value)
	annual := colA(sh, r) == kit.Norm(titleConeAnnual)
	labels := append([]string{"Zone"}, misoSeasons...)
	if annual {
		labels = []string{"Zone", "CONE"}
	}
	h := kit.HeaderAt(sh, r+1)
	if miss := h.Missing(labels...); len(miss) > 0 {
		rd.missing = append(rd.missing, fmt.Sprintf("%s %s row %d: the table %q lacks the headers %q", rd.name, sh.Name, r+1, title, miss))
		return
	}
	rd.found[map[bool]string{true: titleConeAnnual, false: titleIMM}[annual]]++
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
		if annual {
			c := h.Col("CONE")
			rd.atoms = append(rd.atoms, misoAtom{sheet: sh.Name, row: dr, col: c, zone: zone, scope: "zone", atom: "cone_annual", cone: rd.money(sh, dr, c), field: "cone_usd_mw_day"})
			continue
		}
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

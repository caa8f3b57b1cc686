package market

import (
	"fmt"
	"path/filepath"
	"regexp"
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
// results postings. MISO publishes a posting as a PDF whose pages carry the result tables;
// the adapter reads the posting laid out as a workbook with one sheet per page ("Page 3"),
// each table under its printed title: "Auction Clearing Price ($/MW-Day)" (Zone | Summer |
// Fall | Winter | Spring, zones 1 to 10 and the external resource zones' row, ERZ), "Seasonal
// CONE ($/MW-Day)" (Subregion | Summer | ...), "Annual CONE ($/MW-Day)" (Zone | CONE) and
// "IMM Conduct Threshold ($/MW-Day)" (Zone | Summer | ...). Each posting is its own snapshot;
// a corrections posting is a distinct document.
type MISOAuction struct{}

const (
	misoPRAFolder   = "iso/miso/pra"
	misoPRASourceID = "miso_pra_results"
	misoPRAURL      = "https://www.misoenergy.org/markets-and-operations/resource-adequacy/"
	misoFirstYear   = 2024
)

// misoPosting matches "2025-2026 PRA Results Posting 20250428.xlsx" and its corrections,
// "2025-2026 PRA Results Posting 20250502 Corrections.xlsx" (spaces or underscores).
var misoPosting = regexp.MustCompile(`^(\d{4})-(\d{4})[ _]PRA[ _]Results[ _]Posting[ _](\d{4})(\d{2})(\d{2})([ _]Corrections?)?\.xlsx$`)

var misoSeasons = []string{"Summer", "Fall", "Winter", "Spring"}

// Table titles as printed.
const (
	titleACP        = "Auction Clearing Price ($/MW-Day)"
	titleConeSeason = "Seasonal CONE ($/MW-Day)"
	titleConeAnnual = "Annual CONE ($/MW-Day)"
	titleIMM        = "IMM Conduct Threshold ($/MW-Day)"
)

// Capability implements ingest.Adapter.
func (MISOAuction) Capability() *capability.Capability { return capability.PowerCapacityMarketMISO }

// Version implements ingest.Adapter.
func (MISOAuction) Version() string { return "miso-pra/1" }

// Folders implements ingest.Adapter.
func (MISOAuction) Folders() []string { return []string{misoPRAFolder} }

// Known implements ingest.Adapter. The posting is a PDF, which ingest --fetch does not take
// (its kinds are xlsx, xls, csv and zip), and its address changes with each posting; the
// landing page is misoPRAURL.
func (MISOAuction) Known() []fetch.Source { return nil }

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
			Path: p, SourceID: misoPRASourceID, Publisher: PublisherMISO, URL: misoPRAURL, Role: ingest.RoleData,
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
	var bad kit.Problems
	var missing, incomplete []string
	headers := map[string]int{}
	var atoms []misoAtom
	found := map[string]bool{}
	for _, sh := range wb.Sheets {
		for r := 1; r <= sh.NumRows(); r++ {
			title := colA(sh, r)
			var kind string
			switch title {
			case kit.Norm(titleACP):
				kind = "acp"
			case kit.Norm(titleConeSeason):
				kind = "cone_seasonal"
			case kit.Norm(titleConeAnnual):
				kind = "cone_annual"
			case kit.Norm(titleIMM):
				kind = "imm_threshold"
			default:
				continue
			}
			found[kind] = true
			h := kit.HeaderAt(sh, r+1)
			labels := append([]string{"Zone"}, misoSeasons...)
			switch kind {
			case "cone_seasonal":
				labels = append([]string{"Subregion"}, misoSeasons...)
			case "cone_annual":
				labels = []string{"Zone", "CONE"}
			}
			if miss := h.Missing(labels...); len(miss) > 0 {
				missing = append(missing, fmt.Sprintf("%s %s row %d: the table %q lacks the headers %q", name, sh.Name, r+1, sh.Cell(r, 1).Value, miss))
				continue
			}
			headers[sh.Name] = r + 1
			n := 0
			for dr := r + 2; dr <= sh.NumRows() && !blockEnd(sh, dr); dr++ {
				label := strings.TrimSpace(sh.Cell(dr, 1).Value)
				cell := func(c int) any {
					v, err := kit.Number(sh.Cell(dr, c))
					if err != nil {
						bad.Add("%s %s!%s%d: %v", name, sh.Name, grid.ColumnName(c), dr, err)
					}
					return v
				}
				n++
				switch kind {
				case "cone_annual":
					zone, ok := misoZone(label)
					if !ok {
						bad.Add("%s %s!A%d: %q is not a zone", name, sh.Name, dr, label)
						continue
					}
					atoms = append(atoms, misoAtom{sheet: sh.Name, row: dr, col: h.Col("CONE"), zone: zone, scope: "zone", atom: kind, cone: cell(h.Col("CONE")), field: "cone_usd_mw_day"})
					continue
				case "cone_seasonal":
					scope := misoSubregion(label)
					if scope == "" {
						bad.Add("%s %s!A%d: %q is not a subregion (North/Central, South)", name, sh.Name, dr, label)
						continue
					}
					for _, s := range misoSeasons {
						atoms = append(atoms, misoAtom{sheet: sh.Name, row: dr, col: h.Col(s), season: strings.ToLower(s), scope: scope, atom: kind, cone: cell(h.Col(s)), field: "cone_usd_mw_day"})
					}
					continue
				}
				if kind == "acp" && strings.EqualFold(label, "ERZ") {
					for _, s := range misoSeasons {
						c := h.Col(s)
						atoms = append(atoms, misoAtom{sheet: sh.Name, row: dr, col: c, season: strings.ToLower(s), scope: "external_resource_zone", atom: "acp_erz_verbatim",
							erz: kit.Text(sh.Cell(dr, c)), field: "acp_erz_verbatim"})
					}
					continue
				}
				zone, ok := misoZone(label)
				if !ok {
					bad.Add("%s %s!A%d: %q is not a zone", name, sh.Name, dr, label)
					continue
				}
				for _, s := range misoSeasons {
					a := misoAtom{sheet: sh.Name, row: dr, col: h.Col(s), season: strings.ToLower(s), zone: zone, scope: "zone", atom: kind}
					if kind == "acp" {
						a.acp, a.field = cell(a.col), "acp_usd_mw_day"
					} else {
						a.imm, a.field = cell(a.col), "imm_conduct_threshold_usd_mw_day"
					}
					atoms = append(atoms, a)
				}
			}
			if (kind == "acp" || kind == "cone_annual") && n < 10 {
				incomplete = append(incomplete, fmt.Sprintf("%s %s: the table %q has %d rows, zones 1 to 10 expected (cut short?)", name, sh.Name, sh.Cell(r, 1).Value, n))
			}
		}
	}
	if !found["acp"] && len(missing) == 0 {
		incomplete = append(incomplete, fmt.Sprintf("%s: no table titled %q", name, titleACP))
	}
	var refused []string
	if start < misoFirstYear {
		refused = append(refused, fmt.Sprintf("%s is for planning year %s: planning years before %d-%d are not answered by power.capacity_market_miso (the contract's scope: the seasonal auctions from %d-%d on)", name, py, misoFirstYear, misoFirstYear+1, misoFirstYear, misoFirstYear+1))
	}
	rows := ingest.NewRows(capability.PowerCapacityMarketMISO)
	// A field read from one column of a sheet is recorded (SetCell); the seasonal tables read
	// one field from four columns, so their atoms are set without it.
	cols := map[string]map[string]map[int]bool{}
	for _, a := range atoms {
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
		if len(cols[a.sheet][a.field]) == 1 {
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
	src.Title = strings.TrimSuffix(name, ".xlsx")
	src.Release, src.HeaderRows = posted, headers
	b := &ingest.Build{AsOf: posted, Rows: facts, Cells: rows.Cells(), Sources: []snapshots.Source{src},
		Required: []string{"auction_label", "planning_year", "scope", "atom_type", "report_period"},
		Ranges:   map[string]snapshots.Range{"acp_usd_mw_day": {Min: 0, Max: 10000}, "cone_usd_mw_day": {Min: 0, Max: 10000}, "imm_conduct_threshold_usd_mw_day": {Min: 0, Max: 10000}},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, fmt.Sprintf("%d result tables with their headers", len(found))),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d atoms read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "the ACP and annual CONE tables have zones 1 to 10"),
		kit.Failures("planning_year_supported", refused, fmt.Sprintf("planning year %s (from %d-%d on)", py, misoFirstYear, misoFirstYear+1)))
	return b, nil
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

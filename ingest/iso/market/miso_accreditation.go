package market

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// MISOAccreditation ingests power.capacity_accreditation_miso from MISO's seasonal
// accreditation workbook: a sheet "Class Average" and a sheet "Indicative DLOL", each titled
// with the planning year, "Posted <date>" under the title, and a table headed "Resource Class
// | Units | Summer | Fall | Winter | Spring" (ratios in percent; "*" where MISO withholds a
// value) that ends with the footnote explaining the mark. Each workbook is its own snapshot.
type MISOAccreditation struct{}

const (
	misoAccFolder   = "iso/miso/accreditation"
	misoAccSourceID = "miso_seasonal_accreditation"
	misoAccURL      = "https://www.misoenergy.org/markets-and-operations/resource-adequacy/"
)

var (
	misoAccFile   = regexp.MustCompile(`(?i)^(\d{4})-(\d{4}).*accreditation.*\.xlsx$`)
	misoAccSheets = []struct{ sheet, method string }{{"Class Average", "class_average"}, {"Indicative DLOL", "indicative_dlol"}}
	misoStorage   = regexp.MustCompile(`(?i)^storage\s*[-–(]\s*(.+?)\)?$`)
)

// Capability implements ingest.Adapter.
func (MISOAccreditation) Capability() *capability.Capability {
	return capability.PowerCapacityAccreditationMISO
}

// Version implements ingest.Adapter.
func (MISOAccreditation) Version() string { return "miso-accreditation/1" }

// Folders implements ingest.Adapter.
func (MISOAccreditation) Folders() []string { return []string{misoAccFolder} }

// Known implements ingest.Adapter: MISO's posting address changes with each posting (a
// document id), so there is no stable address to download from; the page is misoAccURL.
func (MISOAccreditation) Known() []fetch.Source { return nil }

// Plan implements ingest.Adapter: one snapshot per workbook.
func (MISOAccreditation) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return misoAccFile.MatchString(n) })
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range paths {
		plans = append(plans, ingest.Plan{Files: []ingest.File{{Path: p, SourceID: misoAccSourceID, Publisher: PublisherMISO, URL: misoAccURL, Role: ingest.RoleData}}})
	}
	return plans, nil
}

// Build implements ingest.Adapter.
func (MISOAccreditation) Build(p ingest.Plan) (*ingest.Build, error) {
	f, _ := ingest.SplitRoles(p.Files)
	if f == nil {
		return nil, fmt.Errorf("miso accreditation: the plan has no data file")
	}
	name := filepath.Base(f.Path)
	m := misoAccFile.FindStringSubmatch(name)
	py := m[1] + "-" + m[2]
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("miso accreditation: %w", err)
	}
	rows := ingest.NewRows(capability.PowerCapacityAccreditationMISO)
	var bad kit.Problems
	var missing, incomplete, found []string
	headers := map[string]int{}
	asOf := ""
	labels := append([]string{"Resource Class", "Units"}, misoSeasons...)
	for _, s := range misoAccSheets {
		sh := wb.Sheet(s.sheet)
		if sh == nil {
			missing = append(missing, fmt.Sprintf("%s: no sheet %q", name, s.sheet))
			continue
		}
		posted := ""
		for r := 1; r <= min(5, sh.NumRows()); r++ {
			if d := pjmELCCDate.FindStringSubmatch(strings.TrimSpace(sh.Cell(r, 1).Value)); d != nil {
				if t, err := kit.ParseDate(d[1]); err == nil {
					posted = t.Format("2006-01-02")
				}
			}
		}
		if posted == "" {
			incomplete = append(incomplete, fmt.Sprintf("%s %s: no 'Posted <date>' line under the title", name, s.sheet))
		}
		asOf = max(asOf, posted)
		h, err := kit.FindHeader(sh, 10, labels...)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		headers[s.sheet] = h.Row
		cClass, cUnits := h.Col("Resource Class"), h.Col("Units")
		n, footnote := 0, false
		for r := h.Row + 1; r <= sh.NumRows(); r++ {
			if blockEnd(sh, r) {
				footnote = strings.HasPrefix(strings.TrimSpace(sh.Cell(r, 1).Value), "*")
				break
			}
			class := kit.Squash(strings.TrimSpace(sh.Cell(r, cClass).Value))
			var variant any
			if sm := misoStorage.FindStringSubmatch(class); sm != nil {
				variant = sm[1]
			}
			at := func(c int) string { return fmt.Sprintf("%s %s!%s%d", name, s.sheet, grid.ColumnName(c), r) }
			lin := ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: s.sheet, Row: r, SHA256: f.SHA256}
			units, err := kit.Int(sh.Cell(r, cUnits))
			if err != nil {
				bad.Add("%s: %v", at(cUnits), err)
			}
			for _, season := range misoSeasons {
				c := h.Col(season)
				cell := sh.Cell(r, c)
				row := rows.Add(lin).
					Set("planning_year", py).Set("method", s.method).Set("season", strings.ToLower(season)).
					SetCell("resource_class", cClass, class).Set("storage_variant", variant).
					SetCell("unit_count", cUnits, units).
					Set("posted_date", nilIfEmpty(posted)).
					Key(strings.Join([]string{py, s.method, strings.ToLower(season), class}, "|"))
				if mark := strings.TrimSpace(cell.Value); strings.HasPrefix(mark, "*") {
					row.Set("atom_type", "suppressed").Set("suppressed", true).Set("suppression_mark", mark)
					continue
				}
				v, err := percent(cell)
				if err != nil || v == nil {
					bad.Add("%s: %q is neither a ratio nor MISO's mark for a withheld value (%v)", at(c), cell.Value, err)
				}
				row.Set("atom_type", "ratio").Set("suppressed", false).Set("ratio_percent", v)
			}
			n++
		}
		if !footnote {
			incomplete = append(incomplete, fmt.Sprintf("%s %s: the table does not end with its footnote (cut short?)", name, s.sheet))
		}
		found = append(found, fmt.Sprintf("%s %s: %d classes", name, s.sheet, n))
	}
	if asOf == "" {
		asOf = m[1] + "-06-01"
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	src := f.Source()
	src.Title, src.Release, src.HeaderRows = strings.TrimSuffix(name, ".xlsx"), asOf, headers
	b := &ingest.Build{AsOf: asOf, Rows: facts, Cells: rows.Cells(), Sources: []snapshots.Source{src},
		Required: []string{"planning_year", "method", "resource_class", "atom_type", "suppressed"},
		Ranges:   map[string]snapshots.Range{"ratio_percent": {Min: 0, Max: 100}, "unit_count": {Min: 0, Max: 100000}},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(found, "; ")),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d atoms read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "both sheets dated and ending with their footnote"))
	return b, nil
}

package market

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// MISOAccreditation ingests power.capacity_accreditation_miso from MISO's seasonal
// accreditation documents for a planning year: the class-average accreditation and the
// indicative DLOL (direct loss of load) results. MISO posts them as PDFs (read page by page
// through grid). A table is found on any page (or sheet) by the title above it, "... Class
// Average ..." or "... Indicative DLOL ...", with "Posted <date>" under the title and a table
// headed "Resource Class | Units | Summer | Fall | Winter | Spring" (ratios in percent; "*"
// where MISO withholds a value) that ends with the footnote explaining the mark. The documents
// of one planning year are one snapshot, as of the latest posting date.
type MISOAccreditation struct{}

const (
	misoAccFolder   = "iso/miso/accreditation"
	misoAccSourceID = "miso_seasonal_accreditation"
	misoAccURL      = "https://www.misoenergy.org/planning/resource-adequacy/"
)

var (
	misoAccFile    = regexp.MustCompile(`(?i)^(\d{4})-(\d{4}).*(accreditation|dlol).*\.(xlsx|pdf)$`)
	misoAccMethods = []struct{ title, method string }{{"class average", "class_average"}, {"indicative dlol", "indicative_dlol"}}
	misoStorage    = regexp.MustCompile(`(?i)^storage\s*[-–(]\s*(.+?)\)?$`)
)

// misoAccKnown are the accreditation documents on MISO's document host. No address of a
// class-average accreditation document has been found; it is read when placed in the folder.
var misoAccKnown = []fetch.Source{
	{URL: "https://cdn.misoenergy.org/Indicative%20DLOL%20Results%20PY%202025-2026667100.pdf", Kind: fetch.PDF,
		Dest: misoAccFolder + "/2025-2026 Indicative DLOL Results.pdf"},
}

// Capability implements ingest.Adapter.
func (MISOAccreditation) Capability() *capability.Capability {
	return capability.PowerCapacityAccreditationMISO
}

// Version implements ingest.Adapter.
func (MISOAccreditation) Version() string { return "miso-accreditation/2" }

// Folders implements ingest.Adapter.
func (MISOAccreditation) Folders() []string { return []string{misoAccFolder} }

// Known implements ingest.Adapter: the indicative DLOL results on MISO's document host, saved
// under a name that carries the planning year.
func (MISOAccreditation) Known() []fetch.Source { return append([]fetch.Source(nil), misoAccKnown...) }

// Plan implements ingest.Adapter: one snapshot per planning year, of all its documents.
func (MISOAccreditation) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return misoAccFile.MatchString(n) })
	if err != nil {
		return nil, err
	}
	byYear := map[string][]ingest.File{}
	var years []string
	for _, p := range paths {
		m := misoAccFile.FindStringSubmatch(filepath.Base(p))
		py := m[1] + "-" + m[2]
		if byYear[py] == nil {
			years = append(years, py)
		}
		byYear[py] = append(byYear[py], ingest.File{Path: p, SourceID: misoAccSourceID, Publisher: PublisherMISO, URL: knownURL(misoAccKnown, p, misoAccURL), Role: ingest.RoleData})
	}
	sort.Strings(years)
	var plans []ingest.Plan
	for _, py := range years {
		plans = append(plans, ingest.Plan{Document: "PY " + py, Files: byYear[py]})
	}
	return plans, nil
}

// misoAccMethod is the method a table's title names ("" when it names none).
func misoAccMethod(sh *grid.Sheet) (method string, titleRow int) {
	for r := 1; r <= min(5, sh.NumRows()); r++ {
		t := kit.Norm(sh.Cell(r, 1).Value)
		for _, m := range misoAccMethods {
			if strings.Contains(t, m.title) {
				return m.method, r
			}
		}
	}
	for _, m := range misoAccMethods {
		if kit.Norm(sh.Name) == m.title {
			return m.method, 0
		}
	}
	return "", 0
}

// Build implements ingest.Adapter.
func (MISOAccreditation) Build(p ingest.Plan) (*ingest.Build, error) {
	rows := ingest.NewRows(capability.PowerCapacityAccreditationMISO)
	var bad kit.Problems
	var missing, incomplete, found []string
	b := &ingest.Build{Required: []string{"planning_year", "method", "resource_class", "atom_type", "suppressed"},
		Ranges: map[string]snapshots.Range{"ratio_percent": {Min: 0, Max: 100}, "unit_count": {Min: 0, Max: 100000}}}
	asOf, py := "", ""
	labels := append([]string{"Resource Class", "Units"}, misoSeasons...)
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		m := misoAccFile.FindStringSubmatch(name)
		if m == nil {
			return nil, fmt.Errorf("miso accreditation: %s is not an accreditation document", name)
		}
		py = m[1] + "-" + m[2]
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("miso accreditation: %w", err)
		}
		headers := map[string]int{}
		release := ""
		for _, sh := range wb.Sheets {
			method, titleRow := misoAccMethod(sh)
			if method == "" {
				continue
			}
			posted := ""
			for r := titleRow + 1; r <= min(titleRow+3, sh.NumRows()); r++ {
				if d := pjmELCCDate.FindStringSubmatch(strings.TrimSpace(sh.Cell(r, 1).Value)); d != nil {
					if t, err := kit.ParseDate(d[1]); err == nil {
						posted = t.Format("2006-01-02")
					}
				}
			}
			if posted == "" {
				incomplete = append(incomplete, fmt.Sprintf("%s %s: no 'Posted <date>' line under the title", name, sh.Name))
			}
			release = max(release, posted)
			h, err := kit.FindHeader(sh, titleRow+10, labels...)
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s %s: %v", name, sh.Name, err))
				continue
			}
			headers[sh.Name] = h.Row
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
				at := func(c int) string { return fmt.Sprintf("%s %s!%s%d", name, sh.Name, grid.ColumnName(c), r) }
				lin := ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}
				units, err := kit.Int(sh.Cell(r, cUnits))
				if err != nil {
					bad.Add("%s: %v", at(cUnits), err)
				}
				for _, season := range misoSeasons {
					c := h.Col(season)
					cell := sh.Cell(r, c)
					row := rows.Add(lin).
						Set("planning_year", py).Set("method", method).Set("season", strings.ToLower(season)).
						SetCell("resource_class", cClass, class).Set("storage_variant", variant).
						SetCell("unit_count", cUnits, units).
						Set("posted_date", nilIfEmpty(posted)).
						Key(strings.Join([]string{py, method, strings.ToLower(season), class}, "|"))
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
				incomplete = append(incomplete, fmt.Sprintf("%s %s: the table does not end with its footnote (cut short?)", name, sh.Name))
			}
			found = append(found, fmt.Sprintf("%s %s: %s, %d classes", name, sh.Name, method, n))
		}
		if len(headers) == 0 && !slices.ContainsFunc(missing, func(s string) bool { return strings.HasPrefix(s, name+" ") }) {
			missing = append(missing, fmt.Sprintf("%s: no page titled with Class Average or Indicative DLOL above a table headed %q", name, labels))
		}
		src := f.Source()
		src.Title, src.Release, src.HeaderRows = strings.TrimSuffix(strings.TrimSuffix(name, ".pdf"), ".xlsx"), release, headers
		b.Sources = append(b.Sources, src)
		asOf = max(asOf, release)
	}
	if asOf == "" {
		asOf = py[:4] + "-06-01"
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(found, "; ")),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d atoms read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "every table dated and ending with its footnote"))
	return b, nil
}

package market

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// PJMAccreditation ingests power.capacity_accreditation_pjm from PJM's ELCC class rating
// documents. PJM publishes them as PDFs (read page by page through grid): a title "<Preliminary|
// Final> ELCC Class Ratings for the <DY> Base Residual Auction" with the posting date, and a
// table headed "ELCC Class | ELCC Class Rating" (ratings in percent). Each document is its own
// snapshot.
type PJMAccreditation struct{}

const (
	pjmELCCFolder   = "iso/pjm/elcc"
	pjmELCCSourceID = "pjm_elcc_class_ratings"
	pjmELCCURL      = "https://www.pjm.com/planning/resource-adequacy-planning/effective-load-carrying-capability"
)

var (
	pjmELCCFile  = regexp.MustCompile(`(?i)elcc-class-ratings.*\.(pdf|xlsx)$`)
	pjmELCCTitle = regexp.MustCompile(`(?i)^(?:(\w+)\s+)?ELCC Class Ratings for the (\d{4})/(\d{4}) (Base Residual Auction|BRA|.+ Incremental Auction)`)
	pjmELCCDate  = regexp.MustCompile(`(?i)^posted:?\s+(.+)$`)
)

// Capability implements ingest.Adapter.
func (PJMAccreditation) Capability() *capability.Capability {
	return capability.PowerCapacityAccreditationPJM
}

// Version implements ingest.Adapter.
func (PJMAccreditation) Version() string { return "pjm-elcc/2" }

// Folders implements ingest.Adapter.
func (PJMAccreditation) Folders() []string { return []string{pjmELCCFolder} }

// pjmELCCKnown are the final class ratings documents of the base residual auctions on PJM's
// site, saved under PJM's own file names. PJM's multi-year preliminary documents (one column
// per delivery year) are another layout and are not listed.
var pjmELCCKnown = []fetch.Source{
	{URL: "https://www.pjm.com/-/media/DotCom/planning/res-adeq/elcc/elcc-class-ratings-for-2023-2024-bra.pdf", Kind: fetch.PDF,
		Dest: pjmELCCFolder + "/elcc-class-ratings-for-2023-2024-bra.pdf"},
	{URL: "https://www.pjm.com/-/media/DotCom/planning/res-adeq/elcc/2026-27-bra-elcc-class-ratings.pdf", Kind: fetch.PDF,
		Dest: pjmELCCFolder + "/2026-27-bra-elcc-class-ratings.pdf"},
	{URL: "https://www.pjm.com/-/media/DotCom/planning/res-adeq/elcc/28-29-bra-elcc-class-ratings.pdf", Kind: fetch.PDF,
		Dest: pjmELCCFolder + "/28-29-bra-elcc-class-ratings.pdf"},
}

// Known implements ingest.Adapter: the final class ratings documents PJM has posted for the
// base residual auctions (each has its own address; a new one is added when PJM posts it).
func (PJMAccreditation) Known() []fetch.Source { return append([]fetch.Source(nil), pjmELCCKnown...) }

// Plan implements ingest.Adapter: one snapshot per document.
func (PJMAccreditation) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(n string) bool { return pjmELCCFile.MatchString(n) })
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range paths {
		plans = append(plans, ingest.Plan{Files: []ingest.File{{Path: p, SourceID: pjmELCCSourceID, Publisher: PublisherPJM, URL: knownURL(pjmELCCKnown, p, pjmELCCURL), Role: ingest.RoleData}}})
	}
	return plans, nil
}

// Build implements ingest.Adapter.
func (PJMAccreditation) Build(p ingest.Plan) (*ingest.Build, error) {
	rows := ingest.NewRows(capability.PowerCapacityAccreditationPJM)
	var bad kit.Problems
	var missing, incomplete, found []string
	asOf := ""
	b := &ingest.Build{Required: []string{"document_kind", "auction", "delivery_year", "resource_class"},
		Ranges: map[string]snapshots.Range{"rating_percent": {Min: 0, Max: 100}}}
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("pjm elcc: %w", err)
		}
		kind, auction, dy, posted := "", "", "", ""
		headers := map[string]int{}
		n := 0
		for _, sh := range wb.Sheets {
			for r := 1; r <= sh.NumRows(); r++ {
				a := kit.Squash(strings.TrimSpace(sh.Cell(r, 1).Value))
				if m := pjmELCCTitle.FindStringSubmatch(a); m != nil && dy == "" {
					kind = strings.ToLower(m[1])
					if kind == "" {
						kind = "final"
					}
					dy = m[2] + "/" + m[3]
					auction = m[4]
					if strings.EqualFold(auction, "Base Residual Auction") {
						auction = "BRA"
					}
				}
				if m := pjmELCCDate.FindStringSubmatch(a); m != nil && posted == "" {
					if t, err := kit.ParseDate(m[1]); err == nil {
						posted = t.Format("2006-01-02")
					}
				}
			}
			var hr, cClass, cRating int
			if h, err := kit.FindHeader(sh, 20, "ELCC Class", "ELCC Class Rating"); err == nil {
				hr, cClass, cRating = h.Row, h.Col("ELCC Class"), h.Col("ELCC Class Rating")
			} else if t := findRow(sh, 1, "ELCC Class Ratings"); t > 0 {
				// The table's title is there but its header is not as printed: read the
				// table where it stands and let headers_present reject the document.
				missing = append(missing, fmt.Sprintf("%s %s row %d: %v", name, sh.Name, t+1, err))
				hr, cClass, cRating = t+1, 1, 2
			} else {
				continue
			}
			headers[sh.Name] = hr
			for r := hr + 1; r <= sh.NumRows() && !blockEnd(sh, r); r++ {
				class := kit.Squash(strings.TrimSpace(sh.Cell(r, cClass).Value))
				rating, err := percent(sh.Cell(r, cRating))
				if err != nil {
					bad.Add("%s %s!%s%d: %v", name, sh.Name, grid.ColumnName(cRating), r, err)
				}
				rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: f.SHA256}).
					Set("document_kind", kind).
					Set("auction", auction).
					Set("delivery_year", dy).
					SetCell("resource_class", cClass, class).
					SetCell("rating_percent", cRating, rating).
					Set("posted_date", nilIfEmpty(posted)).
					Key(strings.Join([]string{kind, auction, dy, class}, "|"))
				n++
			}
		}
		switch {
		case len(headers) == 0:
			missing = append(missing, name+": no page with the table headed ELCC Class | ELCC Class Rating")
		case dy == "" || posted == "":
			incomplete = append(incomplete, name+": no title 'ELCC Class Ratings for the <DY> ...' or no 'Posted <date>' line on the first page")
		case n == 0:
			incomplete = append(incomplete, name+": the ratings table has no class")
		}
		found = append(found, fmt.Sprintf("%s: %s %s %s, %d classes", name, kind, auction, dy, n))
		src := f.Source()
		src.Title, src.Release, src.HeaderRows = strings.TrimSuffix(strings.TrimSuffix(name, ".pdf"), ".xlsx"), posted, headers
		b.Sources = append(b.Sources, src)
		asOf = max(asOf, posted)
	}
	if asOf == "" {
		asOf = "1970-01-01"
		incomplete = append(incomplete, "no posting date read")
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, missing, strings.Join(found, "; ")),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d ratings read", len(facts))),
		kit.Failures(kit.GateComplete, incomplete, "every document has its title, posting date and ratings"))
	return b, nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// percent reads a rating printed as "35%" (or a number of percent); nil when blank.
func percent(c grid.Cell) (any, error) {
	if kit.Blank(c) {
		return nil, nil
	}
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.Value), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return nil, fmt.Errorf("%q is not a percentage", c.Value)
	}
	return v, nil
}

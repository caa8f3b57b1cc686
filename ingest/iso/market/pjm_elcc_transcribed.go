package market

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// PJMAccreditationTranscribed ingests power.capacity_accreditation_pjm from a third party's
// transcription of PJM's ELCC class ratings (derived), in iso/pjm/elcc_derived: a CSV (iso,
// resource_class, study_vintage, penetration_pct, penetration_unit, elcc_pct, elcc_type,
// source_doc, source_page), one row per class rating. study_vintage labels the rating set,
// "<DY> <auction> (<kind>...)": "2026/2027 BRA (official/final)", "2025/2026 3IA (final for
// DY 2025/2026; posted 2025-03-12)"; the delivery year, the auction as printed and the
// document kind (final, preliminary) are read from it. A date in the label is the
// transcriber's: no posting date is taken from it. penetration_pct holds the class's installed
// MW where penetration_unit says installed_mw.
//
// The file is one snapshot. It states no posting date PJM's documents confirm, so its as_of is
// the last day of the latest year a document it cites names as its own ("2025-pjm-elcc-rrs.pdf",
// PJM's 2025 ELCC report, gives 2025-12-31). Its citations name PJM's ELCC page, which lists the
// postings, as the original; each row's own PJM document and page are its
// original_document_url and original_page.
type PJMAccreditationTranscribed struct{}

const pjmELCCDerivedFolder = "iso/pjm/elcc_derived"

var (
	pjmELCCTranscript = transcript{
		name:     regexp.MustCompile(`(?i)^pjm_elcc_class_ratings.*\.csv$`),
		sourceID: "pjm_elcc_class_ratings_transcribed",
		copies: map[string]string{"pjm_elcc_class_ratings_DY2025-2028_transcribed_EXCERPT.csv": transcriber +
			"/blob/521e1a4e4872abda3692ad7233bdf4f84c6cbbfd/data/raw/capacity-market/elcc/pjm/pjm.csv"},
		labels: []string{"iso", "resource_class", "study_vintage", "penetration_pct", "penetration_unit", "elcc_pct", "elcc_type", "source_doc", "source_page"},
	}
	pjmVintage = regexp.MustCompile(`^(\d{4})/(\d{4}) (\S+) \(([^)]*)\)$`)
	// pjmDocYear is the year a PJM document names as its own at the head of its file name
	// (the annual ELCC report "2025-pjm-elcc-rrs.pdf"); the class ratings documents are named
	// by their delivery year ("2026-27-bra-elcc-class-ratings.pdf") and give none.
	pjmDocYear = regexp.MustCompile(`^(\d{4})-pjm-`)
)

// Capability implements ingest.Adapter.
func (PJMAccreditationTranscribed) Capability() *capability.Capability {
	return capability.PowerCapacityAccreditationPJM
}

// Version implements ingest.Adapter.
func (PJMAccreditationTranscribed) Version() string { return "pjm-elcc-transcribed/1" }

// Folders implements ingest.Adapter.
func (PJMAccreditationTranscribed) Folders() []string { return []string{pjmELCCDerivedFolder} }

// Known implements ingest.Adapter: a transcription has no official address to download it
// from (ingest --fetch downloads PJM's documents themselves, through PJMAccreditation).
func (PJMAccreditationTranscribed) Known() []fetch.Source { return nil }

// Plan implements ingest.Adapter: one snapshot per transcription file.
func (PJMAccreditationTranscribed) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(pjmELCCTranscript.name.MatchString)
	if err != nil {
		return nil, err
	}
	var plans []ingest.Plan
	for _, p := range paths {
		plans = append(plans, ingest.Plan{Files: []ingest.File{{Path: p, SourceID: pjmELCCTranscript.sourceID,
			Publisher: PublisherPJM + ", transcribed by a third party", URL: pjmELCCTranscript.copyURL(p), Role: ingest.RoleData,
			Derived: true, OriginalURL: pjmELCCURL}}})
	}
	return plans, nil
}

// Build implements ingest.Adapter.
func (PJMAccreditationTranscribed) Build(p ingest.Plan) (*ingest.Build, error) {
	if len(p.Files) != 1 {
		return nil, fmt.Errorf("pjm elcc transcription: %d files in the plan, one expected", len(p.Files))
	}
	f := &p.Files[0]
	tb, err := openTable(f, pjmELCCTranscript)
	if err != nil {
		return nil, fmt.Errorf("pjm elcc transcription: %w", err)
	}
	var bad kit.Problems
	var incomplete []string
	rows := ingest.NewRows(capability.PowerCapacityAccreditationPJM)
	sets := map[string]int{}
	year := 0
	for r := 2; r <= tb.sh.NumRows(); r++ {
		if tb.blankRow(r) {
			continue
		}
		ok := true
		if iso := tb.text(r, "iso"); iso != "PJM" {
			bad.Add("%s: %q, PJM expected", tb.where(r, "iso"), iso)
			ok = false
		}
		label := tb.text(r, "study_vintage")
		kind, auction, dy, err := pjmSet(label)
		if err != nil {
			bad.Add("%s: %v", tb.where(r, "study_vintage"), err)
			ok = false
		}
		class := tb.text(r, "resource_class")
		if class == "" {
			bad.Add("%s: no ELCC class", tb.where(r, "resource_class"))
			ok = false
		}
		rating, err := kit.Number(tb.cell(r, "elcc_pct"))
		if err != nil || rating == nil {
			bad.Add("%s: %q is not a rating in percent", tb.where(r, "elcc_pct"), tb.cell(r, "elcc_pct").Value)
			ok = false
		}
		mw, err := kit.Number(tb.cell(r, "penetration_pct"))
		unit := tb.text(r, "penetration_unit")
		switch {
		case err != nil:
			bad.Add("%s: %q is not a number of MW", tb.where(r, "penetration_pct"), tb.cell(r, "penetration_pct").Value)
			ok = false
		case mw == nil && unit != "":
			bad.Add("%s: unit %q without a figure", tb.where(r, "penetration_unit"), unit)
			ok = false
		case mw != nil && unit != "installed_mw":
			bad.Add("%s: unit %q, installed_mw expected", tb.where(r, "penetration_unit"), unit)
			ok = false
		}
		doc, page := tb.text(r, "source_doc"), tb.text(r, "source_page")
		if !strings.HasPrefix(doc, "https://www.pjm.com/") {
			bad.Add("%s: %q is not the address of a PJM document", tb.where(r, "source_doc"), doc)
			ok = false
		}
		if page == "" {
			bad.Add("%s: no page of the PJM document", tb.where(r, "source_page"))
			ok = false
		}
		if m := pjmDocYear.FindStringSubmatch(docName(doc)); m != nil {
			y, _ := strconv.Atoi(m[1])
			year = max(year, y)
		}
		if !ok {
			continue
		}
		rows.Add(ingest.Lineage{SourceID: f.SourceID, File: tb.name, Sheet: tb.sh.Name, Row: r, SHA256: f.SHA256}).
			Set("document_kind", kind).
			Set("auction", auction).
			Set("delivery_year", dy).
			SetCell("resource_class", tb.col["resource_class"], class).
			SetCell("rating_percent", tb.col["elcc_pct"], rating).
			SetCell("installed_mw", tb.col["penetration_pct"], mw).
			SetCell("document_label", tb.col["study_vintage"], label).
			SetCell("original_document_url", tb.col["source_doc"], doc).
			SetCell("original_page", tb.col["source_page"], page).
			Set("posted_date", nil).
			Key(strings.Join([]string{kind, auction, dy, class}, "|"))
		sets[kind+" "+auction+" "+dy]++
	}
	asOf := "1970-01-01"
	if year > 0 {
		asOf = fmt.Sprintf("%d-12-31", year)
	} else if len(tb.missing) == 0 && bad.Len() == 0 {
		incomplete = append(incomplete, tb.name+": no document it cites names its year (YYYY-pjm-... .pdf), so no as_of can be stated")
	}
	if len(sets) == 0 && len(tb.missing) == 0 && bad.Len() == 0 {
		incomplete = append(incomplete, tb.name+": no rating")
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, err
	}
	var found []string
	for s, n := range sets {
		found = append(found, fmt.Sprintf("%s: %d classes", s, n))
	}
	sort.Strings(found)
	src := f.Source()
	src.Title = "PJM ELCC class ratings, as transcribed by a third party (" + tb.name + ")"
	src.HeaderRows = map[string]int{tb.sh.Name: 1}
	b := &ingest.Build{AsOf: asOf, Rows: facts, Cells: rows.Cells(), Sources: []snapshots.Source{src},
		Required: []string{"document_kind", "auction", "delivery_year", "resource_class", "rating_percent", "original_document_url", "original_page"},
		Ranges:   map[string]snapshots.Range{"rating_percent": {Min: 0, Max: 100}, "installed_mw": {Min: 0, Max: 1e6}},
	}
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, tb.missing, "the transcription's header labels, each in its column"),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d ratings read: %s; posting dates not confirmed, none served", len(facts), strings.Join(found, "; "))),
		kit.Failures(kit.GateComplete, incomplete, fmt.Sprintf("as_of %s: the end of %d, the year of the latest document cited that names its year", asOf, year)))
	return b, nil
}

// pjmSet reads a transcription's label of a rating set ("2026/2027 BRA (official/final)"):
// the document kind (final or preliminary, as the parenthesis says), the auction as printed
// and the delivery year.
func pjmSet(label string) (kind, auction, dy string, err error) {
	m := pjmVintage.FindStringSubmatch(label)
	if m == nil {
		return "", "", "", fmt.Errorf("%q is not '<YYYY/YYYY> <auction> (<kind>...)'", label)
	}
	a, _ := strconv.Atoi(m[1])
	if b, _ := strconv.Atoi(m[2]); b != a+1 {
		return "", "", "", fmt.Errorf("%q: %s/%s is not a delivery year", label, m[1], m[2])
	}
	paren := strings.ToLower(m[4])
	switch {
	case strings.Contains(paren, "preliminary"):
		kind = "preliminary"
	case strings.Contains(paren, "final"):
		kind = "final"
	default:
		return "", "", "", fmt.Errorf("%q names neither a final nor a preliminary document", label)
	}
	return kind, m[3], m[1] + "/" + m[2], nil
}

package market

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
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
//
// A transcription has no official address to download it from (ingest --fetch downloads
// PJM's documents themselves, through PJMAccreditation).
var PJMAccreditationTranscribed = kit.New(&kit.Spec{
	Cap:     capability.PowerCapacityAccreditationPJM,
	Version: "pjm-elcc-transcribed/1",
	Name:    "transcription",
	Folders: []string{pjmELCCDerivedFolder},
	Files:   []*kit.File{pjmELCCTranscript.file(PublisherPJM, pjmELCCURL, pjmRating)},
	State:   func() any { return &pjmTxState{sets: map[string]int{}} },
	AsOf: func(b *kit.Book) (string, error) {
		st := b.State.(*pjmTxState)
		if st.year > 0 {
			return fmt.Sprintf("%d-12-31", st.year), nil
		}
		return "1970-01-01", nil
	},
	Gates: func(b *kit.Book) []snapshots.Gate {
		st, fr := b.State.(*pjmTxState), b.Files[0]
		if st.year == 0 && len(b.Missing) == 0 && b.Bad.Len() == 0 {
			b.Incomplete = append(b.Incomplete, fr.Name+": no document it cites names its year (YYYY-pjm-... .pdf), so no as_of can be stated")
		}
		if len(st.sets) == 0 && len(b.Missing) == 0 && b.Bad.Len() == 0 {
			b.Incomplete = append(b.Incomplete, fr.Name+": no rating")
		}
		var found []string
		for s, n := range st.sets {
			found = append(found, fmt.Sprintf("%s: %d classes", s, n))
		}
		sort.Strings(found)
		fr.Source.Title = "PJM ELCC class ratings, as transcribed by a third party (" + fr.Name + ")"
		return []snapshots.Gate{
			b.HeadersGate("the transcription's header labels, each in its column"),
			b.CellsGate(fmt.Sprintf("%d ratings read: %s; posting dates not confirmed, none served", len(b.Facts), strings.Join(found, "; "))),
			b.CompleteGate(fmt.Sprintf("as_of %s: the end of %d, the year of the latest document cited that names its year", b.AsOf, st.year)),
		}
	},
	Required: []string{"document_kind", "auction", "delivery_year", "resource_class", "rating_percent", "original_document_url", "original_page"},
	Ranges:   map[string]snapshots.Range{"rating_percent": {Min: 0, Max: 100}, "installed_mw": {Min: 0, Max: 1e6}},
})

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

// pjmTxState is what a transcription's rows add up to: the ratings of each set, and the
// latest year a document cited names as its own.
type pjmTxState struct {
	sets map[string]int
	year int
}

// pjmRating reads one class rating; a row whose cells do not parse is reported and not kept.
func pjmRating(r *kit.Row) {
	st := r.Book.State.(*pjmTxState)
	ok := true
	if iso := txText(r, "iso"); iso != "PJM" {
		txProblem(r, "iso", "%q, PJM expected", iso)
		ok = false
	}
	label := txText(r, "study_vintage")
	kind, auction, dy, err := pjmSet(label)
	if err != nil {
		txProblem(r, "study_vintage", "%v", err)
		ok = false
	}
	class := txText(r, "resource_class")
	if class == "" {
		txProblem(r, "resource_class", "no ELCC class")
		ok = false
	}
	rating, err := kit.Number(r.Cell("elcc_pct"))
	if err != nil || rating == nil {
		txProblem(r, "elcc_pct", "%q is not a rating in percent", r.Cell("elcc_pct").Value)
		ok = false
	}
	mw, err := kit.Number(r.Cell("penetration_pct"))
	unit := txText(r, "penetration_unit")
	switch {
	case err != nil:
		txProblem(r, "penetration_pct", "%q is not a number of MW", r.Cell("penetration_pct").Value)
		ok = false
	case mw == nil && unit != "":
		txProblem(r, "penetration_unit", "unit %q without a figure", unit)
		ok = false
	case mw != nil && unit != "installed_mw":
		txProblem(r, "penetration_unit", "unit %q, installed_mw expected", unit)
		ok = false
	}
	doc, page := txText(r, "source_doc"), txText(r, "source_page")
	if !strings.HasPrefix(doc, "https://www.pjm.com/") {
		txProblem(r, "source_doc", "%q is not the address of a PJM document", doc)
		ok = false
	}
	if page == "" {
		txProblem(r, "source_page", "no page of the PJM document")
		ok = false
	}
	if m := pjmDocYear.FindStringSubmatch(docName(doc)); m != nil {
		y, _ := strconv.Atoi(m[1])
		st.year = max(st.year, y)
	}
	if !ok {
		return
	}
	col := r.Sheet.Col
	r.Add().
		Set("document_kind", kind).
		Set("auction", auction).
		Set("delivery_year", dy).
		SetCell("resource_class", col("resource_class"), class).
		SetCell("rating_percent", col("elcc_pct"), rating).
		SetCell("installed_mw", col("penetration_pct"), mw).
		SetCell("document_label", col("study_vintage"), label).
		SetCell("original_document_url", col("source_doc"), doc).
		SetCell("original_page", col("source_page"), page).
		Set("posted_date", nil).
		Key(strings.Join([]string{kind, auction, dy, class}, "|"))
	st.sets[kind+" "+auction+" "+dy]++
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

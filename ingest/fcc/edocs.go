package fcc

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/fetch"
)

// The weekly notices are found through the FCC's EDOCS public API, whose search answers in
// JSON. What is confirmed, and what is not:
//
//   - Confirmed (from public code that calls it): the API lives under
//     https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/; GET documents?reportNumber=<report>
//     answers a notice's EDOCS record id without a key; documents/<id> gives the address of
//     its text on https://docs.fcc.gov/public/attachments/ (DOC-<id>A1.txt); the Space
//     Bureau's code is SB (rss/bureaus/SB lists its releases); the text attachment is
//     published for the bureau's SAT and SES notices.
//   - Not confirmed (no response body of this API was seen in any source): the names of the
//     search parameters for bureau, document type, release date and paging, and the JSON
//     field names of the answer. EDOCSListingURL and edocsPage below state the layout this
//     reader is built for; when the API's real layout is seen, these are the two places to
//     change. The tests serve listings written in this assumed layout.
const (
	// EDOCSAPI is the base of the EDOCS public API.
	EDOCSAPI = "https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/"
	// edocsPageLength is the documents asked per page of the listing.
	edocsPageLength = 100
)

// EDOCSListingURL is the first page of the listing: the Space Bureau's public notices
// released from the contract's first notice date on (parameter names assumed, see above).
func EDOCSListingURL() string {
	return edocsPageURL(0)
}

func edocsPageURL(offset int) string {
	q := url.Values{}
	q.Set("bureau", "SB")
	q.Set("docType", "Public Notice")
	q.Set("releaseDateFrom", capability.SatelliteNoticesFrom)
	q.Set("offset", strconv.Itoa(offset))
	q.Set("limit", strconv.Itoa(edocsPageLength))
	return EDOCSAPI + "documents?" + q.Encode()
}

// ListingFile is where the listing's first page is stored (later pages beside it).
const ListingFile = "edocs_sb_public_notices.json"

// edocsPage is one page of the listing, in the layout assumed (see above): the documents
// matching the search (total), the position of this page's first document (offset) and the
// page's documents, each with its EDOCS id, title, report number, release date and
// attachments (each an address and a file type).
type edocsPage struct {
	Total     *int            `json:"total"`
	Offset    *int            `json:"offset"`
	Documents []edocsDocument `json:"documents"`
}

type edocsDocument struct {
	ID           json.Number       `json:"id"`
	Title        string            `json:"title"`
	ReportNumber string            `json:"reportNumber"`
	ReleaseDate  string            `json:"releaseDate"`
	Attachments  []edocsAttachment `json:"attachments"`
}

type edocsAttachment struct {
	URL      string `json:"url"`
	FileType string `json:"fileType"`
}

var (
	satReport   = regexp.MustCompile(`^SAT-\d{5}$`)
	reportInAny = regexp.MustCompile(`\b(SAT-\d{5})\b`)
	isoDate     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)
	attachment  = regexp.MustCompile(`^https://docs\.fcc\.gov/public/attachments/([A-Za-z0-9][A-Za-z0-9-]*)\.(txt|pdf)$`)
	earthTitle  = regexp.MustCompile(`(?i)\bearth[ -]station`)
)

// spaceStationNotice says whether a listed document is a weekly space-station notice: a
// report number SAT-nnnnn (the SES- series are the earth-station notices), a title that says
// "Accepted for Filing" or "Actions Taken", and no mention of earth stations in the title.
func spaceStationNotice(d edocsDocument) (report string, ok bool) {
	report = strings.TrimSpace(d.ReportNumber)
	if report == "" {
		if m := reportInAny.FindStringSubmatch(d.Title); m != nil {
			report = m[1]
		}
	}
	if !satReport.MatchString(report) || earthTitle.MatchString(d.Title) {
		return report, false
	}
	return report, acceptedType.MatchString(d.Title) || actionsType.MatchString(d.Title)
}

// readEDOCSPage reads one page of the listing: the text of each weekly space-station notice
// released from the contract's first date on, to be stored as <report>_<document>.txt in
// NoticesFolder, and the next page's address.
func readEDOCSPage(body []byte, pageURL string) ([]fetch.Source, string, error) {
	var p edocsPage
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, "", fmt.Errorf("not an EDOCS documents answer: %w", err)
	}
	if p.Total == nil || p.Offset == nil || p.Documents == nil {
		return nil, "", fmt.Errorf("not an EDOCS documents answer: total, offset or documents missing")
	}
	var out []fetch.Source
	for i, d := range p.Documents {
		report, ok := spaceStationNotice(d)
		if !ok {
			continue
		}
		if !isoDate.MatchString(d.ReleaseDate) {
			return nil, "", fmt.Errorf("document %d (%s, %s): release date %q is not a date", *p.Offset+i+1, d.ID, report, d.ReleaseDate)
		}
		if d.ReleaseDate[:10] < capability.SatelliteNoticesFrom {
			continue // the search's date, checked again
		}
		var text, pdf string
		for _, a := range d.Attachments {
			m := attachment.FindStringSubmatch(a.URL)
			if m == nil {
				continue
			}
			switch m[2] {
			case "txt":
				if text == "" {
					text = a.URL
				}
			case "pdf":
				pdf = a.URL
			}
		}
		if text == "" {
			what := "no attachment"
			if pdf != "" {
				what = "only its PDF (" + pdf + ")"
			}
			return nil, "", fmt.Errorf("%s of %s (EDOCS %s) lists %s: the notices are read from their text attachment", report, d.ReleaseDate[:10], d.ID, what)
		}
		doc := strings.TrimSuffix(path.Base(text), ".txt")
		out = append(out, fetch.Source{URL: text, Kind: fetch.TEXT, Dest: NoticesFolder + "/" + report + "_" + doc + ".txt"})
	}
	next := ""
	if read := *p.Offset + len(p.Documents); read < *p.Total {
		if len(p.Documents) == 0 {
			return nil, "", fmt.Errorf("the page at offset %d lists no document, though the search reports %d", *p.Offset, *p.Total)
		}
		u, err := url.Parse(pageURL)
		if err != nil {
			return nil, "", fmt.Errorf("page address %q: %w", pageURL, err)
		}
		q := u.Query()
		q.Set("offset", strconv.Itoa(read))
		u.RawQuery = q.Encode()
		next = u.String()
	}
	return out, next, nil
}

// noticeName reads the name a downloaded notice is stored under, <report>_<document>.txt:
// its report number and EDOCS document (DOC-412345A1, DA-25-871A1).
var noticeName = regexp.MustCompile(`^(SAT-\d{5})_([A-Za-z0-9][A-Za-z0-9-]*)\.txt$`)

// edocsName is the name of a text attachment on EDOCS: DOC-379485A1.txt, DA-25-871A1.txt.
var edocsName = regexp.MustCompile(`^((?:DOC|DA)-[0-9][0-9-]*A\d+)\.txt$`)

package fcc

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"

	"github.com/citeq/citeq/ingest/fetch"
)

// The weekly notices are found through the FCC's EDOCS public API. What is confirmed, and
// what is not:
//
//   - Confirmed, from public code that calls the API (its addresses and what each answers;
//     no answer body of the API was seen): the API lives under
//     https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/, without a key. rss/bureaus/SB is the
//     Space Bureau's RSS feed of its releases (the International Bureau's, IB, is inactive
//     since 2023), each item linking https://www.fcc.gov/edoc/<id>. documents/<id> answers a
//     document's metadata, with the address of its text on
//     https://docs.fcc.gov/public/attachments/; documents?reportNumber=<report> (SES-02821)
//     answers a notice's record id. The text of a notice without a DA number is
//     https://docs.fcc.gov/public/attachments/DOC-<id>A1.txt (DA-<da number>A1.txt for one
//     with a DA number), and docs.fcc.gov answers an unknown id with an HTML page and status
//     200, which the download refuses as HTML.
//   - Not confirmed: the wording of the feed's item titles (the walk takes an item whose
//     title says Accepted for Filing or Actions Taken and not earth station, and reads a
//     report number from the title when it carries one); how far back the feed reaches (one
//     source reports no per-item date, so the walk cannot ask for the releases since
//     2025-06-18: it downloads what the feed lists when it runs, and a notice that has left
//     the feed is not found by it); the JSON layouts of documents/<id> and of
//     documents?reportNumber=, which the walk therefore does not call (EDOCSDocumentURL and
//     EDOCSReportURL build their addresses for a notice looked up by hand). The tests serve a
//     synthetic feed in the RSS 2.0 layout (testdata/fcc_edocs).
const (
	// EDOCSAPI is the base of the EDOCS public API.
	EDOCSAPI = "https://api2.fcc.gov/api/exp/v1.0.0/edocspublic/"
	// EDOCSFeedURL is the Space Bureau's RSS feed of its releases.
	EDOCSFeedURL = EDOCSAPI + "rss/bureaus/SB"
	// edocsAttachments is where EDOCS serves a document's attachments.
	edocsAttachments = "https://docs.fcc.gov/public/attachments/"
)

// EDOCSDocumentURL is the address of a document's metadata (its layout not confirmed).
func EDOCSDocumentURL(id string) string { return EDOCSAPI + "documents/" + id }

// EDOCSReportURL is the address of the lookup of a notice by its report number (SAT-01905),
// which answers its record id (the answer's layout not confirmed).
func EDOCSReportURL(report string) string { return EDOCSAPI + "documents?reportNumber=" + report }

// EDOCSTextURL is the address of the text of the notice with EDOCS record id, when the
// notice has no DA number.
func EDOCSTextURL(id string) string { return edocsAttachments + "DOC-" + id + "A1.txt" }

// ListingFile is where the feed is stored when ingest --fetch walks it.
const ListingFile = "edocs_sb_rss.xml"

// edocsFeed is the RSS 2.0 feed: its items' titles, links and descriptions.
type edocsFeed struct {
	XMLName xml.Name `xml:"rss"`
	Items   []struct {
		Title       string `xml:"title"`
		Link        string `xml:"link"`
		GUID        string `xml:"guid"`
		Description string `xml:"description"`
	} `xml:"channel>item"`
}

var (
	satReport   = regexp.MustCompile(`^SAT-\d{5}$`)
	reportInAny = regexp.MustCompile(`\b((?:SAT|SES)-\d{5})\b`)
	edocLink    = regexp.MustCompile(`^https?://(?:www\.)?fcc\.gov/edoc/(\d+)/?$`)
	earthTitle  = regexp.MustCompile(`(?i)\bearth[ -]station`)
)

// spaceStationNotice says whether a feed item is a weekly space-station notice: a title that
// says "Accepted for Filing" or "Actions Taken" and does not mention earth stations, and no
// report number but a SAT- one (the SES- series are the earth-station notices). It returns
// the report number the title or description carries ("" when neither does).
func spaceStationNotice(title, description string) (report string, ok bool) {
	if m := reportInAny.FindStringSubmatch(title + " " + description); m != nil {
		report = m[1]
	}
	if report != "" && !satReport.MatchString(report) || earthTitle.MatchString(title) {
		return report, false
	}
	return report, acceptedType.MatchString(title) || actionsType.MatchString(title)
}

// readEDOCSFeed reads the Space Bureau's feed: the text of each weekly space-station notice
// it lists, to be stored in NoticesFolder as <report>_DOC-<id>A1.txt, or DOC-<id>A1.txt when
// the item names no report number (the notice's text gives it). The feed is one page.
func readEDOCSFeed(body []byte, _ string) ([]fetch.Source, string, error) {
	var feed edocsFeed
	if err := xml.Unmarshal(body, &feed); err != nil {
		return nil, "", fmt.Errorf("not an RSS feed: %w", err)
	}
	var out []fetch.Source
	for i, it := range feed.Items {
		report, ok := spaceStationNotice(it.Title, it.Description)
		if !ok {
			continue
		}
		link := strings.TrimSpace(it.Link)
		m := edocLink.FindStringSubmatch(link)
		if m == nil {
			m = edocLink.FindStringSubmatch(strings.TrimSpace(it.GUID))
		}
		if m == nil {
			return nil, "", fmt.Errorf("item %d (%q) links %q, not a document of https://www.fcc.gov/edoc/<id>", i+1, it.Title, link)
		}
		name := "DOC-" + m[1] + "A1.txt"
		if report != "" {
			name = report + "_" + name
		}
		out = append(out, fetch.Source{URL: EDOCSTextURL(m[1]), Kind: fetch.TEXT, Dest: NoticesFolder + "/" + name})
	}
	return out, "", nil
}

// noticeName reads the name a downloaded notice is stored under, <report>_<document>.txt:
// its report number and EDOCS document (DOC-412345A1, DA-25-871A1).
var noticeName = regexp.MustCompile(`^(SAT-\d{5})_([A-Za-z0-9][A-Za-z0-9-]*)\.txt$`)

// edocsName is the name of a text attachment on EDOCS: DOC-379485A1.txt, DA-25-871A1.txt.
var edocsName = regexp.MustCompile(`^((?:DOC|DA)-[0-9][0-9-]*A\d+)\.txt$`)

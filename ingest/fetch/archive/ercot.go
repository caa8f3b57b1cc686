package archive

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
)

// ERCOT's Market Information System lists the documents of a report type as JSON
// (IceDocListJsonWS?reportTypeId=<id>: ListDocsByRptTypeRes.DocumentList[].Document with DocID,
// FriendlyName, ConstructedName, PublishDate, ...) and serves each by its DocID
// (mirDownload?doclookupId=<DocID>), the addresses public code reads them from. Each posting
// gets a DocID of its own, so a document's address changes when ERCOT posts it again; the
// listing's PublishDate says which posting is newer.
const (
	ercotListURL = "https://www.ercot.com/misapp/servlets/IceDocListJsonWS?reportTypeId="
	ercotDocURL  = "https://www.ercot.com/misdownload/servlets/mirDownload?doclookupId="
)

// ERCOTDocument is one document of an ERCOT report listing.
type ERCOTDocument struct {
	DocID           string
	FriendlyName    string
	ConstructedName string
	Published       time.Time
}

// ercotListing is the listing's JSON. DocumentList is an array of {"Document": {...}}; a
// listing of one document may give the object alone, and a Document may be an array.
type ercotListing struct {
	Res struct {
		List json.RawMessage `json:"DocumentList"`
	} `json:"ListDocsByRptTypeRes"`
}

type ercotDocJSON struct {
	DocID           json.Number `json:"DocID"`
	FriendlyName    string      `json:"FriendlyName"`
	ConstructedName string      `json:"ConstructedName"`
	PublishDate     string      `json:"PublishDate"`
}

// ReadERCOTListing reads the documents of an ERCOT report listing.
func ReadERCOTListing(page []byte) ([]ERCOTDocument, error) {
	var l ercotListing
	if err := json.Unmarshal(page, &l); err != nil {
		return nil, fmt.Errorf("not an ERCOT document listing: %w", err)
	}
	if len(l.Res.List) == 0 || string(l.Res.List) == "null" {
		return nil, fmt.Errorf("not an ERCOT document listing: no ListDocsByRptTypeRes.DocumentList")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(l.Res.List, &items); err != nil {
		items = []json.RawMessage{l.Res.List}
	}
	var out []ERCOTDocument
	for _, it := range items {
		var wrap struct {
			Document json.RawMessage `json:"Document"`
		}
		if err := json.Unmarshal(it, &wrap); err != nil || len(wrap.Document) == 0 {
			return nil, fmt.Errorf("ERCOT listing: an entry without a Document: %s", abbreviate(it))
		}
		var docs []ercotDocJSON
		if err := json.Unmarshal(wrap.Document, &docs); err != nil {
			var one ercotDocJSON
			if err := json.Unmarshal(wrap.Document, &one); err != nil {
				return nil, fmt.Errorf("ERCOT listing: a Document that does not read: %w", err)
			}
			docs = []ercotDocJSON{one}
		}
		for _, d := range docs {
			pub, err := time.Parse(time.RFC3339, d.PublishDate)
			if err != nil {
				return nil, fmt.Errorf("ERCOT listing: document %s: PublishDate %q is not an RFC 3339 time", d.DocID, d.PublishDate)
			}
			if d.DocID == "" || d.ConstructedName == "" {
				return nil, fmt.Errorf("ERCOT listing: a document without DocID or ConstructedName: %s", abbreviate(wrap.Document))
			}
			out = append(out, ERCOTDocument{DocID: d.DocID.String(), FriendlyName: d.FriendlyName, ConstructedName: d.ConstructedName, Published: pub.UTC()})
		}
	}
	return out, nil
}

func abbreviate(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// ERCOTReport is the listing of one ERCOT report type, read for the documents Pick keeps.
type ERCOTReport struct {
	// ReportTypeID is the report's id in ERCOT's Market Information System.
	ReportTypeID int
	// Listing is the listing's stored first page, relative to the raw directory.
	Listing string
	// Pick says what a listed document is: where it is stored, its kind, the zip member
	// that is the file (when the document is a zip), and the first day of the period it
	// holds; false for a document that is not one of the report's files.
	Pick func(d ERCOTDocument) (dest string, kind fetch.Kind, member string, period time.Time, ok bool)
}

// Source is the listing as a fetch source that downloads the documents of periods starting
// on or after since (every document when since is zero): the newest posting of each
// destination, named with its PublishDate, so that a posting already held is not asked for
// again.
func (r ERCOTReport) Source(since time.Time) fetch.Source {
	return fetch.Source{URL: ercotListURL + strconv.Itoa(r.ReportTypeID), Kind: fetch.LISTING, Dest: r.Listing,
		Listing: &fetch.Listing{Read: func(page []byte, _ string) ([]fetch.Source, string, error) {
			docs, err := ReadERCOTListing(page)
			if err != nil {
				return nil, "", err
			}
			newest := map[string]int{}
			var out []fetch.Source
			for _, d := range docs {
				dest, kind, member, period, ok := r.Pick(d)
				if !ok || period.Before(since) {
					continue
				}
				src := fetch.Source{URL: ercotDocURL + d.DocID, Kind: kind, ZipMember: member, Dest: dest, Published: d.Published}
				if i, seen := newest[dest]; seen {
					if d.Published.After(out[i].Published) {
						out[i] = src
					}
					continue
				}
				newest[dest] = len(out)
				out = append(out, src)
			}
			return out, "", nil
		}}}
}

// ercotPriceDoc matches the workbooks of report NP4-180-ER as ERCOT names them
// (rpt.00013060.0000000000000000.DAMLZHBSPP_2024.zip, holding the .xlsx of the same name).
var ercotPriceDoc = regexp.MustCompile(`(?:^|\.)DAMLZHBSPP_(\d{4})\.zip$`)

// ERCOTPrices is report NP4-180-ER, Historical DAM Load Zone and Hub Prices: one workbook per
// delivery year, posted as a zip, the year under way posted again as it grows. A workbook
// posted before its year ended holds part of the year and is stored as
// DAMLZHBSPP_<year>_partial.xlsx, the complete year as DAMLZHBSPP_<year>.xlsx, the names
// ingest reads them by.
var ERCOTPrices = ERCOTReport{
	ReportTypeID: 13060,
	Listing:      "iso/ercot/listing_np4-180-er.json",
	Pick: func(d ERCOTDocument) (string, fetch.Kind, string, time.Time, bool) {
		m := ercotPriceDoc.FindStringSubmatch(d.ConstructedName)
		if m == nil {
			return "", "", "", time.Time{}, false
		}
		year, _ := strconv.Atoi(m[1])
		name := "DAMLZHBSPP_" + m[1]
		if d.Published.Year() <= year {
			name += "_partial"
		}
		member := strings.TrimSuffix(d.ConstructedName, ".zip") + ".xlsx"
		return "iso/ercot/" + name + ".xlsx", fetch.XLSX, member, time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), true
	},
}

// ercotGISDoc matches a GIS report's name (GIS_Report_December2024), whatever ERCOT puts
// around it.
var ercotGISDoc = regexp.MustCompile(`GIS_Report_(January|February|March|April|May|June|July|August|September|October|November|December)(\d{4})`)

// ERCOTGIS is report PG7-200-ER, the monthly Generator Interconnection Status report: one
// workbook per month, stored as GIS_Report_<Month><Year>.xlsx, the name ingest reads it by.
// Whether ERCOT posts it as the workbook itself or inside a zip is read from the name it
// gives the document (a .zip holds the .xlsx of the same name); this has not been checked
// against a live listing.
var ERCOTGIS = ERCOTReport{
	ReportTypeID: 15933,
	Listing:      "iso/ercot/listing_pg7-200-er.json",
	Pick: func(d ERCOTDocument) (string, fetch.Kind, string, time.Time, bool) {
		m := ercotGISDoc.FindStringSubmatch(d.ConstructedName)
		if m == nil {
			m = ercotGISDoc.FindStringSubmatch(d.FriendlyName)
		}
		if m == nil {
			return "", "", "", time.Time{}, false
		}
		period, err := time.Parse("January2006", m[1]+m[2])
		if err != nil {
			return "", "", "", time.Time{}, false
		}
		member := ""
		if strings.HasSuffix(strings.ToLower(d.ConstructedName), ".zip") {
			member = strings.TrimSuffix(d.ConstructedName, ".zip") + ".xlsx"
		}
		return "iso/ercot/" + m[0] + ".xlsx", fetch.XLSX, member, period, true
	},
}

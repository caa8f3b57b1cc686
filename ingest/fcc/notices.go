package fcc

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// NoticesFolder is the raw directory's folder of the weekly satellite public notices: the
// text attachments the FCC publishes on EDOCS, each stored by ingest --fetch as
// <report>_<document>.txt (SAT-01905_DOC-412345A1.txt), beside the pages of the EDOCS
// listing they were found in. The truncated excerpts in space/fcc_public_notices/ are layout
// samples and are never read from there.
const NoticesFolder = "space/fcc_sat_notices"

const noticesPublisher = "Federal Communications Commission, Space Bureau (weekly satellite public notices, EDOCS)"

// Notices ingests space.satellite_notices from the notices' text.
type Notices struct{}

// Capability implements ingest.Adapter.
func (Notices) Capability() *capability.Capability { return capability.SpaceSatelliteNotices }

// Version implements ingest.Adapter.
func (Notices) Version() string { return "fcc-notices/1" }

// Folders implements ingest.Adapter.
func (Notices) Folders() []string { return []string{NoticesFolder} }

// Known implements ingest.Adapter: the Space Bureau's EDOCS feed, from which ingest --fetch
// downloads the text of every weekly space-station notice it lists (edocs.go says what of it
// is confirmed).
func (Notices) Known() []fetch.Source {
	return []fetch.Source{{URL: EDOCSFeedURL, Kind: fetch.LISTING, Dest: NoticesFolder + "/" + ListingFile,
		Listing: &fetch.Listing{Read: readEDOCSFeed, PageKind: fetch.TEXT}}}
}

// noticeSource is the source id and official address of a notice file found in the folder:
// its EDOCS text attachment when the file is named <report>_<document>.txt, as ingest --fetch
// names it, or <document>.txt (DOC-nnnnnnA1.txt, DA-yy-nnnnA1.txt); else the Space Bureau's page, with the file's name as the id.
func noticeSource(name string) (id, address string) {
	doc := ""
	if m := noticeName.FindStringSubmatch(name); m != nil {
		doc = m[2]
	} else if m := edocsName.FindStringSubmatch(name); m != nil { // a text put here under its EDOCS name
		doc = m[1]
	}
	if doc != "" {
		return "FCC:EDOCS:" + doc, "https://docs.fcc.gov/public/attachments/" + doc + ".txt"
	}
	return "FCC:EDOCS:" + strings.TrimSuffix(name, filepath.Ext(name)), "https://www.fcc.gov/space"
}

// Plan implements ingest.Adapter: one snapshot of every notice text in the folder.
func (Notices) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	paths, err := finder.Find(func(name string) bool { return strings.EqualFold(filepath.Ext(name), ".txt") })
	if err != nil {
		return nil, fmt.Errorf("fcc notices plan: %w", err)
	}
	if len(paths) == 0 {
		return nil, nil
	}
	var files []ingest.File
	for _, p := range paths {
		id, address := noticeSource(filepath.Base(p))
		files = append(files, ingest.File{Path: p, SourceID: id, Publisher: noticesPublisher, URL: address, Role: ingest.RoleData})
	}
	return []ingest.Plan{{Files: files}}, nil
}

// Build implements ingest.Adapter.
func (a Notices) Build(p ingest.Plan) (*ingest.Build, error) {
	c := a.Capability()
	b := &ingest.Build{Required: []string{"notice_type", "report_number", "notice_date", "file_number", "application_type"}}
	rows := ingest.NewRows(c)
	var headers, empty, read []string
	var bad kit.Problems
	types := map[string]string{} // application type code → its printed description
	latest := ""
	reports := map[string]string{}
	for i := range p.Files {
		f := &p.Files[i]
		name := filepath.Base(f.Path)
		wb, err := grid.Open(f.Path)
		if err != nil {
			return nil, fmt.Errorf("fcc notices: %w", err)
		}
		sh := wb.Sheet(grid.NoticeSheetName)
		if sh == nil {
			headers = append(headers, fmt.Sprintf("%s is not the text of a public notice (read as %s)", name, wb.Format))
			continue
		}
		src := f.Source()
		src.HeaderRows = map[string]int{sh.Name: 0} // entries are positional: no header row
		n, err := ParseNotice(sh)
		if err != nil {
			headers = append(headers, fmt.Sprintf("%s: %v", name, err))
			src.Title = "FCC public notice (unread: " + err.Error() + ")"
			b.Sources = append(b.Sources, src)
			continue
		}
		src.Title = fmt.Sprintf("FCC public notice, Report No. %s (%s)", n.ReportNumber, strings.ReplaceAll(n.Type, "_", " "))
		src.Release = n.Date
		b.Sources = append(b.Sources, src)
		if other, dup := reports[n.ReportNumber]; dup {
			headers = append(headers, fmt.Sprintf("%s and %s are both Report No. %s", other, name, n.ReportNumber))
			continue
		}
		reports[n.ReportNumber] = name
		for _, pr := range n.Problems {
			bad.Add("%s: %s", name, pr)
		}
		if len(n.Entries) == 0 {
			empty = append(empty, fmt.Sprintf("%s (Report No. %s) lists no entry after its heading: cut short?", name, n.ReportNumber))
		}
		if n.Date > latest {
			latest = n.Date
		}
		for _, e := range n.Entries {
			row := rows.Add(ingest.Lineage{SourceID: f.SourceID, File: name, Sheet: sh.Name, Row: e.Row, SHA256: f.SHA256})
			row.Set("notice_type", n.Type).
				Set("report_number", n.ReportNumber).
				Set("notice_date", n.Date).
				Set("da_number", nullIf(n.DANumber)).
				Set("application_type", strings.Split(e.FileNumber, "-")[1]).
				Set("action", nullIf(e.Action)).
				Set("effective_date", nullIf(e.EffectiveDate)).
				Set("date_filed", nullIf(e.DateFiled)).
				Set("nature_of_service", nullIf(e.NatureOfService)).
				Key(n.ReportNumber + ":" + e.FileNumber + ":" + e.Action)
			fields := []struct {
				field, v string
			}{{"file_number", e.FileNumber}, {"entry_mark", e.Mark}, {"call_sign", e.CallSign}, {"applicant", e.Applicant}}
			for col, fv := range fields {
				if e.Cells {
					row.SetCell(fv.field, col+1, fv.v)
				} else {
					row.Set(fv.field, fv.v)
				}
			}
			code := strings.Split(e.FileNumber, "-")[1]
			if _, ok := types[code]; !ok || types[code] == "" {
				types[code] = e.TypeDescription
			}
		}
		read = append(read, fmt.Sprintf("%s %s %s: %d entries", n.ReportNumber, n.Date, n.Type, len(n.Entries)))
	}
	asOf := noDataAsOf
	if latest != "" {
		asOf = latest
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("fcc notices: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()

	book := snapshots.Codebook{Name: "application_type", Description: "application type codes of the entries' file numbers, each with the type as the notices print it (where they do)"}
	var codes []string
	for code := range types {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		cd := snapshots.Code{Code: code, Description: types[code], InAgencyTable: types[code] != ""}
		if types[code] == "" {
			cd.Note = "no notice read prints this type"
		}
		book.Codes = append(book.Codes, cd)
	}
	b.Codebooks = ingest.CountCodes(c, []snapshots.Codebook{book}, facts)
	sort.Strings(read)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, headers, fmt.Sprintf("%d notices with report number, release date and type", len(reports))),
		bad.Gate(kit.GateCells, strings.Join(read, "; ")),
		kit.Failures(kit.GateComplete, empty, "every notice lists its entries"))
	return b, nil
}

func nullIf(s string) any {
	if s == "" {
		return nil
	}
	return s
}

package fcc

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// NoticesFolder is the raw directory's folder of the weekly satellite public notices, as the
// text attachments the FCC publishes on EDOCS (DOC-nnnnnnA1.txt). The truncated excerpts in
// space/fcc_public_notices/ are layout samples and are never read from there.
const NoticesFolder = "space/fcc_sat_notices"

const noticesPublisher = "Federal Communications Commission, Space Bureau (weekly satellite public notices, EDOCS)"

// NoticeDocument is one notice's text on EDOCS.
type NoticeDocument struct {
	Report string // SAT-01603
	Date   string // release date
	DocID  string // EDOCS document, DOC-379485A1
}

// URL is the official address of the notice's text.
func (d NoticeDocument) URL() string {
	return "https://docs.fcc.gov/public/attachments/" + d.DocID + ".txt"
}

// NoticeDocuments are the notices whose text addresses are known: ingest --fetch downloads
// them. A weekly notice gets its EDOCS number when it is released; add it here, or put its
// text attachment into NoticesFolder by hand.
var NoticeDocuments = []NoticeDocument{
	{Report: "SAT-01603", Date: "2022-01-21", DocID: "DOC-379485A1"},
}

// Notices ingests space.satellite_notices from the notices' text.
type Notices struct{}

// Capability implements ingest.Adapter.
func (Notices) Capability() *capability.Capability { return capability.SpaceSatelliteNotices }

// Version implements ingest.Adapter.
func (Notices) Version() string { return "fcc-notices/1" }

// Folders implements ingest.Adapter.
func (Notices) Folders() []string { return []string{NoticesFolder} }

// Known implements ingest.Adapter.
func (Notices) Known() []fetch.Source {
	var out []fetch.Source
	for _, d := range NoticeDocuments {
		out = append(out, fetch.Source{URL: d.URL(), Kind: fetch.TEXT, Dest: NoticesFolder + "/" + d.DocID + ".txt"})
	}
	return out
}

// noticeURL is the official address of a notice file found in the folder: its EDOCS address
// when the file is named after its document.
func noticeURL(name string) string {
	id := strings.TrimSuffix(name, filepath.Ext(name))
	for _, d := range NoticeDocuments {
		if d.DocID == id {
			return d.URL()
		}
	}
	if strings.HasPrefix(id, "DOC-") {
		return NoticeDocument{DocID: id}.URL()
	}
	return "https://www.fcc.gov/space"
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
		name := filepath.Base(p)
		files = append(files, ingest.File{Path: p, SourceID: "FCC:EDOCS:" + strings.TrimSuffix(name, filepath.Ext(name)), Publisher: noticesPublisher, URL: noticeURL(name), Role: ingest.RoleData})
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

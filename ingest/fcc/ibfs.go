// Package fcc holds the adapters of the Federal Communications Commission's files: the
// International Bureau Filing System database export (the space-station licensing docket)
// and the weekly satellite public notices.
package fcc

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// IBFSFolder is the raw directory's folder of the IBFS export's tables, as extracted from
// IBFS.zip (main.dat, address.dat).
const IBFSFolder = "space/fcc_ibfs"

// IBFSURL is the official address of the FCC's IBFS database export.
const IBFSURL = "ftp://ftp.fcc.gov/pub/Bureaus/International/databases/IBFS.zip"

const (
	ibfsPublisher = "Federal Communications Commission, Space Bureau (International Bureau Filing System database export)"
	ibfsMain      = "main.dat"
	ibfsAddress   = "address.dat"
	noDataAsOf    = "1900-01-01" // dates a build that read nothing; its gates reject it
)

// IBFSColumn is a column of a table of the export as ibfs.txt, the schema the FCC publishes
// beside IBFS.zip, declares it: its name and its Sybase type.
type IBFSColumn struct{ Name, Type string }

// MainLayout and AddressLayout are tables MAIN (the filing docket) and ADDRESS of ibfs.txt
// (schema of 20 November 1998, Sybase DDL "Model_7"), every column in the schema's order: a
// record's n-th field is the n-th column. The export has no header row. The live dump's MAIN
// records carry about 71 fields, the 18 or so beyond the schema's 53 at the end; they are not
// read (a record with fewer than the schema's fields is a layout failure). TestLayoutIsTheSchemas
// compares these lists with ibfs.txt column by column.
var (
	MainLayout = []IBFSColumn{
		{"filing_key", "int"}, {"filing_state", "tinyint"}, {"callsign", "char(10)"}, {"file_number", "char(19)"},
		{"subsystem_code", "char(3)"}, {"status_code", "char(5)"}, {"status_date", "datetime"}, {"last_action", "char(3)"},
		{"last_action_date", "datetime"}, {"mts_number", "int"}, {"date_filed", "datetime"}, {"mellon_date", "datetime"},
		{"date_grant", "datetime"}, {"date_deny", "datetime"}, {"date_dismiss", "datetime"}, {"date_surrender", "datetime"},
		{"date_begin", "datetime"}, {"date_expire", "datetime"}, {"date_last_update", "datetime"}, {"aff_pub_notice_sw", "char(1)"},
		{"aff_pub_notice_date", "datetime"}, {"act_pub_notice_sw", "char(1)"}, {"act_pub_notice_date", "datetime"},
		{"submission_id", "char(12)"}, {"fee_control_number", "varchar(20)"}, {"app_type_code", "char(3)"},
		{"filing_other_text", "varchar(40)"}, {"keyword1", "char(6)"}, {"keyword2", "char(6)"}, {"tower_cleared_sw", "char(1)"},
		{"date_blocked", "datetime"}, {"blocked_reason_code", "char(4)"}, {"blocked_reason", "text"},
		{"type_applicant_code", "char(3)"}, {"applicant_other_text", "varchar(40)"}, {"class_of_station_code", "char(3)"},
		{"class_other_text", "varchar(40)"}, {"signer_name", "varchar(50)"}, {"signer_title", "varchar(50)"},
		{"date_signed", "datetime"}, {"description", "text"}, {"address_key", "int"}, {"address_attention", "varchar(80)"},
		{"address_phone_num", "char(25)"}, {"address_fax_num", "char(25)"}, {"address_e_mail", "varchar(40)"},
		{"contact_key", "int"}, {"contact_attention", "varchar(80)"}, {"contact_relationship", "varchar(20)"},
		{"contact_phone_num", "char(25)"}, {"contact_fax_num", "char(25)"}, {"contact_e_mail", "varchar(40)"},
		{"other_purpose_text", "varchar(40)"},
	}
	AddressLayout = []IBFSColumn{
		{"address_key", "int"}, {"address_id", "char(12)"}, {"address_name", "varchar(80)"}, {"dba_name", "varchar(80)"},
		{"street1", "varchar(80)"}, {"street2", "varchar(80)"}, {"city", "varchar(40)"}, {"state_code", "char(2)"},
		{"zipcode", "char(10)"}, {"country_code", "char(3)"},
	}
)

// position is the 0-based field of column name in layout; it panics on a name the layout
// lacks (a typo caught at start-up).
func position(layout []IBFSColumn, name string) int {
	for i, c := range layout {
		if c.Name == name {
			return i
		}
	}
	panic("fcc: no column " + name + " in the IBFS layout")
}

// The fields read, by their columns' names in ibfs.txt.
var (
	mainFields = len(MainLayout)

	mFilingKey      = position(MainLayout, "filing_key")
	mCallSign       = position(MainLayout, "callsign")
	mFileNumber     = position(MainLayout, "file_number")
	mSubsystem      = position(MainLayout, "subsystem_code")
	mStatusCode     = position(MainLayout, "status_code")
	mStatusDate     = position(MainLayout, "status_date")
	mLastAction     = position(MainLayout, "last_action")
	mLastActionDate = position(MainLayout, "last_action_date")
	mDateFiled      = position(MainLayout, "date_filed")
	mDateGrant      = position(MainLayout, "date_grant")
	mDateDeny       = position(MainLayout, "date_deny")
	mDateDismiss    = position(MainLayout, "date_dismiss")
	mDateSurrender  = position(MainLayout, "date_surrender")
	mDateExpire     = position(MainLayout, "date_expire")
	mDateLastUpdate = position(MainLayout, "date_last_update")
	mAppType        = position(MainLayout, "app_type_code")
	mDescription    = position(MainLayout, "description")
	mAddressKey     = position(MainLayout, "address_key")

	addressFields = len(AddressLayout)
	aAddressKey   = position(AddressLayout, "address_key")
	aAddressName  = position(AddressLayout, "address_name")
)

// Filings ingests space.satellite_filings from the IBFS export's MAIN and ADDRESS tables.
type Filings struct{}

// Capability implements ingest.Adapter.
func (Filings) Capability() *capability.Capability { return capability.SpaceSatelliteFilings }

// Version implements ingest.Adapter.
func (Filings) Version() string { return "fcc-ibfs/1" }

// Folders implements ingest.Adapter.
func (Filings) Folders() []string { return []string{IBFSFolder} }

// Known implements ingest.Adapter: the two tables, extracted from the FCC's zip archive.
func (Filings) Known() []fetch.Source {
	return []fetch.Source{
		{URL: IBFSURL, Kind: fetch.ANSI, ZipMember: ibfsMain, Dest: IBFSFolder + "/" + ibfsMain},
		{URL: IBFSURL, Kind: fetch.ANSI, ZipMember: ibfsAddress, Dest: IBFSFolder + "/" + ibfsAddress},
	}
}

// Plan implements ingest.Adapter: one snapshot of main.dat with the address.dat beside it.
func (Filings) Plan(finder *ingest.Finder) ([]ingest.Plan, error) {
	mains, err := finder.Named(ibfsMain)
	if err != nil {
		return nil, fmt.Errorf("fcc ibfs plan: %w", err)
	}
	var plans []ingest.Plan
	for _, m := range mains {
		files := []ingest.File{{Path: m, SourceID: "FCC:IBFS:MAIN", Publisher: ibfsPublisher, URL: IBFSURL, Role: ingest.RoleData}}
		addr := filepath.Join(filepath.Dir(m), ibfsAddress)
		if as, err := finder.Named(ibfsAddress); err == nil {
			for _, a := range as {
				if a == addr {
					files = append(files, ingest.File{Path: a, SourceID: "FCC:IBFS:ADDRESS", Publisher: ibfsPublisher, URL: IBFSURL, Role: ingest.RoleReference})
				}
			}
		}
		plans = append(plans, ingest.Plan{Files: files})
	}
	return plans, nil
}

// exportedFileNumber is an IBFS file number as the export stores it: subsystem, application
// type, date filed (YYYYMMDD) and sequence, without the dashes the FCC displays.
var exportedFileNumber = regexp.MustCompile(`^([A-Z0-9]{3})-?([A-Z0-9]{3})-?(\d{8})-?(\d{5})$`)

// DisplayFileNumber writes an exported file number as the FCC displays it
// (SATLOA2025061800152 → SAT-LOA-20250618-00152); ok is false when it is not one.
func DisplayFileNumber(s string) (string, bool) {
	m := exportedFileNumber.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", false
	}
	return m[1] + "-" + m[2] + "-" + m[3] + "-" + m[4], true
}

// addressBook is the ADDRESS table: each address key's name and record.
type addressBook struct {
	names map[int64]string
	rows  int
}

func readAddresses(f *ingest.File, bad *kit.Problems, layout *[]string) (*addressBook, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("fcc ibfs: %w", err)
	}
	book := &addressBook{names: map[int64]string{}}
	sh := wb.Sheet(grid.DelimitedSheetName)
	if sh == nil {
		*layout = append(*layout, fmt.Sprintf("%s is not an export of |^|-ended records (read as %s)", ibfsAddress, wb.Format))
		return book, nil
	}
	short := 0
	for r := 1; r <= sh.NumRows(); r++ {
		row := sh.Row(r)
		if len(row) == 0 {
			continue
		}
		book.rows++
		if len(row) < addressFields {
			short++
			continue
		}
		k, err := kit.Int(sh.Cell(r, aAddressKey+1))
		if err != nil || k == nil {
			bad.Add("%s record %d address_key: %v", ibfsAddress, r, orNull(err))
			continue
		}
		if name, ok := kit.Text(sh.Cell(r, aAddressName+1)).(string); ok {
			book.names[k.(int64)] = name
		}
	}
	if short > 0 {
		*layout = append(*layout, fmt.Sprintf("%s: %d records have fewer than the %d fields of the ADDRESS layout", ibfsAddress, short, addressFields))
	}
	return book, nil
}

func orNull(err error) any {
	if err == nil {
		return "blank"
	}
	return err
}

// Build implements ingest.Adapter.
func (a Filings) Build(p ingest.Plan) (*ingest.Build, error) {
	c := a.Capability()
	b := &ingest.Build{
		Ranges:   map[string]snapshots.Range{"filing_year": {Min: 1960, Max: 2100}, "filing_key": {Min: -1e12, Max: 1e12}},
		Required: []string{"file_number", "file_number_exported", "application_type"},
	}
	data, rest := ingest.SplitRoles(p.Files)
	if data == nil {
		return nil, fmt.Errorf("fcc ibfs: the plan has no %s", ibfsMain)
	}
	var bad kit.Problems
	var layout []string
	book := &addressBook{names: map[int64]string{}}
	var addrFile *ingest.File
	for i := range rest {
		if filepath.Base(rest[i].Path) == ibfsAddress {
			addrFile = &rest[i]
		}
	}
	if addrFile == nil {
		layout = append(layout, ibfsAddress+" is not beside "+ibfsMain+": the applicants cannot be named")
	} else {
		var err error
		if book, err = readAddresses(addrFile, &bad, &layout); err != nil {
			return nil, err
		}
	}

	wb, err := grid.Open(data.Path)
	if err != nil {
		return nil, fmt.Errorf("fcc ibfs: %w", err)
	}
	sh := wb.Sheet(grid.DelimitedSheetName)
	if sh == nil {
		layout = append(layout, fmt.Sprintf("%s is not an export of |^|-ended records (read as %s)", ibfsMain, wb.Format))
		sh = &grid.Sheet{}
	}
	name := filepath.Base(data.Path)
	rows := ingest.NewRows(c)
	subsystems := map[string]int{}
	var unnamed []string
	latest, records := "", 0
	for r := 1; r <= sh.NumRows(); r++ {
		if len(sh.Row(r)) == 0 {
			continue
		}
		records++
		cell := func(pos int) grid.Cell { return sh.Cell(r, pos+1) }
		exported, _ := kit.Text(cell(mFileNumber)).(string)
		sub, _ := kit.Text(cell(mSubsystem)).(string)
		display, ok := DisplayFileNumber(exported)
		if n := len(sh.Row(r)); n < mainFields || !ok || !strings.HasPrefix(display, sub+"-") {
			layout = append(layout, fmt.Sprintf("%s record %d: %d fields, file number %q, subsystem %q (the MAIN layout has %d fields, the file number fourth, the subsystem fifth)", name, r, n, exported, sub, mainFields))
			continue
		}
		upd, err := kit.Date(cell(mDateLastUpdate))
		if err == nil && upd != nil && upd.(string) > latest {
			latest = upd.(string)
		}
		subsystems[sub]++
		if sub != "SAT" {
			continue
		}
		row := rows.Add(ingest.Lineage{SourceID: data.SourceID, File: name, Sheet: sh.Name, Row: r, SHA256: data.SHA256})
		row.Set("file_number", display).
			SetCell("file_number_exported", mFileNumber+1, exported).
			Key(exported)
		for _, t := range []struct {
			field string
			pos   int
		}{
			{"call_sign", mCallSign}, {"application_type", mAppType}, {"status_code", mStatusCode},
			{"last_action", mLastAction}, {"description", mDescription},
		} {
			row.SetCell(t.field, t.pos+1, kit.Text(cell(t.pos)))
		}
		for _, t := range []struct {
			field string
			pos   int
		}{{"filing_key", mFilingKey}, {"address_key", mAddressKey}} {
			v, err := kit.Int(cell(t.pos))
			if err != nil {
				bad.Add("%s record %d %s: %v", name, r, t.field, err)
			}
			row.SetCell(t.field, t.pos+1, v)
		}
		dates := map[string]string{}
		for _, t := range []struct {
			field string
			pos   int
		}{
			{"status_date", mStatusDate}, {"last_action_date", mLastActionDate}, {"filing_date", mDateFiled},
			{"grant_date", mDateGrant}, {"denial_date", mDateDeny}, {"dismissal_date", mDateDismiss},
			{"surrender_date", mDateSurrender}, {"expiration_date", mDateExpire}, {"last_update_date", mDateLastUpdate},
		} {
			v, err := kit.Date(cell(t.pos))
			if err != nil {
				bad.Add("%s record %d %s: %v", name, r, t.field, err)
			}
			row.SetCell(t.field, t.pos+1, v)
			if s, ok := v.(string); ok {
				dates[t.field] = s
			}
		}
		if f, ok := dates["filing_date"]; ok {
			var y int
			fmt.Sscanf(f[:4], "%d", &y)
			row.Set("filing_year", y)
		}
		row.Set("disposition", disposition(dates))
		if k, ok := row.Get("address_key").(int64); ok {
			if n, ok := book.names[k]; ok {
				row.Set("applicant", n)
			} else if addrFile != nil {
				unnamed = append(unnamed, fmt.Sprintf("%s (address_key %d)", display, k))
			}
		}
	}
	asOf := noDataAsOf
	if latest != "" {
		asOf = latest
	}
	facts, err := rows.Finish(asOf)
	if err != nil {
		return nil, fmt.Errorf("fcc ibfs: %w", err)
	}
	b.AsOf, b.Rows, b.Cells = asOf, facts, rows.Cells()

	src := data.Source()
	src.Title = "FCC International Bureau Filing System database export, table MAIN (main.dat of IBFS.zip)"
	src.HeaderRows = map[string]int{grid.DelimitedSheetName: 0} // positional: no header row
	b.Sources = append(b.Sources, src)
	if addrFile != nil {
		as := addrFile.Source()
		as.Title = "FCC International Bureau Filing System database export, table ADDRESS (address.dat of IBFS.zip)"
		b.Sources = append(b.Sources, as)
	}
	b.Codebooks = ingest.CountCodes(c, []snapshots.Codebook{
		{Name: "application_type", Description: "application type codes as the export's filings use them (the second part of the file number); the export's own code table is not among the files read"},
		{Name: "status_code", Description: "processing status codes as the export's filings use them; the export's own code table is not among the files read"},
		{Name: "last_action", Description: "last action codes as the export's filings use them; the export's own code table is not among the files read"},
	}, facts)

	var subs []string
	for s, n := range subsystems {
		subs = append(subs, fmt.Sprintf("%s %d", s, n))
	}
	sort.Strings(subs)
	b.Checks = append(b.Checks,
		kit.Failures(kit.GateHeaders, layout, fmt.Sprintf("%d records of %s in the MAIN layout (%d fields or more, file number and subsystem where ibfs.txt puts them); %d address records", records, name, mainFields, book.rows)),
		bad.Gate(kit.GateCells, fmt.Sprintf("%d SAT filings read (of %d records: %s)", len(facts), records, strings.Join(subs, ", "))),
		kit.Failures("applicants_named", unnamed, fmt.Sprintf("every SAT filing's address record is in %s", ibfsAddress)))
	return b, nil
}

// disposition is the outcome with the latest outcome date, pending when none is set.
func disposition(dates map[string]string) string {
	out, at := "pending", ""
	for _, o := range []struct{ field, name string }{
		{"grant_date", "granted"}, {"denial_date", "denied"}, {"dismissal_date", "dismissed"}, {"surrender_date", "surrendered"},
	} {
		if d, ok := dates[o.field]; ok && d >= at {
			out, at = o.name, d
		}
	}
	return out
}

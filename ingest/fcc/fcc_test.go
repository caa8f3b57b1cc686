package fcc_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fcc"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// golden is testdata/golden/fixtures/fcc_space.json, computed from the fixtures and the layout
// samples by compute_fcc_space.py, without this code.
type golden struct {
	Filings struct {
		AsOf               string         `json:"as_of"`
		SATFilings         int            `json:"sat_filings"`
		GrantedCount       int            `json:"granted_count"`
		DistinctApplicants int            `json:"distinct_applicants"`
		ByDisposition      map[string]int `json:"by_disposition"`
		ByStatusCode       map[string]int `json:"by_status_code"`
		ByApplicationType  map[string]int `json:"by_application_type"`
		ByApplicant        map[string]int `json:"by_applicant"`
		Filed2025          int            `json:"filed_2025"`
		PendingFileNumbers []string       `json:"pending_file_numbers"`
		BySubsystem        map[string]int `json:"by_subsystem"`
		Records            int            `json:"records"`
	} `json:"filings"`
	Notices struct {
		AsOf                string            `json:"as_of"`
		Reports             map[string]string `json:"reports"`
		Entries             int               `json:"entries"`
		DistinctFileNumbers int               `json:"distinct_file_numbers"`
		DistinctApplicants  int               `json:"distinct_applicants"`
		ByType              map[string]int    `json:"by_type"`
		ByAction            map[string]int    `json:"by_action"`
		ByReport            map[string]int    `json:"by_report"`
		ByApplicant         map[string]int    `json:"by_applicant"`
		FirstEntry          struct {
			FileNumber string `json:"file_number"`
			CallSign   string `json:"call_sign"`
			Applicant  string `json:"applicant"`
			Row        int    `json:"row"`
		} `json:"first_entry"`
	} `json:"notices"`
	Samples map[string]struct {
		Report  string     `json:"report"`
		Date    string     `json:"date"`
		Type    string     `json:"type"`
		DA      string     `json:"da"`
		Entries [][]string `json:"entries"`
	} `json:"notice_samples"`
}

func readGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "fixtures", "fcc_space.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func fixtures(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures")
}

// served ingests the fixtures of adapter a into a new data directory and returns the
// service over it.
func served(t *testing.T, a ingest.Adapter) *service.Service {
	t.Helper()
	data := t.TempDir()
	outcomes, err := ingest.Run(fixtures(t), &snapshots.Store{Dir: data}, []ingest.Adapter{a}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted {
		t.Fatalf("outcomes %+v", outcomes)
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

type answer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Totals map[string]float64 `json:"totals"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any     `json:"group"`
		Metrics map[string]float64 `json:"metrics"`
	} `json:"rows"`
	Records []map[string]any `json:"records"`
}

func query(t *testing.T, svc *service.Service, c *capability.Capability, body string) answer {
	t.Helper()
	out, e := svc.QueryJSON(context.Background(), c.Path, []byte(body))
	if e != nil {
		t.Fatalf("%s: %s %s", body, e.Code, e.Message)
	}
	var a answer
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// byGroup is a grouped answer's metric per value of its one dimension.
func byGroup(a answer, dim, metric string) map[string]int {
	out := map[string]int{}
	for _, r := range a.Rows {
		out[toString(r.Group[dim])] = int(r.Metrics[metric])
	}
	return out
}

func toString(v any) string {
	if v == nil {
		return "None"
	}
	s, _ := v.(string)
	return s
}

// TestFilingsAnswers checks the docket's figures, served from the fixtures, against the
// golden values.
func TestFilingsAnswers(t *testing.T) {
	g := readGolden(t).Filings
	svc := served(t, fcc.Filings{})
	c := capability.SpaceSatelliteFilings
	all := query(t, svc, c, `{}`)
	if all.AsOf != g.AsOf {
		t.Errorf("as_of %s, want %s (the latest last-update date of any record, earth stations included)", all.AsOf, g.AsOf)
	}
	for metric, want := range map[string]int{"filing_count": g.SATFilings, "granted_count": g.GrantedCount, "distinct_applicant_count": g.DistinctApplicants} {
		if got := int(all.Summary.Totals[metric]); got != want {
			t.Errorf("%s %d, want %d", metric, got, want)
		}
	}
	for _, tc := range []struct {
		dim  string
		want map[string]int
	}{
		{"disposition", g.ByDisposition},
		{"status_code", g.ByStatusCode},
		{"application_type", g.ByApplicationType},
		{"applicant", g.ByApplicant},
	} {
		a := query(t, svc, c, `{"group_by":["`+tc.dim+`"]}`)
		if got := byGroup(a, tc.dim, "filing_count"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("by %s: %v, want %v", tc.dim, got, tc.want)
		}
	}
	if got := int(query(t, svc, c, `{"filing_year":2025}`).Summary.Totals["filing_count"]); got != g.Filed2025 {
		t.Errorf("filed in 2025: %d, want %d", got, g.Filed2025)
	}
	pending := query(t, svc, c, `{"disposition":"pending","include_records":true}`)
	var fns []string
	for _, r := range pending.Records {
		fns = append(fns, r["file_number"].(string))
	}
	sort.Strings(fns)
	if !reflect.DeepEqual(fns, g.PendingFileNumbers) {
		t.Errorf("pending %v, want %v", fns, g.PendingFileNumbers)
	}
	// The file number is found in its displayed form.
	one := query(t, svc, c, `{"file_number":"SAT-LOA-20250618-00152","include_records":true}`)
	if len(one.Records) != 1 || one.Records[0]["file_number_exported"] != "SATLOA2025061800152" || one.Records[0]["applicant"] != "Aurora Geo Holdings, Inc." {
		t.Errorf("records %v", one.Records)
	}
}

// TestNoticesAnswers checks the notices' figures, served from the fixtures, against the
// golden values.
func TestNoticesAnswers(t *testing.T) {
	g := readGolden(t).Notices
	svc := served(t, fcc.Notices{})
	c := capability.SpaceSatelliteNotices
	all := query(t, svc, c, `{"group_by":["notice_type"]}`)
	if all.AsOf != g.AsOf {
		t.Errorf("as_of %s, want %s", all.AsOf, g.AsOf)
	}
	for metric, want := range map[string]int{"entry_count": g.Entries, "distinct_file_count": g.DistinctFileNumbers, "distinct_applicant_count": g.DistinctApplicants} {
		if got := int(all.Summary.Totals[metric]); got != want {
			t.Errorf("%s %d, want %d", metric, got, want)
		}
	}
	if got := byGroup(all, "notice_type", "entry_count"); !reflect.DeepEqual(got, g.ByType) {
		t.Errorf("by type %v, want %v", got, g.ByType)
	}
	for _, tc := range []struct {
		dim  string
		want map[string]int
	}{{"action", g.ByAction}, {"report_number", g.ByReport}, {"applicant", g.ByApplicant}} {
		a := query(t, svc, c, `{"group_by":["`+tc.dim+`"]}`)
		if got := byGroup(a, tc.dim, "entry_count"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("by %s: %v, want %v", tc.dim, got, tc.want)
		}
	}
	// The contract's series: the notices released from 2025-06-18 on.
	since := 0
	for report, date := range g.Reports {
		if date >= capability.SatelliteNoticesFrom {
			since += g.ByReport[report]
		}
	}
	if got := int(query(t, svc, c, `{"notice_date_from":"`+capability.SatelliteNoticesFrom+`"}`).Summary.Totals["entry_count"]); got != since || since == g.Entries {
		t.Errorf("entries since %s: %d, want %d (of %d)", capability.SatelliteNoticesFrom, got, since, g.Entries)
	}
	recs := query(t, svc, c, `{"report_number":"SAT-01901","include_records":true,"limit":1}`).Records
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	r := recs[0]
	fe := g.FirstEntry
	if r["file_number"] != fe.FileNumber || r["call_sign"] != fe.CallSign || r["applicant"] != fe.Applicant || int(r["source_row_number"].(float64)) != fe.Row {
		t.Errorf("first entry %v, want %+v", r, fe)
	}
	for report, date := range g.Reports {
		a := query(t, svc, c, `{"report_number":"`+report+`","include_records":true,"limit":1}`)
		if len(a.Records) != 1 || a.Records[0]["notice_date"] != date {
			t.Errorf("report %s: %v, want the release date %s", report, a.Records, date)
		}
	}
}

// TestNoticeLayoutSamples reads the three truncated excerpts of real notices (layout
// samples, never served) and checks every entry they show against the golden values.
func TestNoticeLayoutSamples(t *testing.T) {
	raw := testenv.Raw(t)
	for name, want := range readGolden(t).Samples {
		t.Run(name, func(t *testing.T) {
			wb, err := grid.Open(filepath.Join(raw, "space", "fcc_public_notices", name))
			if err != nil {
				t.Fatal(err)
			}
			n, err := fcc.ParseNotice(wb.Sheet(grid.NoticeSheetName))
			if err != nil {
				t.Fatal(err)
			}
			if n.ReportNumber != want.Report || n.Date != want.Date || n.Type != want.Type || n.DANumber != want.DA || len(n.Problems) > 0 {
				t.Errorf("notice %s %s %s DA %q problems %v, want %s %s %s DA %q", n.ReportNumber, n.Date, n.Type, n.DANumber, n.Problems, want.Report, want.Date, want.Type, want.DA)
			}
			var got [][]string
			for _, e := range n.Entries {
				got = append(got, []string{e.FileNumber, e.CallSign, e.Applicant, e.Action, e.EffectiveDate, e.DateFiled})
			}
			if !reflect.DeepEqual(got, want.Entries) {
				t.Errorf("entries\n%q\nwant\n%q", got, want.Entries)
			}
		})
	}
}

// TestSpaceFilesNeverPlanned: the earth-station lists and the notice excerpts in space/ are
// planned by no adapter, so neither capability ever serves them.
func TestSpaceFilesNeverPlanned(t *testing.T) {
	raw := testenv.Raw(t)
	space := filepath.Join(raw, "space")
	var present []string
	_ = filepath.WalkDir(space, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".tsv") {
			present = append(present, p)
		}
		return nil
	})
	if len(present) == 0 {
		testenv.SkipRaw(t, "no files under space/ in CITEQ_RAW")
	}
	for _, a := range adapters.All() {
		plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range plans {
			for _, f := range p.Files {
				if strings.HasPrefix(f.Path, space+string(filepath.Separator)) {
					t.Errorf("%s plans %s", a.Capability().ID, f.Path)
				}
			}
		}
	}
	for _, a := range []ingest.Adapter{fcc.Filings{}, fcc.Notices{}} {
		for _, folder := range a.Folders() {
			for _, p := range present {
				if strings.HasPrefix(p, filepath.Join(raw, filepath.FromSlash(folder))+string(filepath.Separator)) {
					t.Errorf("%s reads folder %s, which holds %s", a.Capability().ID, folder, p)
				}
			}
		}
	}
}

// build plans and builds adapter a over root and returns the gates that failed.
func build(t *testing.T, a ingest.Adapter, root string) (*ingest.Build, map[string]string) {
	t.Helper()
	plans, err := a.Plan(ingest.NewFinder(root, a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatalf("plans %v, err %v", plans, err)
	}
	b, err := a.Build(plans[0])
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, g := range b.Checks {
		if !g.Passed {
			failed[g.Name] = g.Detail
		}
	}
	return b, failed
}

// copyFixtures copies the fixture folder of a into a new raw directory and applies edit to
// the file name there.
func copyFixtures(t *testing.T, folder, name string, edit func(string) string) string {
	t.Helper()
	raw := t.TempDir()
	src := filepath.Join(fixtures(t), filepath.FromSlash(folder))
	dst := filepath.Join(raw, filepath.FromSlash(folder))
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if e.Name() == name {
			s = edit(s)
			if s == "" {
				continue // removed
			}
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// TestFilingsGates damages the export in the ways its layout can break and checks each is
// refused for its own gate: the export has no header row, so the layout gate reads the
// position of the file number and subsystem.
func TestFilingsGates(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		edit       func(string) string
		gate       string
	}{
		{"a field inserted before the file number", "main.dat", func(s string) string {
			return strings.Replace(s, "|S3251|SATLOA2021030400021|", "|S3251||SATLOA2021030400021|", 1)
		}, "headers_present"},
		{"a record cut short", "main.dat", func(s string) string {
			i := strings.Index(s, "SATMOD2023061500044")
			j := strings.Index(s[i:], "|^|")
			return s[:i+60] + s[i+j:]
		}, "headers_present"},
		{"the address table missing", "address.dat", func(string) string { return "" }, "headers_present"},
		{"an applicant's address missing", "address.dat", func(s string) string {
			return strings.Replace(s, "-2005|", "-2099|", 1)
		}, "applicants_named"},
		{"a date that is no date", "main.dat", func(s string) string {
			return strings.Replace(s, "Jun 18 2025  4:50:24:023PM", "Jun 31 2025  4:50:24:023PM", 1)
		}, "cells_parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := copyFixtures(t, fcc.IBFSFolder, tc.file, tc.edit)
			_, failed := build(t, fcc.Filings{}, raw)
			if _, ok := failed[tc.gate]; !ok || len(failed) != 1 {
				t.Errorf("failed gates %v, want %s alone", failed, tc.gate)
			}
		})
	}
	b, failed := build(t, fcc.Filings{}, fixtures(t))
	if len(failed) > 0 {
		t.Fatalf("the fixtures fail %v", failed)
	}
	// The codebooks hold the codes the filings use.
	for _, cb := range b.Codebooks {
		if len(cb.Codes) == 0 {
			t.Errorf("codebook %s is empty", cb.Name)
		}
	}
}

// TestNoticesGates damages a notice's heading and entries.
func TestNoticesGates(t *testing.T) {
	const name = "2025-06-25_SAT-01903.txt"
	for _, tc := range []struct {
		name string
		edit func(string) string
		gate string
	}{
		{"no report number", func(s string) string { return strings.Replace(s, "Report No. SAT-01903", "Report SAT-01903", 1) }, "headers_present"},
		{"no notice type", func(s string) string { return strings.Replace(s, "Actions Taken", "Items", 1) }, "headers_present"},
		{"the same report twice", func(s string) string { return strings.Replace(s, "SAT-01903", "SAT-01901", 1) }, "headers_present"},
		{"no entries", func(s string) string { return s[:strings.Index(s, "SAT-LOA-20240812-00120")] }, "sheets_complete"},
		{"an effective date that is no date", func(s string) string { return strings.Replace(s, "06/23/2025", "06/31/2025", 1) }, "cells_parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := copyFixtures(t, fcc.NoticesFolder, name, tc.edit)
			_, failed := build(t, fcc.Notices{}, raw)
			if _, ok := failed[tc.gate]; !ok || len(failed) != 1 {
				t.Errorf("failed gates %v, want %s alone", failed, tc.gate)
			}
		})
	}
	b, failed := build(t, fcc.Notices{}, fixtures(t))
	if len(failed) > 0 {
		t.Fatalf("the fixtures fail %v", failed)
	}
	// The application types carry the description the notices print.
	want := map[string]string{"LOA": "Launch and Operating Authority", "AMD": "Amendment", "STA": "Special Temporary Authority"}
	for _, cb := range b.Codebooks {
		for _, code := range cb.Codes {
			if d, ok := want[code.Code]; ok && code.Description != d {
				t.Errorf("%s described %q, want %q", code.Code, code.Description, d)
			}
		}
	}
}

func zipOf(t *testing.T, dir string, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		w, _ := zw.Create(n)
		w.Write(b)
	}
	zw.Close()
	return buf.Bytes()
}

// TestFetchFromMirror serves IBFS.zip (built from the fixtures) at its official path on a
// loopback mirror: ingest --fetch extracts both tables into the filings folder, and the
// filings build from what was downloaded with every gate passed. The notices' discovery is
// tested in edocs_test.go.
func TestFetchFromMirror(t *testing.T) {
	ibfsDir := filepath.Join(fixtures(t), filepath.FromSlash(fcc.IBFSFolder))
	archive := zipOf(t, ibfsDir, "main.dat", "address.dat")
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		if r.URL.Path == "/pub/Bureaus/International/databases/IBFS.zip" {
			w.Write(archive)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	raw := t.TempDir()
	a := fcc.Filings{}
	known := a.Known()
	if len(known) != 2 {
		t.Fatalf("%s knows %d addresses", a.Capability().ID, len(known))
	}
	for _, src := range known {
		if !strings.HasPrefix(src.URL, "ftp://ftp.fcc.gov/") {
			t.Errorf("%s is not an official FCC address", src.URL)
		}
		if _, err := fetch.Fetch(context.Background(), raw, src, fetch.Options{Mirror: srv.URL, Client: srv.Client()}); err != nil {
			t.Fatal(err)
		}
	}
	b, failed := build(t, a, raw)
	if len(failed) > 0 || len(b.Rows) == 0 {
		t.Errorf("%d rows, failed gates %v", len(b.Rows), failed)
	}
	if len(seen) != 2 {
		t.Errorf("requests %v", seen)
	}
}

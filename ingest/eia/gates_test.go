package eia_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// damage is a change made to a copy of the real May 2016 inventory.
type damage struct {
	name string
	// file is the copy's file name (its report month).
	file string
	// edit rewrites the rows of one sheet (nil: keep).
	edit func(sheet string, rows [][]string) [][]string
	// wantGates are gates that must fail.
	wantGates []string
}

func rebuild(t *testing.T, src, dst string, edit func(string, [][]string) [][]string) {
	testenv.RebuildWorkbook(t, src, dst, edit)
}

func retitle(month string) func(string, [][]string) [][]string {
	return testenv.Retitle("May 2016", month)
}

// TestGatesRejectDamagedFiles feeds damaged copies of the real workbook after the real one
// is promoted: each is recorded as rejected with its reasons, is never served, and the
// promoted snapshot keeps answering byte for byte as before.
func TestGatesRejectDamagedFiles(t *testing.T) {
	raw := testenv.Raw(t)
	real := filepath.Join(raw, "eia", "eia860m", "may_generator2016.xlsx")
	cases := []damage{
		{
			name: "truncated sheet", file: "june_generator2016.xlsx",
			edit: func(sheet string, rows [][]string) [][]string {
				rows = retitle("June 2016")(sheet, rows)
				if sheet == "Operating" {
					return rows[:2000] // cut short: no footnote, a tenth of the rows
				}
				return rows
			},
			wantGates: []string{"sheets_complete", "row_count_not_collapsed"},
		},
		{
			name: "renamed header column", file: "july_generator2016.xlsx",
			edit: func(sheet string, rows [][]string) [][]string {
				rows = retitle("July 2016")(sheet, rows)
				if sheet == "Planned" {
					for i, h := range rows[1] {
						if h == "Plant State" {
							rows[1][i] = "State"
						}
					}
				}
				return rows
			},
			wantGates: []string{"headers_present"},
		},
		{
			name: "text in a capacity cell", file: "august_generator2016.xlsx",
			edit: func(sheet string, rows [][]string) [][]string {
				rows = retitle("August 2016")(sheet, rows)
				if sheet == "Retired" {
					rows[10][7] = "n/a MW"
				}
				return rows
			},
			wantGates: []string{"cells_parse"},
		},
		{
			name: "title disagrees with file name", file: "september_generator2016.xlsx",
			edit:      retitle("October 2016"),
			wantGates: []string{"report_month_consistent"},
		},
	}

	data := testenv.CopyDir(t, testenv.Data(t))
	store := &snapshots.Store{Dir: data}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	query := `{"filters":{"lifecycle":"operating"},"group_by":["state"]}`
	before, e := svc.QueryJSON(context.Background(), "power/capacity", []byte(query))
	if e != nil {
		t.Fatal(e)
	}
	catBefore, _ := os.ReadFile(store.CatalogPath())

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rawDir := filepath.Join(dir, "eia", "eia860m")
			if err := os.MkdirAll(rawDir, 0o755); err != nil {
				t.Fatal(err)
			}
			rebuild(t, real, filepath.Join(rawDir, tc.file), tc.edit)
			withReferences(t, raw, dir)
			outcomes, err := ingest.Run(dir, store, []ingest.Adapter{eia.EIA860M}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if len(outcomes) != 1 || outcomes[0].Status != snapshots.Rejected {
				t.Fatalf("outcomes %+v", outcomes)
			}
			failed := map[string]bool{}
			for _, g := range outcomes[0].Manifest.Gates {
				if !g.Passed {
					failed[g.Name] = true
				}
			}
			for _, g := range tc.wantGates {
				if !failed[g] {
					t.Errorf("gate %s did not fail; reasons %v", g, outcomes[0].Reasons)
				}
				delete(failed, g)
			}
			if len(failed) > 0 {
				t.Errorf("other gates failed too: %v", outcomes[0].Reasons)
			}
			// Recorded as rejected, with reasons, and without a fact table to serve.
			m, err := snapshots.ReadManifest(outcomes[0].Manifest.Dir)
			if err != nil || m.Status != snapshots.Rejected || len(m.Reasons) == 0 {
				t.Fatalf("manifest %+v %v", m, err)
			}
			if _, err := os.Stat(m.FactsPath()); err == nil {
				t.Error("a rejected snapshot has a fact table")
			}
		})
	}
	catAfter, _ := os.ReadFile(store.CatalogPath())
	if string(catAfter) != string(catBefore) {
		t.Errorf("the catalog changed:\n%s\n%s", catBefore, catAfter)
	}
	if _, err := svc.Reload(); err != nil {
		t.Fatal(err)
	}
	after, e := svc.QueryJSON(context.Background(), "power/capacity", []byte(query))
	if e != nil || string(after) != string(before) {
		t.Errorf("the promoted snapshot answers differently after the rejections")
	}
	all, _ := store.AllManifests()
	rejected := 0
	for _, m := range all {
		if m.Status == snapshots.Rejected {
			rejected++
		}
	}
	if rejected != len(cases) {
		t.Errorf("%d rejected snapshots listed, want %d", rejected, len(cases))
	}
}

// TestSameAsOfFromOtherFilesRefused: a different file claiming an as_of already served is
// refused, so a pinned as_of never changes its answers.
func TestSameAsOfFromOtherFilesRefused(t *testing.T) {
	raw := testenv.Raw(t)
	data := testenv.CopyDir(t, testenv.Data(t))
	dir := t.TempDir()
	rawDir := filepath.Join(dir, "eia", "eia860m")
	os.MkdirAll(rawDir, 0o755)
	rebuild(t, filepath.Join(raw, "eia", "eia860m", "may_generator2016.xlsx"), filepath.Join(rawDir, "may_generator2016.xlsx"),
		func(_ string, rows [][]string) [][]string { return rows })
	withReferences(t, raw, dir)
	outcomes, err := ingest.Run(dir, &snapshots.Store{Dir: data}, []ingest.Adapter{eia.EIA860M}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if outcomes[0].Status != snapshots.Rejected || !strings.Contains(strings.Join(outcomes[0].Reasons, " "), "as_of_immutable") {
		t.Fatalf("outcome %+v", outcomes[0])
	}
}

// withReferences copies the code-table files the inventory adapter reads beside a test's
// raw directory.
func withReferences(t *testing.T, raw, dir string) {
	t.Helper()
	for _, rel := range []string{"eia/eia860/LayoutY2024.xlsx", "eia/eia861/Balancing_Authority_2018.xlsx"} {
		b, err := os.ReadFile(filepath.Join(raw, rel))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

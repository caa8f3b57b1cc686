package market_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

type atom map[string]any

func pjmAtoms(t *testing.T, b *ingest.Build) []atom {
	t.Helper()
	return atomsOf(capability.PowerCapacityMarketPJM, b)
}

func pjmPlan(t *testing.T, raw string) ingest.Plan {
	t.Helper()
	a := market.PJMCapacityMarket
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || len(plans[0].Files) != 15 {
		t.Fatalf("%d plans, want one of the 7 results and 8 planning-parameter workbooks", len(plans))
	}
	for i := range plans[0].Files {
		f := &plans[0].Files[i]
		if f.SHA256, f.Bytes, err = snapshots.HashFile(f.Path); err != nil {
			t.Fatal(err)
		}
	}
	return plans[0]
}

// TestPJMRTOValuesCiteTheirCells ingests the real workbooks, then checks every delivery
// year's RTO clearing price, cleared MW and reliability requirement against the figures PJM
// published and, through the evidence code path, against the very cell each atom cites.
func TestPJMRTOValuesCiteTheirCells(t *testing.T) {
	t.Parallel()
	raw := testenv.Raw(t)
	data := t.TempDir()
	store := &snapshots.Store{Dir: data}
	a := market.PJMCapacityMarket
	outcomes, err := ingest.Run(raw, store, []ingest.Adapter{a}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted || outcomes[0].AsOf != "2026-03-20" {
		t.Fatalf("outcomes %+v", outcomes)
	}
	b, err := a.Build(pjmPlan(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		dy                 string
		price, cleared, rr float64
	}{
		{"2021/2022", 140, 163627.3, 166355.1},
		{"2022/2023", 50, 144477.3, 163268.9},
		{"2023/2024", 34.13, 144870.6, 163166.2},
		{"2024/2025", 28.92, 147477.4, 164107.6},
		{"2025/2026", 269.92, 135684, 144450},
		{"2026/2027", 329.17, 134205.3, 146104.8},
		{"2027/2028", 333.44, 134478.1, 152400.2},
		{"2028/2029", 0, 0, 156012.9}, // planning parameters only: the auction is to come
	}
	atoms := pjmAtoms(t, b)
	for _, w := range want {
		t.Run(strings.ReplaceAll(w.dy, "/", "-"), func(t *testing.T) {
			for _, k := range []struct {
				atomType string
				value    float64
			}{{"clearing_price", w.price}, {"cleared_mw", w.cleared}, {"reliability_requirement", w.rr}} {
				var got atom
				for _, x := range atoms {
					if x["delivery_year"] == w.dy && x["lda"] == "RTO" && x["atom_type"] == k.atomType {
						got = x
					}
				}
				if k.value == 0 {
					if got != nil {
						t.Errorf("%s: an atom where none is printed: %v", k.atomType, got)
					}
					continue
				}
				if got == nil || got["value"] != k.value {
					t.Errorf("%s: %v, want %v", k.atomType, got["value"], k.value)
					continue
				}
				checkEvidence(t, svc, got)
			}
		})
	}
}

// checkEvidence verifies an atom's citation and compares its value with the cell of its
// source_column.
func checkEvidence(t *testing.T, svc *service.Service, a atom) {
	t.Helper()
	cit := service.Citation{SourceID: a["source_id"].(string), File: a["_source_file"].(string), Sheet: a["_sheet"].(string),
		Row: int(a["_source_row"].(int64)), SHA256: a["_raw_file_sha256"].(string), AsOf: "2026-03-20"}
	body, _ := json.Marshal(cit)
	out, e := svc.Evidence(context.Background(), body)
	if e != nil {
		t.Fatalf("%v does not verify: %s %s", cit, e.Code, e.Message)
	}
	var ev struct {
		Verified bool `json:"verified"`
		Cells    []struct {
			Column string `json:"column"`
			Value  string `json:"value"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(out, &ev); err != nil || !ev.Verified {
		t.Fatalf("evidence %s: %v", out, err)
	}
	for _, c := range ev.Cells {
		if c.Column == a["source_column"] {
			v, err := strconv.ParseFloat(c.Value, 64)
			if err != nil || v != a["value"] {
				t.Errorf("%s %s row %d column %s reads %q, the atom says %v", cit.File, cit.Sheet, cit.Row, c.Column, c.Value, a["value"])
			}
			return
		}
	}
	t.Errorf("%s %s row %d has no column %v", cit.File, cit.Sheet, cit.Row, a["source_column"])
}

// TestPJMPrintedCopiesDisagree changes the IRM the 2027/2028 results workbook prints: the
// build reports both printings in the printed_copies_agree gate and serves the planning
// parameters' value, never a mean of the two.
func TestPJMPrintedCopiesDisagree(t *testing.T) {
	t.Parallel()
	raw := testenv.Raw(t)
	p := pjmPlan(t, raw)
	dir := t.TempDir()
	for i, f := range p.Files {
		dst := filepath.Join(dir, filepath.Base(f.Path))
		if filepath.Base(f.Path) == "2027-2028-bra-results.xlsx" {
			x := testenv.ReadCells(t, f.Path)
			x.Set("BRA Load Pricing Results", 4, 2, "0.25")
			x.Write(t, dst)
		} else {
			b, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p.Files[i].Path = dst
	}
	b, err := market.PJMCapacityMarket.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	var gate *snapshots.Gate
	for i := range b.Checks {
		if b.Checks[i].Name == "printed_copies_agree" {
			gate = &b.Checks[i]
		}
	}
	if gate == nil || gate.Passed || !strings.Contains(gate.Detail, "2027/2028 installed_reserve_margin") || !strings.Contains(gate.Detail, "0.25") || !strings.Contains(gate.Detail, "0.2 at") {
		t.Fatalf("gate %+v", gate)
	}
	for _, a := range pjmAtoms(t, b) {
		if a["atom_type"] == "installed_reserve_margin" && a["delivery_year"] == "2027/2028" && a["value"] != 0.2 {
			t.Errorf("IRM served as %v, want the planning parameters' 0.2", a["value"])
		}
	}
}

// TestPJMNesting checks that the LDA nesting is on the rows and in the codebook.
func TestPJMNesting(t *testing.T) {
	t.Parallel()
	raw := testenv.Raw(t)
	b, err := market.PJMCapacityMarket.Build(pjmPlan(t, raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if !g.Passed {
			t.Errorf("gate %s: %s", g.Name, g.Detail)
		}
	}
	parents := map[string]string{}
	for _, cb := range b.Codebooks {
		if cb.Name == "lda" {
			for _, c := range cb.Codes {
				parents[c.Code] = c.Group
			}
		}
	}
	tests := []struct{ lda, parent, path string }{
		{"RTO", "", "RTO"},
		{"PSNORTH", "PS", "RTO > MAAC > EMAAC > PS > PSNORTH"},
		{"ATSI-CLEVELAND", "ATSI", "RTO > ATSI > ATSI-CLEVELAND"},
		{"BGE", "SWMAAC", "RTO > MAAC > SWMAAC > BGE"},
		{"DPLSOUTH", "EMAAC", "RTO > MAAC > EMAAC > DPLSOUTH"},
	}
	atoms := pjmAtoms(t, b)
	for _, tc := range tests {
		if parents[tc.lda] != tc.parent {
			t.Errorf("codebook: %s nested in %q, want %q", tc.lda, parents[tc.lda], tc.parent)
		}
		n := 0
		for _, a := range atoms {
			if a["lda"] != tc.lda {
				continue
			}
			n++
			if fmt.Sprint(a["lda_path"]) != tc.path || (tc.parent != "" && a["parent_lda"] != tc.parent) || (tc.parent == "" && a["parent_lda"] != nil) {
				t.Errorf("%s row: parent %v path %v", tc.lda, a["parent_lda"], a["lda_path"])
				break
			}
		}
		if n == 0 {
			t.Errorf("no atom for %s", tc.lda)
		}
	}
	// The planning parameters' spellings are read as the results' (PS NORTH is PSNORTH).
	for _, a := range atoms {
		if _, ok := parents[a["lda"].(string)]; !ok {
			t.Errorf("LDA %v (printed %v) is not in the nesting", a["lda"], a["lda_as_published"])
		}
	}
}

package eia_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// TestStatePricesCiteTheirCells checks every state electric-power price against the cell of
// its series' column on the row it cites (the state workbook is wide: one column per series,
// so the conformance suite's per-field column map cannot describe it), and that N3045US3 is
// served once per month, from the U.S. summary workbook.
func TestStatePricesCiteTheirCells(t *testing.T) {
	raw := testenv.Raw(t)
	a := eia.NaturalGasPrices{}
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatalf("plans %d, %v", len(plans), err)
	}
	var wb *grid.Workbook
	for i, f := range plans[0].Files {
		sha, n, err := snapshots.HashFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		plans[0].Files[i].SHA256, plans[0].Files[i].Bytes = sha, n
		if filepath.Base(f.Path) == "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls" {
			if wb, err = grid.Open(f.Path); err != nil {
				t.Fatal(err)
			}
		}
	}
	if wb == nil {
		t.Skip("no state workbook under CITEQ_RAW")
	}
	b, err := a.Build(plans[0])
	if err != nil {
		t.Fatal(err)
	}
	sh := wb.Sheet("Data 1")
	colOf := map[string]int{}
	for i, c := range sh.Row(2) {
		colOf[strings.TrimSpace(c.Value)] = i + 1
	}
	cols := snapshots.Columns(capability.NaturalGasPrices)
	at := func(name string) int {
		return slices.IndexFunc(cols, func(f capability.Field) bool { return f.Name == name })
	}
	states, us := 0, map[string]string{}
	for _, r := range b.Rows {
		file, series := r[at(capability.ColSourceFile)].(string), r[at("series_id")].(string)
		if series == "N3045US3" {
			if prev, dup := us[r[at("period")].(string)]; dup {
				t.Fatalf("N3045US3 %s served twice (%s and %s)", r[at("period")], prev, file)
			}
			us[r[at("period")].(string)] = file
			if file != "NG_PRI_SUM_DCU_NUS_M.xls" {
				t.Fatalf("N3045US3 %s served from %s", r[at("period")], file)
			}
			continue
		}
		if file != "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls" || r[at("atom")] != "state_electric_power_monthly" {
			continue
		}
		row := int(r[at(capability.ColSourceRow)].(int64))
		cell := strings.TrimSpace(sh.Cell(row, colOf[series]).Value)
		switch price := r[at("price")].(type) {
		case nil:
			if cell != "" {
				t.Fatalf("%s row %d: null price, cell %q", series, row, cell)
			}
		case float64:
			if x, err := strconv.ParseFloat(cell, 64); err != nil || x != price {
				t.Fatalf("%s row %d: price %v, cell %q", series, row, price, cell)
			}
		}
		states++
	}
	if states != 51*252 {
		t.Fatalf("%d state rows, want 51 series x 252 months", states)
	}
}

package eia_test

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// TestStatePricesCiteTheirCells checks every price of the state workbook's document against
// the cell of its series' column on the row it cites (the state workbook is wide: one column
// per series, so the conformance suite's per-field column map cannot describe it): the state
// series and the workbook's own release of N3045US3, which ingest serves wherever it is the
// newest release of a month.
func TestStatePricesCiteTheirCells(t *testing.T) {
	raw := testenv.Raw(t)
	a := eia.NaturalGasPrices
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil || len(plans) != 3 {
		t.Fatalf("plans %d, %v", len(plans), err)
	}
	var wb *grid.Workbook
	var plan ingest.Plan
	for _, p := range plans {
		if filepath.Base(p.Files[0].Path) != "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls" {
			continue
		}
		plan = p
		testenv.HashPlan(t, &plan)
		if wb, err = grid.Open(plan.Files[0].Path); err != nil {
			t.Fatal(err)
		}
	}
	if wb == nil {
		testenv.SkipRaw(t, "no state workbook under CITEQ_RAW")
	}
	b, err := a.Build(plan)
	if err != nil {
		t.Fatal(err)
	}
	if b.AsOf != "2023-02-28" {
		t.Errorf("as_of %s, want the workbook's release 2023-02-28", b.AsOf)
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
	states, us := 0, 0
	for _, r := range b.Rows {
		file, series := r[at(capability.ColSourceFile)].(string), r[at("series_id")].(string)
		if file != "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls" {
			t.Fatalf("%s row read from %s", series, file)
		}
		switch {
		case series == "N3045US3" && r[at("atom")] == "us_electric_power_monthly":
			us++
		case r[at("atom")] == "state_electric_power_monthly":
			states++
		default:
			t.Fatalf("%s as atom %v", series, r[at("atom")])
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
	}
	if states != 51*252 || us != 252 {
		t.Fatalf("%d state rows and %d of N3045US3, want 51 series x 252 months and 252", states, us)
	}
}

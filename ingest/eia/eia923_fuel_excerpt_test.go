package eia_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

const (
	excerptRel   = "eia/eia923_page5_derived/coal_receipts_2024_page5_EXCERPT.csv"
	workbookRel  = "eia/eia923/EIA923_Schedules_2_3_4_5_M_12_2024_Final.xlsx"
	eiaWorkbook  = "https://www.eia.gov/electricity/data/eia923/xls/f923_2024.zip"
	fuelCostPath = "power/fuel-cost"
)

// fuelGolden is testdata/golden/eia923_fuel.json, read from the excerpt by
// compute_eia923_fuel.py with Python's csv module, not by this code.
type fuelGolden struct {
	Name   string             `json:"name"`
	Params map[string]any     `json:"params"`
	Totals map[string]float64 `json:"totals"`
	Notes  map[string]int64   `json:"notes"`
}

func readFuelGolden(t *testing.T) map[string]fuelGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "eia923_fuel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []fuelGolden
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]fuelGolden{}
	for _, g := range list {
		out[g.Name] = g
	}
	return out
}

// TestFuelCostExcerpt ingests the derived page-5 excerpt: 29 receipts, every citation marked
// derived with EIA's address of the workbook as the original and verifying through the
// source-row evidence code path and every aggregate citation of its published cells through
// the aggregate evidence; a withheld FUEL_COST ('.') is null, never 0,
// and the answers that leave such receipts out say how many.
func TestFuelCostExcerpt(t *testing.T) {
	raw := testenv.Raw(t)
	data := t.TempDir()
	outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: data}, []ingest.Adapter{eia.FuelCostExcerpt}, io.Discard)
	if err != nil || len(outcomes) != 1 {
		t.Fatalf("%+v %v", outcomes, err)
	}
	o := outcomes[0]
	if o.Status != snapshots.Promoted || o.AsOf != "2024-12-31" || o.Rows != 29 {
		t.Fatalf("%s as_of %s, %d rows; reasons %v", o.Status, o.AsOf, o.Rows, o.Reasons)
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	golden := readFuelGolden(t)

	t.Run("every record is cited as derived and verifies", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), fuelCostPath, []byte(`{"include_records":true,"limit":100}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Records []struct {
				Cost     *float64        `json:"fuel_cost_cents_per_mmbtu"`
				Status   string          `json:"fuel_cost_status"`
				Citation json.RawMessage `json:"citation"`
			} `json:"records"`
		}
		if err := json.Unmarshal(out, &r); err != nil || len(r.Records) != 29 {
			t.Fatalf("%d records, %v", len(r.Records), err)
		}
		withheld := 0
		for _, rec := range r.Records {
			var c service.Citation
			if err := json.Unmarshal(rec.Citation, &c); err != nil {
				t.Fatal(err)
			}
			if !c.Derived || c.OriginalURL != eiaWorkbook || c.File != filepath.Base(excerptRel) {
				t.Errorf("citation %s: want derived, original %s, the excerpt hashed", rec.Citation, eiaWorkbook)
			}
			ev, e := svc.Evidence(context.Background(), rec.Citation)
			var v struct {
				Verified bool `json:"verified"`
			}
			if e != nil || json.Unmarshal(ev, &v) != nil || !v.Verified {
				t.Errorf("%s does not verify: %v %s", rec.Citation, e, ev)
			}
			if rec.Status == "withheld" {
				withheld++
				if rec.Cost != nil {
					t.Errorf("withheld cost served as %v", *rec.Cost)
				}
			} else if rec.Status != "published" || rec.Cost == nil {
				t.Errorf("status %q, cost %v", rec.Status, rec.Cost)
			}
		}
		if want := golden["all receipts of the excerpt"].Notes["fuel_cost_not_published"]; int64(withheld) != want {
			t.Errorf("%d receipts withheld, golden %d", withheld, want)
		}
	})

	t.Run("totals and the withheld note", func(t *testing.T) {
		for _, name := range []string{"all receipts of the excerpt", "unregulated plants (cost withheld)", "bituminous"} {
			g := golden[name]
			body, _ := json.Marshal(g.Params)
			out, e := svc.QueryJSON(context.Background(), fuelCostPath, body)
			if e != nil {
				t.Fatal(e.Message)
			}
			var r struct {
				Summary struct {
					Totals map[string]*float64 `json:"totals"`
					Notes  []struct {
						Code   string `json:"code"`
						Metric string `json:"metric"`
						Count  int64  `json:"count"`
					} `json:"notes"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatal(err)
			}
			for m, want := range g.Totals {
				if got := r.Summary.Totals[m]; got == nil || fmt.Sprintf("%.9g", *got) != fmt.Sprintf("%.9g", want) {
					t.Errorf("%s: %s = %v, golden %v", name, m, got, want)
				}
			}
			for _, m := range []string{"delivered_cost_usd", "average_cost_usd_per_mmbtu"} {
				found := false
				for _, n := range r.Summary.Notes {
					if n.Code == "fuel_cost_not_published" && n.Metric == m {
						found = true
						if n.Count != g.Notes["fuel_cost_not_published"] {
							t.Errorf("%s: %s note counts %d, golden %d", name, m, n.Count, g.Notes["fuel_cost_not_published"])
						}
					}
				}
				if !found {
					t.Errorf("%s: no fuel_cost_not_published note on %s: %s", name, m, out)
				}
			}
		}
	})

	// The metrics over published cells recompute from them; mmbtu, delivered_cost_usd and the
	// average cost are products of two cells of a row, which the aggregate evidence (one cell
	// per field) does not recompute (README, power.fuel_cost).
	t.Run("every aggregate citation recomputes from its cells", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), fuelCostPath, []byte(`{"group_by":["plant_state","fuel_cost_status"]}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(out, &r); err != nil || len(r.Citations) < 10 {
			t.Fatalf("%d citations, %v", len(r.Citations), err)
		}
		for ref, cit := range r.Citations {
			for _, m := range []string{"receipt_count", "quantity", "cost_published_count"} {
				ev, e := svc.AggregateEvidence(context.Background(), []byte(fmt.Sprintf(`{"capability":"power.fuel_cost","metric":%q,"citation":%s}`, m, cit)))
				if e != nil {
					t.Fatalf("%s %s: %s", ref, m, e.Message)
				}
				var v struct {
					Equal bool `json:"equal"`
				}
				if err := json.Unmarshal(ev, &v); err != nil || !v.Equal {
					t.Errorf("%s %s: %s", ref, m, ev)
				}
			}
		}
	})
}

// TestFuelCostExcerptSuperseded: with the agency's workbook the excerpt was copied from in
// place, the excerpt plans nothing (the workbook's adapter serves that release); without it,
// the excerpt is planned.
func TestFuelCostExcerptSuperseded(t *testing.T) {
	raw := testenv.Raw(t)
	dir := t.TempDir()
	copyTo := func(src, rel string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyTo(filepath.Join(raw, filepath.FromSlash(excerptRel)), excerptRel)
	a := eia.FuelCostExcerpt
	plans, err := a.Plan(ingest.NewFinder(dir, a.Folders()))
	if err != nil || len(plans) != 1 || !plans[0].Files[0].Derived {
		t.Fatalf("the excerpt alone: plans %+v, %v", plans, err)
	}
	copyTo(filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", filepath.FromSlash(workbookRel)), workbookRel)
	if plans, err = a.Plan(ingest.NewFinder(dir, a.Folders())); err != nil || len(plans) != 0 {
		t.Fatalf("beside the workbook it was copied from: plans %+v, %v", plans, err)
	}
	w := eia.FuelCost
	if plans, err = w.Plan(ingest.NewFinder(dir, w.Folders())); err != nil || len(plans) != 1 || plans[0].Files[0].Derived {
		t.Fatalf("the workbook: plans %+v, %v", plans, err)
	}
}

package eia_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// currentLayoutExpected is testdata/golden/fixtures/eia860m_current.json, read from the
// fixture by compute_eia860m_current.py (the standard library's zip and XML readers).
type currentLayoutExpected struct {
	AsOf       string                        `json:"as_of"`
	Totals     map[string]map[string]float64 `json:"totals"`
	Generators []map[string]any              `json:"generators"`
}

// TestEIA860MCurrentLayout ingests a workbook written in the current EIA-860M layout (title,
// blank row, header in row 3, columns moved and added, Puerto Rico sheets) and checks that
// the columns the May 2016 vintage lacks are served from their cells: balancing authority
// code, net winter capacity, unit code, nameplate energy capacity and DC net capacity, with
// county as before.
func TestEIA860MCurrentLayout(t *testing.T) {
	root := testenv.RepoRoot(t)
	var want currentLayoutExpected
	b, err := os.ReadFile(filepath.Join(root, "testdata", "golden", "fixtures", "eia860m_current.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	dst := filepath.Join(dir, "eia", "eia860m", "december_generator2025.xlsx")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	fixture, err := os.ReadFile(filepath.Join(root, "testdata", "fixtures", "eia", "eia860m", "december_generator2025.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	withReferences(t, testenv.Raw(t), dir)

	data := t.TempDir()
	outcomes, err := ingest.Run(dir, &snapshots.Store{Dir: data}, []ingest.Adapter{eia.EIA860M}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted {
		t.Fatalf("outcomes %+v", outcomes)
	}
	if outcomes[0].AsOf != want.AsOf || outcomes[0].Rows != len(want.Generators) {
		t.Fatalf("as_of %s with %d rows, want %s with %d", outcomes[0].AsOf, outcomes[0].Rows, want.AsOf, len(want.Generators))
	}
	if hr := outcomes[0].Manifest.Sources[0].HeaderRows; hr["Operating"] != 3 || hr["Operating_PR"] != 3 {
		t.Errorf("header rows %v, want row 3 on every sheet", hr)
	}

	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("totals by lifecycle", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), "power/capacity", []byte(`{"group_by":["lifecycle"]}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Rows []struct {
				Group   map[string]string   `json:"group"`
				Metrics map[string]*float64 `json:"metrics"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != len(want.Totals) {
			t.Fatalf("%d lifecycles, want %d", len(r.Rows), len(want.Totals))
		}
		for _, row := range r.Rows {
			lc := row.Group["lifecycle"]
			for m, v := range want.Totals[lc] {
				if got := row.Metrics[m]; got == nil || math.Abs(*got-v) > 1e-9 {
					t.Errorf("%s %s = %v, want %v", lc, m, deref(got), v)
				}
			}
		}
	})
	t.Run("every generator's vintage-dependent cells", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), "power/capacity", []byte(`{"include_records":true,"limit":100}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Records []map[string]any `json:"records"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		key := func(m map[string]any) string {
			return fmt.Sprint(m["lifecycle"], "/", m["eia_plant_id"], "/", m["generator_id"])
		}
		got := map[string]map[string]any{}
		for _, rec := range r.Records {
			got[key(rec)] = rec
		}
		if len(got) != len(want.Generators) {
			t.Fatalf("%d records, want %d", len(got), len(want.Generators))
		}
		for _, g := range want.Generators {
			rec := got[key(g)]
			if rec == nil {
				t.Errorf("no record for %s", key(g))
				continue
			}
			for _, f := range []string{"sheet_name", "source_row_number", "state", "county", "balancing_authority_code", "unit_code",
				"net_winter_mw", "nameplate_energy_mwh", "dc_net_capacity_mw"} {
				if fmt.Sprint(rec[f]) != fmt.Sprint(g[f]) {
					t.Errorf("%s %s = %v, want %v", key(g), f, rec[f], g[f])
				}
			}
		}
	})
	t.Run("the schema publishes the columns", func(t *testing.T) {
		out, e := svc.Schema("power/capacity")
		if e != nil {
			t.Fatal(e.Message)
		}
		var s struct {
			DetailFields []struct {
				Name      string `json:"name"`
				Published *bool  `json:"published"`
			} `json:"detail_fields"`
		}
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatal(err)
		}
		published := map[string]bool{}
		for _, f := range s.DetailFields {
			published[f.Name] = f.Published == nil || *f.Published
		}
		for _, f := range []string{"balancing_authority_code", "net_winter_mw", "unit_code", "county", "nameplate_energy_mwh", "dc_net_capacity_mw"} {
			if !published[f] {
				t.Errorf("the schema says %s is not published by the December 2025 inventory", f)
			}
		}
		if published["county_fips"] {
			t.Error("county_fips is published, but no EIA-860M vintage has the column")
		}
	})
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

package api_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

// goldenCase is one expected answer in testdata/golden/eia.json, computed from the raw files
// with a spreadsheet converter and awk (see testdata/golden/README.md), not by this code.
type goldenCase struct {
	Name       string                        `json:"name"`
	Capability string                        `json:"capability"`
	AsOf       string                        `json:"as_of"`
	Params     map[string]any                `json:"params"`
	Totals     map[string]float64            `json:"totals"`
	Groups     map[string]map[string]float64 `json:"groups"`
	Notes      map[string]int64              `json:"notes"`
}

// TestGoldenTotals posts every case of every testdata/golden/*.json file (one file per
// publisher family) to the REST API and compares the figures.
func TestGoldenTotals(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fc []goldenCase
		if err := json.Unmarshal(b, &fc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range fc {
			fc[i].Name = strings.TrimSuffix(filepath.Base(f), ".json") + "/" + fc[i].Name
		}
		cases = append(cases, fc...)
	}
	if len(cases) < 15 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, gc := range cases {
		t.Run(gc.Name, func(t *testing.T) {
			c := capability.ByID(gc.Capability)
			params := map[string]any{"as_of": gc.AsOf}
			for k, v := range gc.Params {
				params[k] = v
			}
			status, body := post(t, srv, "/v1/"+c.Path+"/query", params)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			r := decode[response](t, body)
			if r.AsOf != gc.AsOf {
				t.Errorf("as_of %s, want %s", r.AsOf, gc.AsOf)
			}
			for m, want := range gc.Totals {
				got := r.Summary.Totals[m]
				if got == nil || !near(*got, want) {
					t.Errorf("totals.%s = %v, want %v", m, deref(got), want)
				}
			}
			for code, want := range gc.Notes {
				found := false
				for _, n := range r.Summary.Notes {
					if n.Code == code {
						found = true
						if n.Count != want {
							t.Errorf("note %s count %d, want %d", code, n.Count, want)
						}
					}
				}
				if !found {
					t.Errorf("note %s missing", code)
				}
			}
			for m, byGroup := range gc.Groups {
				if r.Summary.GroupCount != len(byGroup) {
					t.Errorf("group_count %d, want %d", r.Summary.GroupCount, len(byGroup))
				}
				got := map[string]float64{}
				for _, row := range r.Rows {
					if v := row.Metrics[m]; v != nil {
						g := row.Group[gc.Params["group_by"].([]any)[0].(string)]
						if g == nil {
							g = "null" // a null group, as the golden files key it
						}
						got[fmt.Sprint(g)] = *v
					}
				}
				for g, want := range byGroup {
					if v, ok := got[g]; !ok || !near(v, want) {
						t.Errorf("%s[%s] = %v, want %v", m, g, v, want)
					}
				}
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

package kit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/capability/captest"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/snapshots"
)

// TestTallyTotalsItsField: a sheet's second reading is compared with the total of the Tally's
// Field over the rows built, whether that field is read as a whole number, a number or a
// number with thousands' commas; a sheet whose rows are not all built fails the gate.
func TestTallyTotalsItsField(t *testing.T) {
	c := captest.RegisterForTest(t, &capability.Capability{
		ID: "testonly.tally", Path: "testonly/tally", Title: "tally test", Description: "a table of counts and values",
		Grain: "one state", Cadence: capability.Annual, Publisher: "test", AsOfRule: "fixed",
		Documents:  capability.Documents{Relation: capability.Restate, Document: "one table"},
		NaturalKey: []string{"state"},
		Fields: []capability.Field{
			{Name: "state", Type: capability.String, Filter: true, GroupBy: true, Description: "state"},
			{Name: "units", Type: capability.Integer, Description: "units"},
			{Name: "value", Type: capability.Number, Description: "value"},
		},
		Metrics: []capability.Metric{{Name: "units", Unit: "count", Agg: capability.Sum, Column: "units", Additive: true, Description: "units"}},
		Rules:   []string{"as published"},
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "tally.csv")
	if err := os.WriteFile(path, []byte("State,Units,Value\nCA,1200,\"36,000.50\"\nTX,800,\"24,100\"\nNV,5,\"1,000\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		field string // the Tally's Field
		sum   string // the column the second reading sums
		kind  kit.Kind
		skip  string // a state whose row is not built
		pass  bool
	}{
		{"a whole-number field", "units", "Units", kit.AsInt, "", true},
		{"a number field with commas", "value", "Value", kit.AsGrouped, "", true},
		{"a row not built", "units", "Units", kit.AsInt, "NV", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			kinds := map[string]kit.Kind{"units": kit.AsInt, "value": kit.AsGrouped}
			kinds[tc.field] = tc.kind
			a := kit.New(&kit.Spec{
				Cap: c, Version: "1", Folders: []string{"tally"},
				Files: []*kit.File{{
					Match: regexp.MustCompile(`^tally\.csv$`), SourceID: "tally", Publisher: "test",
					URL:  func(name string, _ []string) string { return "https://example.gov/" + name },
					Open: func(fr *kit.FileRead) error { fr.Book.AsOf = "2025-12-31"; return nil },
					Sheets: []*kit.Sheet{{
						Header: 1,
						Columns: []kit.Column{
							{Field: "state", Header: "State", Kind: kit.AsText, At: 1},
							{Field: "units", Header: "Units", Kind: kinds["units"], At: 2},
							{Field: "value", Header: "Value", Kind: kinds["value"], At: 3},
						},
						IsRow: func(r *kit.Row) bool { return r.Cell("state").Value != tc.skip },
						Row:   func(r *kit.Row) { r.Key(r.Text("state")) },
						Tally: &kit.Tally{Cells: 3, Sum: []string{tc.sum}, Grouped: true, Field: tc.field, Unit: "u"},
					}},
				}},
				Gates: func(b *kit.Book) []snapshots.Gate { return []snapshots.Gate{b.Rec.Gate()} },
			})
			out, err := a.Build(ingest.Plan{Files: []ingest.File{{Path: path, SourceID: "tally", Publisher: "test",
				URL: "https://example.gov/tally.csv", Role: ingest.RoleData}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Checks) != 1 || out.Checks[0].Name != kit.GateReconcile {
				t.Fatalf("gates %+v, want the one %s", out.Checks, kit.GateReconcile)
			}
			if g := out.Checks[0]; g.Passed != tc.pass {
				t.Errorf("%s passed %v, want %v: %s", g.Name, g.Passed, tc.pass, g.Detail)
			}
		})
	}
}

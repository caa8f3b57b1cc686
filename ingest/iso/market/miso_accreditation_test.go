package market_test

import (
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/snapshots"
)

// TestMISOAccreditationSuppression checks that a withheld value is an atom saying so (never a
// zero, never a missing row), and that storage classes carry their duration.
func TestMISOAccreditationSuppression(t *testing.T) {
	t.Parallel()
	a := market.MISOAccreditation{}
	plans, err := a.Plan(ingest.NewFinder(misoFixtures(t), a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatalf("%d plans, %v", len(plans), err)
	}
	b, err := a.Build(plans[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Checks {
		if !g.Passed {
			t.Errorf("gate %s: %s", g.Name, g.Detail)
		}
	}
	if b.AsOf != "2025-03-03" || len(b.Rows) != 80 {
		t.Errorf("as_of %s, %d rows", b.AsOf, len(b.Rows))
	}
	cols := snapshots.Columns(capability.PowerCapacityAccreditationMISO)
	suppressed := 0
	for _, r := range b.Rows {
		x := atom{}
		for i, f := range cols {
			x[f.Name] = r[i]
		}
		switch x["resource_class"] {
		case "Storage - 2 hour":
			if x["atom_type"] != "suppressed" || x["suppressed"] != true || x["suppression_mark"] != "*" || x["ratio_percent"] != nil || x["storage_variant"] != "2 hour" || x["unit_count"] != int64(2) {
				t.Errorf("withheld atom %v", x)
			}
			suppressed++
		case "Storage - 4 hour":
			if x["atom_type"] != "ratio" || x["storage_variant"] != "4 hour" || x["ratio_percent"] == nil {
				t.Errorf("storage atom %v", x)
			}
		}
	}
	if suppressed != 8 {
		t.Errorf("%d suppressed atoms, want 4 seasons x 2 methods", suppressed)
	}
}

package market_test

import (
	"io"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/snapshots"
)

// TestPJMAccreditationDocuments ingests the two fixture documents: a preliminary and a final
// rating document for the same auction are distinct snapshots, each with its own kind.
func TestPJMAccreditationDocuments(t *testing.T) {
	t.Parallel()
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(misoFixtures(t), store, []ingest.Adapter{market.PJMAccreditation{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"2025-10-15": "final", "2025-02-10": "preliminary"}
	if len(outcomes) != 2 {
		t.Fatalf("%d outcomes", len(outcomes))
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted || o.Rows != 18 || want[o.AsOf] == "" {
			t.Errorf("%s: %s with %d rows (%v)", o.AsOf, o.Status, o.Rows, o.Reasons)
		}
	}
	a := market.PJMAccreditation{}
	plans, err := a.Plan(ingest.NewFinder(misoFixtures(t), a.Folders()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plans {
		b, err := a.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		if b.Sources[0].Release != b.AsOf || len(b.Rows) != 18 {
			t.Errorf("%s: as_of %s, %d rows", b.Sources[0].File, b.AsOf, len(b.Rows))
		}
	}
}

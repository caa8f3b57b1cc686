package market_test

import (
	"io"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/snapshots"
)

// TestPJMAccreditationDocuments ingests the fixture documents: each rating document, final or
// preliminary, is a distinct document with its own kind (a title without one reads as final),
// and the snapshot of each posting date holds every document posted by then.
func TestPJMAccreditationDocuments(t *testing.T) {
	t.Parallel()
	store := &snapshots.Store{Dir: t.TempDir()}
	outcomes, err := ingest.Run(misoFixtures(t), store, []ingest.Adapter{market.PJMAccreditation{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"2025-10-15": "final", "2025-02-10": "preliminary", "2021-12-16": "final", "2026-01-20": "final"}
	if len(outcomes) != len(want) {
		t.Fatalf("%d outcomes", len(outcomes))
	}
	for i, o := range outcomes {
		if o.Status != snapshots.Promoted || o.Rows != 18*(i+1) || want[o.AsOf] == "" || len(o.Manifest.Documents) != i+1 {
			t.Errorf("%s: %s with %d rows, %d documents (%v)", o.AsOf, o.Status, o.Rows, len(o.Manifest.Documents), o.Reasons)
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
		kind := -1
		for i, f := range snapshots.Columns(capability.PowerCapacityAccreditationPJM) {
			if f.Name == "document_kind" {
				kind = i
			}
		}
		for _, r := range b.Rows {
			if r[kind] != want[b.AsOf] {
				t.Fatalf("%s: document_kind %v, want %s", b.Sources[0].File, r[kind], want[b.AsOf])
			}
		}
	}
}

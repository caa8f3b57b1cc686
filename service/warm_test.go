package service

import (
	"testing"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// TestWarm: a service decodes no column at load; Warm decodes every column a query can read
// in snapshots within its row limit, and none beyond it.
func TestWarm(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	snaps := svc.SnapshotsServed()
	if len(snaps) == 0 {
		t.Fatal("no snapshots served")
	}
	decoded := func() (hot, all int) {
		for _, snap := range snaps {
			for _, name := range HotColumns(snap.Cap) {
				all++
				if snap.Table.Loaded(name) {
					hot++
				}
			}
		}
		return hot, all
	}
	if hot, _ := decoded(); hot != 0 {
		t.Fatalf("%d columns decoded at load", hot)
	}
	if err := svc.Warm(0); err != nil {
		t.Fatal(err)
	}
	if hot, _ := decoded(); hot != 0 {
		t.Fatalf("Warm(0) decoded %d columns", hot)
	}
	if err := svc.Warm(1 << 30); err != nil {
		t.Fatal(err)
	}
	if hot, all := decoded(); hot != all {
		t.Fatalf("Warm decoded %d of %d columns", hot, all)
	}
	for _, snap := range snaps {
		hot := map[string]bool{}
		for _, name := range HotColumns(snap.Cap) {
			hot[name] = true
		}
		for _, f := range snapshots.Columns(snap.Cap) {
			if !hot[f.Name] && snap.Table.Loaded(f.Name) {
				t.Errorf("%s: Warm decoded %s, which no query reads", snap.Cap.ID, f.Name)
			}
		}
	}
}

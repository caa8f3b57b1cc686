package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/citeq/citeq/bench/synth"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// TestScaleUpAnswers: the largest queue, scaled up to a little over twice its rows, is found
// in the cache, asked its real snapshot's question set, and answered alike by both citeq
// paths and (when bench/.cache/duckdb-bench is built) by DuckDB; the question set generated
// from the scale-up itself is the real one's, so the scale-up keeps the snapshot's
// dimensions.
func TestScaleUpAnswers(t *testing.T) {
	data := testenv.Data(t)
	real, err := realDatasets(data)
	if err != nil {
		t.Fatal(err)
	}
	ids, _, err := resolveScaleCaps("power.interconnection_queue*", real)
	if err != nil || len(ids) != 1 {
		t.Fatalf("resolveScaleCaps = %q, %v", ids, err)
	}
	src, err := synth.Read(&snapshots.Store{Dir: data}, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	n := 2*len(src.Rows) + len(src.Rows)/3
	cache := t.TempDir()
	if _, err := synth.Build(cache, src, synth.Options{Rows: n, Seed: 1}, 2); err != nil {
		t.Fatal(err)
	}
	ups, desc, err := scaleUps(real, ids[0], data, cache, []int{len(src.Rows), n}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 1 || !ups[0].Cached || ups[0].Rows != n || ups[0].Name != scaleName(ids[0], n) || desc.Rows != len(src.Rows) || len(desc.Perturbed) == 0 {
		t.Fatalf("scale-ups %+v of %+v: want one, cached, of %d rows (the source's own size is skipped)", ups, desc, n)
	}
	ds := ups[0]

	svc, err := service.New(ds.Dir)
	if err != nil {
		t.Fatal(err)
	}
	snaps := svc.SnapshotsServed()
	if len(snaps) != 1 || snaps[0].Table.Rows != n {
		t.Fatalf("the scale-up serves %d snapshots", len(snaps))
	}
	own, err := generatedQueries(snaps[0].Cap, snaps[0].Table)
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != len(ds.queries) {
		t.Fatalf("the scale-up's own question set has %d questions, the real one %d", len(own), len(ds.queries))
	}
	for i := range own {
		if own[i].Name != ds.queries[i].Name {
			t.Errorf("question %d: %s on the scale-up, %s on the real snapshot", i, own[i].Name, ds.queries[i].Name)
		}
	}

	run, err := measureDataset(ds, 0, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	total := run.answers[ds.queries[0].Name]["service"]
	if total.Matched != n {
		t.Errorf("%s matched %d rows, want %d", ds.queries[0].Name, total.Matched, n)
	}
	duck := filepath.Join(testenv.RepoRoot(t), "bench", ".cache", "duckdb-bench")
	if _, err := os.Stat(duck); err != nil {
		t.Log("bench/.cache/duckdb-bench not built: DuckDB's answers not checked (make bench builds it)")
		return
	}
	set := duckSettings{TempDirectory: t.TempDir(), TableStorage: "memory"}
	results, err := measureDuckDB(duck, ds, run, 0, 1, true, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(ds.queries) {
		t.Errorf("DuckDB answered %d questions of %d", len(results), len(ds.queries))
	}
}

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/snapshots"
)

// TestOneIngestAtATime: while one citeq ingest (a real process, stopped while it writes its
// Parquet file) holds a data directory, a second citeq ingest on it is refused at once, naming
// the first one's pid and command, and leaves the first one's build directory alone; the
// first then promotes, and a later ingest runs. Before, the second ran beside the first: it
// removed the first one's build directory as left by an interrupted ingest, and the two
// read-modified-wrote the catalog under separate in-process locks.
func TestOneIngestAtATime(t *testing.T) {
	raw, data := ngRaw(t), t.TempDir()
	first, out := stoppedIngest(t, snapshots.StepFactsWrite, raw, data)
	builds := func() []string {
		b, _ := filepath.Glob(filepath.Join(data, "snapshots", "*", "*", ".build-*"))
		return b
	}
	held := builds()
	if len(held) == 0 {
		t.Fatalf("the first ingest holds no build directory at %s:\n%s", snapshots.StepFactsWrite, out)
	}

	second, err := exec.Command(binary(t), "ingest", "--raw", raw, "--data", data).CombinedOutput()
	if err == nil {
		t.Fatalf("a second ingest ran beside the first:\n%s", second)
	}
	for _, want := range []string{fmt.Sprintf("pid %d (", first.Process.Pid), "ingest --raw " + raw, "is being written by", data} {
		if !strings.Contains(string(second), want) {
			t.Errorf("the second ingest's error does not say %q:\n%s", want, second)
		}
	}
	if strings.Contains(string(second), "removed") || len(builds()) != len(held) {
		t.Errorf("the second ingest touched the first one's build directory %v:\n%s", held, second)
	}

	continueIngest(t, first)
	if err := first.Wait(); err != nil {
		t.Fatalf("the first ingest, continued: %v\n%s", err, out)
	}
	store := &snapshots.Store{Dir: data}
	if c, _ := store.ReadCatalog(); c.Promoted["natural_gas.prices"]["2024-07-10"] == "" {
		t.Fatalf("the first ingest did not promote:\n%s", out)
	}
	if got := run(t, "ingest", "--raw", raw, "--data", data); !strings.Contains(got, "nothing changed") {
		t.Errorf("the ingest after the first:\n%s", got)
	}
}

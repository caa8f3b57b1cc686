package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fcc"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// TestGeneratedQueriesFixtureCapabilities: a capability served only from fixtures here (the
// FCC docket and notices) gets its question set from its definition like any other, once a
// snapshot of it is promoted: every question validates, and the engine path and the service
// answer it alike.
func TestGeneratedQueriesFixtureCapabilities(t *testing.T) {
	data := t.TempDir()
	adapters := []ingest.Adapter{fcc.Filings{}, fcc.Notices{}}
	fixtures := filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures")
	if _, err := ingest.Run(fixtures, &snapshots.Store{Dir: data}, adapters, io.Discard); err != nil {
		t.Fatal(err)
	}
	datasets, err := realDatasets(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(datasets) != len(adapters) {
		t.Fatalf("%d datasets, want %d", len(datasets), len(adapters))
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range datasets {
		c := capability.ByID(ds.Capability)
		kinds := map[string]bool{}
		for _, q := range ds.queries {
			if _, _, _, err := validate(svc, q); err != nil {
				t.Errorf("%s body %s: %v", q.Name, q.Body, err)
			}
			for _, k := range []string{"/total", "/records_limit", "/by_", "/top"} {
				if strings.Contains(q.Name, k) {
					kinds[k] = true
				}
			}
		}
		if len(kinds) != 4 {
			t.Errorf("%s: question kinds %v among %v", c.ID, kinds, names(ds.queries))
		}
		if _, err := measureDataset(ds, 0, 1, ""); err != nil {
			t.Errorf("%s: %v", ds.Name, err)
		}
	}
}

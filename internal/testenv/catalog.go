package testenv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Withheld is a data directory that shares the snapshots and raw store of another with a
// catalog of its own, in which some promoted snapshots are withheld; Promote then promotes
// them, as an ingest would.
type Withheld struct {
	// Dir is the data directory.
	Dir  string
	full []byte
}

// Withhold makes a Withheld of data whose catalog leaves out what drop deletes from the
// promoted snapshots (capability → as_of → fingerprint).
func Withhold(t testing.TB, data string, drop func(promoted map[string]map[string]string)) *Withheld {
	t.Helper()
	w := &Withheld{Dir: t.TempDir()}
	for _, d := range []string{"snapshots", "raw"} {
		if err := os.Symlink(filepath.Join(data, d), filepath.Join(w.Dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if w.full, err = os.ReadFile(filepath.Join(data, "catalog.json")); err != nil {
		t.Fatal(err)
	}
	var cat map[string]map[string]map[string]string
	if err := json.Unmarshal(w.full, &cat); err != nil {
		t.Fatalf("the catalog of %s: %v", data, err)
	}
	drop(cat["promoted"])
	less, err := json.Marshal(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Dir, "catalog.json"), less, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// Promote writes the whole catalog, dated a minute ahead so that a reload sees it changed.
func (w *Withheld) Promote(t testing.TB) {
	t.Helper()
	catalog := filepath.Join(w.Dir, "catalog.json")
	if err := os.WriteFile(catalog, w.full, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(catalog, later, later); err != nil {
		t.Fatal(err)
	}
}

package snapshots

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockExcludesOtherWriters: while one Store holds a data directory's write lock, another
// (an open file of its own, as another process has) cannot promote, clean or lock it, and the
// error names the holder; the holder's own Locks nest; once released, the other goes on.
// (Two real citeq ingest processes: cmd/citeq TestOneIngestAtATime.)
func TestLockExcludesOtherWriters(t *testing.T) {
	dir := t.TempDir()
	holder, other := &Store{Dir: dir}, &Store{Dir: dir}
	m := &Manifest{Capability: "test.cap", AsOf: "2020-01-31", Fingerprint: "f1", Rows: 1}
	if err := WriteJSONAtomic(filepath.Join(holder.SnapshotDir(m.Capability, m.AsOf, m.Fingerprint), ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	if err := holder.Promote(m); err != nil {
		t.Fatalf("the holder cannot promote: %v", err)
	}
	pid := fmt.Sprintf("pid %d", os.Getpid())
	for name, try := range map[string]func() error{
		"promote": func() error {
			return other.Promote(&Manifest{Capability: "test.cap", AsOf: "2020-02-29", Fingerprint: "f2", Rows: 1})
		},
		"clean": func() error { _, err := other.CleanStale(); return err },
		"lock":  other.Lock,
	} {
		err := try()
		var le *LockedError
		if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || !strings.Contains(err.Error(), pid) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s while locked: %v, want an error naming %s and the directory", name, err, pid)
		}
	}
	if c, _ := other.ReadCatalog(); c.Promoted["test.cap"]["2020-02-29"] != "" {
		t.Error("a promotion went through another's lock")
	}
	// Nested: the holder's second Lock and its Unlock leave it held.
	if err := holder.Lock(); err != nil {
		t.Fatal(err)
	}
	holder.Unlock()
	if err := other.Lock(); !errors.Is(err, ErrLocked) {
		t.Fatalf("after one of two unlocks: %v, want still locked", err)
	}
	if err := holder.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := other.Promote(&Manifest{Capability: "test.cap", AsOf: "2020-02-29", Fingerprint: "f2", Rows: 1}); err != nil {
		t.Fatalf("once released: %v", err)
	}
	if c, _ := other.ReadCatalog(); c.Promoted["test.cap"]["2020-01-31"] != "f1" || c.Promoted["test.cap"]["2020-02-29"] != "f2" {
		t.Errorf("catalog %v, want both promotions", c.Promoted)
	}
	if err := holder.Unlock(); err == nil {
		t.Error("an Unlock without a Lock succeeded")
	}
}

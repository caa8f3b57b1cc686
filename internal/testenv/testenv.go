// Package testenv gives tests the agencies' raw files (through CITEQ_RAW) and a data
// directory ingested from them once per test binary.
package testenv

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/snapshots"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Raw returns the raw-files directory: $CITEQ_RAW, else ../shared/data/raw beside the
// repository. The test is skipped when it is absent.
func Raw(t testing.TB) string {
	t.Helper()
	raw := os.Getenv("CITEQ_RAW")
	if raw == "" {
		raw = filepath.Join(RepoRoot(t), "..", "shared", "data", "raw")
	}
	if _, err := os.Stat(raw); err != nil {
		t.Skipf("raw files not available (%v); set CITEQ_RAW", err)
	}
	abs, _ := filepath.Abs(raw)
	return abs
}

var (
	once    sync.Once
	dataDir string
	onceErr error
)

// Data returns a data directory into which every raw file has been ingested. It is shared by
// the tests of one package and must not be modified; copy it (CopyDir) to change it.
func Data(t testing.TB) string {
	t.Helper()
	raw := Raw(t)
	once.Do(func() {
		dataDir, onceErr = os.MkdirTemp("", "citeq-test-data-")
		if onceErr != nil {
			return
		}
		_, onceErr = ingest.Run(raw, &snapshots.Store{Dir: dataDir}, adapters.All(), io.Discard)
	})
	if onceErr != nil {
		t.Fatalf("ingest the raw files: %v", onceErr)
	}
	return dataDir
}

// FixtureData returns a new data directory into which the fixtures under testdata/fixtures
// (small files in the publishers' layouts, never served by the service itself) have been
// ingested by the given adapters, every snapshot promoted; for tests of a capability that has
// no real file yet.
func FixtureData(t testing.TB, as ...ingest.Adapter) string {
	t.Helper()
	dir := t.TempDir()
	outcomes, err := ingest.Run(filepath.Join(RepoRoot(t), "testdata", "fixtures"), &snapshots.Store{Dir: dir}, as, io.Discard)
	if err != nil {
		t.Fatalf("ingest the fixtures: %v", err)
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("fixture snapshot %s %s not promoted: %v", o.Capability, o.AsOf, o.Reasons)
		}
	}
	return dir
}

// CopyDir copies a directory tree (for tests that modify a data directory).
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Cleanup removes the shared data directory; call it from TestMain after m.Run.
func Cleanup() {
	if dataDir != "" {
		os.RemoveAll(dataDir)
	}
}

// Main is the TestMain of a package whose tests use Data: it runs the tests, removes the
// shared data directory and exits with the tests' code.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

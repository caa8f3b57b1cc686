// Package testenv gives tests the agencies' raw files (through CITEQ_RAW) and a data
// directory ingested from them once for every test binary built from the same code.
package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/internal/flock"
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

// Raw returns the raw-files directory: $CITEQ_RAW (a relative one read from the repository's
// root, as make reads it, not from the test's package folder), else ../shared/data/raw beside
// the repository. The test is skipped when it is absent (failed with CITEQ_REQUIRE_RAW=1).
func Raw(t testing.TB) string {
	t.Helper()
	raw := os.Getenv("CITEQ_RAW")
	switch {
	case raw == "":
		raw = filepath.Join(RepoRoot(t), "..", "shared", "data", "raw")
	case !filepath.IsAbs(raw):
		raw = filepath.Join(RepoRoot(t), raw)
	}
	if _, err := os.Stat(raw); err != nil {
		SkipRaw(t, "raw files not available (%v); set CITEQ_RAW", err)
	}
	abs, _ := filepath.Abs(raw)
	return abs
}

// RequireRawEnv names the environment variable that, set to 1, makes a raw file or folder a
// test reads and does not find fail the test instead of skipping it: make test and .ci/run
// set it, so a run without the publishers' files cannot pass by skipping what it checks.
const RequireRawEnv = "CITEQ_REQUIRE_RAW"

// SkipRaw skips the test because a raw file or folder it reads is not there, or fails it
// when $CITEQ_REQUIRE_RAW is 1.
func SkipRaw(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireRawEnv) == "1" {
		t.Fatalf(format+" ("+RequireRawEnv+"=1)", args...)
	}
	t.Skipf(format, args...)
}

var (
	once    sync.Once
	dataDir string
	private bool // dataDir belongs to this test binary alone (removed by Cleanup)
	onceErr error
)

// FreshEnv names the environment variable that, set to 1, gives each test binary a data
// directory of its own instead of the shared one.
const FreshEnv = "CITEQ_TEST_FRESH_INGEST"

// Data returns a data directory into which every raw file has been ingested. It must not be
// modified; copy it (CopyDir) to change it.
//
// The directory is shared by every test binary built from the same code over the same raw
// files: the first binary of a `go test ./...` run ingests, the others (in parallel or later)
// wait for it and reuse its result. It lives under the system temporary directory, named by a
// digest of the module's non-test Go sources, go.mod, go.sum and the raw files' names, sizes
// and modification times, so any change to the code or the files ingests anew. Shared
// directories unused for a day are removed. With CITEQ_TEST_FRESH_INGEST=1 each binary
// ingests into a directory of its own.
func Data(t testing.TB) string {
	t.Helper()
	raw := Raw(t)
	root := RepoRoot(t)
	once.Do(func() {
		if os.Getenv(FreshEnv) == "1" {
			private = true
			dataDir, onceErr = os.MkdirTemp("", "citeq-test-data-")
			if onceErr == nil {
				onceErr = ingestInto(raw, dataDir)
			}
			return
		}
		dataDir, onceErr = sharedData(root, raw)
	})
	if onceErr != nil {
		t.Fatalf("ingest the raw files: %v", onceErr)
	}
	return dataDir
}

// ingestInto ingests every raw file with every adapter into dir.
func ingestInto(raw, dir string) error {
	_, err := ingest.Run(raw, &snapshots.Store{Dir: dir}, adapters.All(), io.Discard)
	return err
}

// sharedStale is how long a shared data directory may go unused before a later run removes it.
const sharedStale = 24 * time.Hour

// sharedData returns the shared data directory for the code at root and the files in raw,
// ingesting it first under an exclusive lock when no complete one exists.
func sharedData(root, raw string) (string, error) {
	key, err := dataKey(root, raw)
	if err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	base := filepath.Join(os.TempDir(), "citeq-test-ingest")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(base, key+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	defer lock.Close()
	if err := flock.Lock(lock); err != nil {
		return "", fmt.Errorf("shared test data: lock: %w", err)
	}
	defer flock.Unlock(lock)

	dir := filepath.Join(base, key)
	done := filepath.Join(base, key+".done")
	if _, err := os.Stat(done); err == nil {
		now := time.Now()
		_ = os.Chtimes(done, now, now)
		return dir, nil
	}
	removeStale(base, key)
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	if err := ingestInto(raw, dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := os.WriteFile(done, []byte(raw+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("shared test data: %w", err)
	}
	return dir, nil
}

// removeStale removes the shared directories of other keys whose marker is older than
// sharedStale (a directory without a marker is an ingest that never finished).
func removeStale(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".done") || strings.TrimSuffix(name, ".done") == keep {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < sharedStale {
			continue
		}
		k := strings.TrimSuffix(name, ".done")
		os.Remove(filepath.Join(base, name))
		os.RemoveAll(filepath.Join(base, k))
		os.Remove(filepath.Join(base, k+".lock"))
	}
}

// dataKey digests what an ingest depends on: the module's non-test Go sources, go.mod and
// go.sum (by content) and the raw files (by name, size and modification time).
func dataKey(root, raw string) (string, error) {
	h := sha256.New()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "var" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || name == "go.mod" || name == "go.sum" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "src %s %d\n", rel, len(b))
		h.Write(b)
	}
	err = filepath.WalkDir(raw, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(raw, p)
		fmt.Fprintf(h, "raw %s %d %d\n", rel, info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "rawdir %s\n", raw)
	return hex.EncodeToString(h.Sum(nil))[:24], nil
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

// Cleanup removes a data directory of this test binary's own (CITEQ_TEST_FRESH_INGEST=1);
// the shared one stays for the next binary. Call it from TestMain after m.Run.
func Cleanup() {
	if dataDir != "" && private {
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

// HashPlan sets the sha256 and size of each file of p, as ingest does before Build.
func HashPlan(t testing.TB, p *ingest.Plan) {
	t.Helper()
	for i := range p.Files {
		sha, n, err := snapshots.HashFile(p.Files[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		p.Files[i].SHA256, p.Files[i].Bytes = sha, n
	}
}

// OnePlan is the one plan adapter a finds under root (the test fails on none or several),
// its files hashed as ingest hashes them.
func OnePlan(t testing.TB, a ingest.Adapter, root string) ingest.Plan {
	t.Helper()
	plans, err := a.Plan(ingest.NewFinder(root, a.Folders()))
	if err != nil || len(plans) != 1 {
		t.Fatalf("%d plans of %s under %s, one expected (err %v)", len(plans), a.Capability().ID, root, err)
	}
	HashPlan(t, &plans[0])
	return plans[0]
}

// Column is the index of field name among the fact table's columns of capability c (the test
// fails when it is not one).
func Column(t testing.TB, c *capability.Capability, name string) int {
	t.Helper()
	for i, f := range snapshots.Columns(c) {
		if f.Name == name {
			return i
		}
	}
	t.Fatalf("%s has no column %s", c.ID, name)
	return -1
}

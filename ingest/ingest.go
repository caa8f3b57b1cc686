// Package ingest turns the agencies' source files into gated Parquet snapshots. Each source
// has an adapter that finds its files, parses them into fact rows with lineage, and states
// the checks its file must pass; Run drives them all: hash, copy into the raw store, parse,
// write the snapshot, run the gates, promote what passes.
package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/snapshots"
)

// File is one source file an adapter found.
type File struct {
	// Path is where the file is read from: the raw directory during planning, the raw
	// store once Run has copied it.
	Path      string
	SourceID  string
	Publisher string
	URL       string
	Role      string // "data", "reference" or "check"
	SHA256    string
	Bytes     int64
}

// Plan is the set of files one snapshot is built from.
type Plan struct {
	// AsOfHint is the as_of the file names imply, used when a file cannot be parsed.
	AsOfHint string
	Files    []File
}

// Build is what an adapter produced from a plan.
type Build struct {
	AsOf      string
	Rows      []snapshots.Row
	Sources   []snapshots.Source
	Codebooks []snapshots.Codebook
	// Checks are the adapter's own gates (headers found, every data row parsed, totals
	// reconcile with the sheet, second copy agrees, ...).
	Checks   []snapshots.Gate
	Ranges   map[string]snapshots.Range
	Required []string
}

// Adapter ingests one capability.
type Adapter interface {
	Capability() *capability.Capability
	// Version changes whenever the adapter's output for the same files changes.
	Version() string
	// Plan finds the adapter's files under rawDir and groups them into snapshots.
	Plan(rawDir string) ([]Plan, error)
	// Build parses a plan's files (read from File.Path, with File.SHA256 set).
	Build(p Plan) (*Build, error)
	// Known lists the files the adapter can download from their official URLs.
	Known() []fetch.Source
}

// Adapters lists every adapter, in ingest order.
func Adapters() []Adapter {
	return []Adapter{EIA860M{}, NaturalGasPrices{}}
}

// Outcome is what happened to one planned snapshot.
type Outcome struct {
	Capability string
	AsOf       string
	Status     string // promoted, rejected
	Unchanged  bool
	Rows       int
	Reasons    []string
	Manifest   *snapshots.Manifest
	// PreviousAsOf is the latest as_of promoted before this one ("" when none).
	PreviousAsOf string
	PreviousRows int
}

// Run ingests every file the adapters find under rawDir into store, writing one progress
// line per file and per snapshot to log.
func Run(rawDir string, store *snapshots.Store, adapters []Adapter, log io.Writer) ([]Outcome, error) {
	if _, err := os.Stat(rawDir); err != nil {
		return nil, fmt.Errorf("ingest: raw directory: %w", err)
	}
	var out []Outcome
	for _, a := range adapters {
		plans, err := a.Plan(rawDir)
		if err != nil {
			return out, fmt.Errorf("ingest %s: %w", a.Capability().ID, err)
		}
		if len(plans) == 0 {
			fmt.Fprintf(log, "%-20s no source files found under %s\n", a.Capability().ID, rawDir)
		}
		for _, p := range plans {
			o, err := runPlan(a, p, rawDir, store, log)
			if err != nil {
				return out, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

func fingerprint(a Adapter, p Plan) string {
	var parts []string
	for _, f := range p.Files {
		parts = append(parts, f.Role+":"+filepath.Base(f.Path)+":"+f.SHA256)
	}
	sort.Strings(parts)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n%s\n%s", a.Capability().ID, snapshots.SchemaVersion, a.Version(), strings.Join(parts, "\n"))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func runPlan(a Adapter, p Plan, rawDir string, store *snapshots.Store, log io.Writer) (Outcome, error) {
	capID := a.Capability().ID
	raw := store.Raw()
	for i := range p.Files {
		f := &p.Files[i]
		sha, n, err := snapshots.HashFile(f.Path)
		if err != nil {
			return Outcome{}, err
		}
		stored, err := raw.Put(f.Path, sha)
		if err != nil {
			return Outcome{}, err
		}
		rel, _ := filepath.Rel(rawDir, f.Path)
		fmt.Fprintf(log, "%-20s %-60s %10d bytes  sha256 %s…\n", capID, rel, n, sha[:12])
		f.Path, f.SHA256, f.Bytes = stored, sha, n
	}
	fp := fingerprint(a, p)

	cat, err := store.ReadCatalog()
	if err != nil {
		return Outcome{}, err
	}
	prevAsOf, prevRows, err := latestPromoted(store, cat, capID)
	if err != nil {
		return Outcome{}, err
	}
	// The same files through the same adapter: nothing to do.
	if existing := findSnapshot(store, capID, fp); existing != nil {
		o := Outcome{Capability: capID, AsOf: existing.AsOf, Status: existing.Status, Unchanged: true, Rows: existing.Rows, Reasons: existing.Reasons, Manifest: existing}
		if existing.Status == snapshots.Promoted && cat.Promoted[capID][existing.AsOf] != fp {
			if err := store.Promote(existing); err != nil {
				return o, err
			}
		}
		return o, nil
	}

	m := &snapshots.Manifest{Capability: capID, Fingerprint: fp, SchemaVersion: snapshots.SchemaVersion, AsOf: p.AsOfHint}
	b, buildErr := a.Build(p)
	if buildErr != nil {
		m.Gates = []snapshots.Gate{{Name: "source_parses", Detail: buildErr.Error()}}
		m.Sources = sourcesOf(p)
	} else {
		m.AsOf, m.Sources, m.Rows = b.AsOf, b.Sources, len(b.Rows)
		m.RowsBySheet = rowsBySheet(a.Capability(), b.Rows)
		m.Gates = append(m.Gates, snapshots.Gate{Name: "source_parses", Passed: true, Detail: fmt.Sprintf("%d files read", len(p.Files))})
		m.Gates = append(m.Gates, b.Checks...)
		m.Gates = append(m.Gates, snapshots.RunGates(snapshots.GateInput{
			Cap: a.Capability(), Rows: b.Rows, Sources: b.Sources, Ranges: b.Ranges, Required: b.Required, PreviousRows: prevRows,
		})...)
	}
	if m.AsOf == "" {
		m.AsOf = "unknown"
	}
	m.Gates = append(m.Gates, immutableGate(cat, capID, m.AsOf, fp))
	m.Status = snapshots.Rejected
	if m.Passed() {
		m.Status = snapshots.Promoted
	}
	for _, g := range m.Gates {
		if !g.Passed {
			m.Reasons = append(m.Reasons, g.Name+": "+g.Detail)
		}
	}
	if err := writeSnapshot(store, m, b); err != nil {
		return Outcome{}, err
	}
	if m.Status == snapshots.Promoted {
		if err := store.Promote(m); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Capability: capID, AsOf: m.AsOf, Status: m.Status, Rows: m.Rows, Reasons: m.Reasons, Manifest: m,
		PreviousAsOf: prevAsOf, PreviousRows: prevRows}, nil
}

// immutableGate keeps a served as_of a pure function of its files: a different set of files
// claiming an as_of that is already promoted is refused; a correction must arrive as a new
// document identity with its own as_of.
func immutableGate(cat *snapshots.Catalog, capID, asOf, fp string) snapshots.Gate {
	g := snapshots.Gate{Name: "as_of_immutable", Passed: true, Detail: "as_of " + asOf + " not yet served"}
	if cur, ok := cat.Promoted[capID][asOf]; ok && cur != fp {
		g.Passed = false
		g.Detail = fmt.Sprintf("as_of %s is already served from snapshot %s built from other files; a pinned as_of never changes", asOf, cur)
	}
	return g
}

func sourcesOf(p Plan) []snapshots.Source {
	var out []snapshots.Source
	for _, f := range p.Files {
		out = append(out, snapshots.Source{SourceID: f.SourceID, Publisher: f.Publisher, URL: f.URL, File: filepath.Base(f.Path),
			SHA256: f.SHA256, Bytes: f.Bytes, Role: f.Role})
	}
	return out
}

func rowsBySheet(c *capability.Capability, rows []snapshots.Row) map[string]int {
	j := 0
	for i, f := range snapshots.Columns(c) {
		if f.Name == capability.ColSheet {
			j = i
		}
	}
	out := map[string]int{}
	for _, r := range rows {
		s, _ := r[j].(string)
		out[s]++
	}
	return out
}

func latestPromoted(store *snapshots.Store, cat *snapshots.Catalog, capID string) (string, int, error) {
	best := ""
	for asOf := range cat.Promoted[capID] {
		if asOf > best {
			best = asOf
		}
	}
	if best == "" {
		return "", 0, nil
	}
	m, err := snapshots.ReadManifest(store.SnapshotDir(capID, best, cat.Promoted[capID][best]))
	if err != nil {
		return "", 0, err
	}
	return best, m.Rows, nil
}

func findSnapshot(store *snapshots.Store, capID, fp string) *snapshots.Manifest {
	paths, _ := filepath.Glob(filepath.Join(store.Dir, "snapshots", capID, "*", fp, snapshots.ManifestFile))
	for _, p := range paths {
		if m, err := snapshots.ReadManifest(filepath.Dir(p)); err == nil {
			return m
		}
	}
	return nil
}

// writeSnapshot writes the snapshot into a temporary directory and renames it into place,
// so a crash leaves either no snapshot or a whole one.
func writeSnapshot(store *snapshots.Store, m *snapshots.Manifest, b *Build) error {
	final := store.SnapshotDir(m.Capability, m.AsOf, m.Fingerprint)
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".build-")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer os.RemoveAll(tmp)
	if m.Status == snapshots.Promoted {
		if err := snapshots.WriteFacts(filepath.Join(tmp, snapshots.FactsFile), snapshots.Columns(capability.ByID(m.Capability)), b.Rows); err != nil {
			return err
		}
		if err := snapshots.WriteJSONAtomic(filepath.Join(tmp, snapshots.CodebooksFile), b.Codebooks); err != nil {
			return err
		}
	}
	if err := snapshots.WriteJSONAtomic(filepath.Join(tmp, snapshots.ManifestFile), m); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("snapshot: %w", err)
	}
	m.Dir = final
	return nil
}

// FindFiles walks rawDir and returns the paths whose base name matches match, sorted.
func FindFiles(rawDir string, match func(name string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(rawDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && match(d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find files under %s: %w", rawDir, err)
	}
	sort.Strings(out)
	return out, nil
}

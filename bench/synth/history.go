package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// A history is a data directory serving many snapshots of one capability, as years of a
// publisher's vintages would: snapshot i of n has the as_of n−1−i days before the source
// snapshot's (the last is the source's own date) and the source's rows, every one with its
// Spec.Perturb measures multiplied by a factor in [MinFactor, MaxFactor) of its own (the
// seeded generator's, counted over the rows of every snapshot in turn), so no two snapshots
// hold the same numbers and each is a fact table of its own on disk and in the page cache.
// Every other column, lineage included, is the source row's, so every citation verifies
// against the real raw file. It measures how one server holds many snapshots, not how a
// queue grows: every snapshot has the source's rows and groups.

// HistoryVersion changes whenever BuildHistory's output for the same source, count and seed
// changes; it is part of the cache key.
const HistoryVersion = 1

// HistoryFile is the description of a generated history, written beside its catalog.
const HistoryFile = "history.json"

// HistoryInfo describes a generated history.
type HistoryInfo struct {
	Key               string `json:"key"`
	Capability        string `json:"capability"`
	SourceAsOf        string `json:"source_as_of"`
	SourceFingerprint string `json:"source_fingerprint"`
	// Snapshots is how many; each has RowsPerSnapshot rows (the source's).
	Snapshots       int    `json:"snapshots"`
	RowsPerSnapshot int    `json:"rows_per_snapshot"`
	FirstAsOf       string `json:"first_as_of"`
	LastAsOf        string `json:"last_as_of"`
	Seed            uint64 `json:"seed"`
	Version         int    `json:"generator_version"`
	// FactsBytes is the size of every fact table together.
	FactsBytes  int64   `json:"facts_bytes"`
	GeneratedAt string  `json:"generated_at"`
	Seconds     float64 `json:"seconds"`
}

// HistoryKey names the history of n snapshots of src with seed (see Key).
func HistoryKey(src *Source, n int, seed uint64) string {
	return fmt.Sprintf("history-%s-%s-%s-n%d-s%d-g%d-schema%d-spec%s", src.Cap.ID, src.Manifest.AsOf, src.Manifest.Fingerprint,
		n, seed, HistoryVersion, snapshots.SchemaVersion, SpecHash(src.Cap))
}

// ReadHistoryInfo reads the description of a generated history; it fails when dir is not a
// complete one.
func ReadHistoryInfo(dir string) (*HistoryInfo, error) {
	return readJSON[HistoryInfo](filepath.Join(dir, HistoryFile))
}

// BuildHistory writes the history of n snapshots of src with seed as the data directory
// root/HistoryKey(…), unless it exists, and returns its description and directory. It is
// written under a temporary name and renamed into place. The catalog promotes every
// snapshot; no promotion event is recorded (nothing is announced of a benchmark's data).
func BuildHistory(root string, src *Source, n int, seed uint64) (*HistoryInfo, string, error) {
	if n < 1 {
		return nil, "", fmt.Errorf("synth: a history needs at least one snapshot, got %d", n)
	}
	key := HistoryKey(src, n, seed)
	final := filepath.Join(root, key)
	if info, err := ReadHistoryInfo(final); err == nil {
		return info, final, nil
	}
	last, err := time.Parse(time.DateOnly, src.Manifest.AsOf)
	if err != nil {
		return nil, "", fmt.Errorf("synth: as_of %q: %w", src.Manifest.AsOf, err)
	}
	spec, err := SpecFor(src.Cap)
	if err != nil {
		return nil, "", err
	}
	cols := snapshots.Columns(src.Cap)
	perturb, err := columnIndexes(src.Cap, cols, spec.Perturb, capability.Number)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, "", fmt.Errorf("synth: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".build-")
	if err != nil {
		return nil, "", fmt.Errorf("synth: %w", err)
	}
	defer os.RemoveAll(tmp)
	t0 := time.Now()
	store := &snapshots.Store{Dir: tmp}
	for _, s := range src.Manifest.Sources {
		p := src.Store.Raw().Find(s.SHA256)
		if p == "" {
			return nil, "", fmt.Errorf("synth: raw file %s (%s) is not in %s; citations could not be verified", s.File, s.SHA256, src.Store.Dir)
		}
		if _, err := store.Raw().Put(p, s.SHA256); err != nil {
			return nil, "", err
		}
	}
	info := &HistoryInfo{Key: key, Capability: src.Cap.ID, SourceAsOf: src.Manifest.AsOf, SourceFingerprint: src.Manifest.Fingerprint,
		Snapshots: n, RowsPerSnapshot: len(src.Rows), Seed: seed, Version: HistoryVersion}
	cat := &snapshots.Catalog{Promoted: map[string]map[string]string{src.Cap.ID: {}}}
	m := len(src.Rows)
	rows := make([]snapshots.Row, m)
	cells := make([]any, m*len(cols))
	for i := range n {
		asOf := last.AddDate(0, 0, i-(n-1)).Format(time.DateOnly)
		for r, srcRow := range src.Rows {
			row := snapshots.Row(cells[r*len(cols) : (r+1)*len(cols) : (r+1)*len(cols)])
			copy(row, srcRow)
			f := Factor(seed, i*m+r)
			for _, c := range perturb {
				if v, ok := row[c].(float64); ok {
					row[c] = v * f
				}
			}
			rows[r] = row
		}
		man := *src.Manifest
		man.AsOf, man.Fingerprint, man.Status, man.Reasons = asOf, Fingerprint(key+"@"+asOf), snapshots.Promoted, nil
		man.RowsBySheet = RowsBySheet(src.Cap, rows)
		man.Gates = append([]snapshots.Gate{{Name: "synthetic_history", Passed: true, Detail: fmt.Sprintf(
			"synthetic history for benchmarks, not agency data: snapshot %d of %d, the %d rows of snapshot %s (as_of %s) with %s multiplied by one factor in [%g, %g] per row, seed %d, generator v%d; the gates below were run on the source snapshot",
			i+1, n, m, src.Manifest.Fingerprint, src.Manifest.AsOf, strings.Join(spec.Perturb, ", "), MinFactor, MaxFactor, seed, HistoryVersion)}},
			src.Manifest.Gates...)
		dir := store.SnapshotDir(man.Capability, man.AsOf, man.Fingerprint)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", fmt.Errorf("synth: %w", err)
		}
		facts := filepath.Join(dir, snapshots.FactsFile)
		if err := snapshots.WriteFacts(facts, cols, rows); err != nil {
			return nil, "", err
		}
		st, err := os.Stat(facts)
		if err != nil {
			return nil, "", err
		}
		info.FactsBytes += st.Size()
		if err := snapshots.WriteJSONAtomic(filepath.Join(dir, snapshots.CodebooksFile), Codebooks(src, rows)); err != nil {
			return nil, "", err
		}
		if err := snapshots.WriteJSONAtomic(filepath.Join(dir, snapshots.ManifestFile), &man); err != nil {
			return nil, "", err
		}
		cat.Promoted[man.Capability][man.AsOf] = man.Fingerprint
		if i == 0 {
			info.FirstAsOf = asOf
		}
		info.LastAsOf = asOf
	}
	if err := snapshots.WriteJSONAtomic(store.CatalogPath(), cat); err != nil {
		return nil, "", err
	}
	info.GeneratedAt, info.Seconds = time.Now().UTC().Format(time.RFC3339), time.Since(t0).Seconds()
	if err := snapshots.WriteJSONAtomic(filepath.Join(tmp, HistoryFile), info); err != nil {
		return nil, "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, HistoryFile)); statErr != nil {
			return nil, "", fmt.Errorf("synth: %w", err)
		}
		info, err := ReadHistoryInfo(final) // another run finished it first
		return info, final, err
	}
	return info, final, nil
}

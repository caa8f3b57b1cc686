package synth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// InfoFile is the description of a generated data directory, written beside its catalog.
const InfoFile = "synth.json"

// Info describes one generated data directory.
type Info struct {
	Key               string `json:"key"`
	Capability        string `json:"capability"`
	AsOf              string `json:"as_of"`
	SourceFingerprint string `json:"source_fingerprint"`
	SourceRows        int    `json:"source_rows"`
	Rows              int    `json:"rows"`
	Seed              uint64 `json:"seed"`
	Version           int    `json:"generator_version"`
	// Fingerprint is the synthetic snapshot's fingerprint (derived from Key).
	Fingerprint string `json:"fingerprint"`
	GeneratedAt string `json:"generated_at"`
	// Seconds is the time spent generating and writing the directory.
	Seconds float64 `json:"seconds"`
	// PeakRSSBytes is the generating process's peak resident set, when it recorded it.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

// Key names a scale-up: capability, source snapshot (as_of and fingerprint, which covers the
// raw files and the adapter version), rows, seed, generator and schema versions. Anything
// that changes the generated files changes the key.
func Key(src *Source, opt Options) string {
	return fmt.Sprintf("%s-%s-%s-n%d-s%d-g%d-schema%d", src.Cap.ID, src.Manifest.AsOf, src.Manifest.Fingerprint,
		opt.Rows, opt.Seed, Version, snapshots.SchemaVersion)
}

// Fingerprint is the fingerprint of the synthetic snapshot with the given key.
func Fingerprint(key string) string {
	sum := sha256.Sum256([]byte("synth\n" + key))
	return hex.EncodeToString(sum[:])[:16]
}

// Dir is the data directory of a scale-up under the cache root.
func Dir(root string, src *Source, opt Options) string {
	return filepath.Join(root, Key(src, opt))
}

// ReadInfo reads the description of a generated data directory; it fails when dir is not a
// complete one.
func ReadInfo(dir string) (*Info, error) {
	b, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return nil, err
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", filepath.Join(dir, InfoFile), err)
	}
	return &info, nil
}

// WriteInfo replaces the description of a generated data directory.
func WriteInfo(dir string, info *Info) error {
	return snapshots.WriteJSONAtomic(filepath.Join(dir, InfoFile), info)
}

// Build generates the scale-up of src given by opt and writes it as the data directory
// Dir(root, src, opt), unless that directory already exists. It is written under a
// temporary name and renamed into place, so a directory under its final name is complete.
func Build(root string, src *Source, opt Options) (*Info, error) {
	key := Key(src, opt)
	final := filepath.Join(root, key)
	if info, err := ReadInfo(final); err == nil {
		return info, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	tmp, err := os.MkdirTemp(root, ".build-")
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	defer os.RemoveAll(tmp)

	t0 := time.Now()
	g, err := NewGenerator(src, opt)
	if err != nil {
		return nil, err
	}
	fp := Fingerprint(key)
	spec := Specs[src.Cap.ID]
	detail := fmt.Sprintf("synthetic scale-up for benchmarks, not agency data: %d rows generated from the %d rows of snapshot %s (as_of %s), seed %d, generator v%d; "+
		"replica k ≥ 1 multiplies %s by one factor in [%g, %g] per row and appends ~k to %s; dimensions and lineage columns are the source rows'; the gates below were run on the source snapshot",
		g.Rows(), len(src.Rows), src.Manifest.Fingerprint, src.Manifest.AsOf, opt.Seed, Version,
		strings.Join(spec.Perturb, ", "), MinFactor, MaxFactor, strings.Join(spec.Suffix, ", "))
	if _, err := WriteDataDir(tmp, src, g, PartRows, fp, detail); err != nil {
		return nil, err
	}
	info := &Info{Key: key, Capability: src.Cap.ID, AsOf: src.Manifest.AsOf, SourceFingerprint: src.Manifest.Fingerprint,
		SourceRows: len(src.Rows), Rows: g.Rows(), Seed: opt.Seed, Version: Version, Fingerprint: fp,
		GeneratedAt: time.Now().UTC().Format(time.RFC3339), Seconds: time.Since(t0).Seconds()}
	if err := WriteInfo(tmp, info); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(final, InfoFile)); statErr != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
		// Another run finished the same directory first; it holds the same files.
		return ReadInfo(final)
	}
	return info, nil
}

// PartRows is the row count of the parts a scale-up's fact table is written in: the
// row-group size of snapshots.WriteFacts, so each part is one row group and the spliced file
// has the row groups one WriteFacts call over every row would write.
const PartRows = 1 << 20

// WriteDataDir writes the rows of g as the only snapshot of a new data directory dir, laid
// out as ingest lays one out: the raw store holds the source snapshot's raw files (so
// citations verify); the snapshot directory holds the fact table (see writeFacts), the
// source's manifest with the row counts, the fingerprint and a first gate stating the
// scale-up (detail), and the source's codebooks with row counts recounted; the catalog
// promotes it.
func WriteDataDir(dir string, src *Source, g *Generator, partRows int, fingerprint, detail string) (*snapshots.Manifest, error) {
	store := &snapshots.Store{Dir: dir}
	for _, s := range src.Manifest.Sources {
		p := src.Store.Raw().Find(s.SHA256)
		if p == "" {
			return nil, fmt.Errorf("synth: raw file %s (%s) is not in %s; citations could not be verified", s.File, s.SHA256, src.Store.Dir)
		}
		if _, err := store.Raw().Put(p, s.SHA256); err != nil {
			return nil, err
		}
	}
	m := *src.Manifest
	m.Fingerprint = fingerprint
	m.Status = snapshots.Promoted
	m.Rows = g.Rows()
	m.Reasons = nil
	m.Gates = append([]snapshots.Gate{{Name: "synthetic_scale_up", Passed: true, Detail: detail}}, src.Manifest.Gates...)
	snapDir := store.SnapshotDir(m.Capability, m.AsOf, m.Fingerprint)
	if err := os.MkdirAll(snapDir, 0o755); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	t := newTally(src.Cap)
	if err := writeFacts(filepath.Join(snapDir, snapshots.FactsFile), snapshots.Columns(src.Cap), g, partRows, t); err != nil {
		return nil, err
	}
	m.RowsBySheet = t.sheets
	if err := snapshots.WriteJSONAtomic(filepath.Join(snapDir, snapshots.CodebooksFile), t.codebooks(src.Codebooks)); err != nil {
		return nil, err
	}
	if err := snapshots.WriteJSONAtomic(filepath.Join(snapDir, snapshots.ManifestFile), &m); err != nil {
		return nil, err
	}
	m.Dir = snapDir
	if err := store.Promote(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// writeFacts writes the rows of g as the Parquet fact table at path, counting them into t.
// snapshots.WriteFacts writes them part by part, partRows rows at a time from one reused
// buffer, into temporary files whose row groups are then spliced into path. For a source
// row group whose schema, encodings and codec match the output's, as WriteFacts' own do,
// parquet-go's Writer.WriteRowGroup copies the compressed pages, statistics and page index
// verbatim: every page of the result is one WriteFacts wrote, and memory holds one part, not
// the whole table.
func writeFacts(path string, cols []capability.Field, g *Generator, partRows int, t *tally) error {
	var parts []string
	defer func() {
		for _, p := range parts {
			os.Remove(p)
		}
	}()
	buf := make([]snapshots.Row, min(partRows, g.Rows()))
	for lo := 0; lo < g.Rows(); lo += partRows {
		rows := buf[:min(partRows, g.Rows()-lo)]
		g.Fill(rows, lo)
		t.add(rows)
		p := filepath.Join(filepath.Dir(path), fmt.Sprintf(".part-%05d.parquet", len(parts)))
		parts = append(parts, p)
		if err := snapshots.WriteFacts(p, cols, rows); err != nil {
			return err
		}
	}
	if len(parts) == 1 {
		return os.Rename(parts[0], path)
	}
	return splice(path, parts, partRows)
}

// splice writes the row groups of the Parquet files parts, in order, as the file at path,
// with the first part's schema (and so its encodings and codecs).
func splice(path string, parts []string, maxRows int) error {
	out, err := os.CreateTemp(filepath.Dir(path), ".facts-*")
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var w *parquet.GenericWriter[any]
	for _, p := range parts {
		err := withParquetFile(p, func(pf *parquet.File) error {
			if w == nil {
				w = parquet.NewGenericWriter[any](out, pf.Schema(), parquet.MaxRowsPerRowGroup(int64(maxRows)))
			}
			for _, rg := range pf.RowGroups() {
				if _, err := w.WriteRowGroup(rg); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("synth: splice %s: %w", p, err)
		}
	}
	if w == nil {
		return fmt.Errorf("synth: splice %s: no parts", path)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("synth: splice %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("synth: splice %s: %w", path, err)
	}
	return os.Rename(out.Name(), path)
}

// withParquetFile opens the Parquet file at path for fn.
func withParquetFile(path string, fn func(*parquet.File) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return err
	}
	return fn(pf)
}

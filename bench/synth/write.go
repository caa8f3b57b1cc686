package synth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
// raw files and the adapter version), rows, seed, generator and schema versions, and a hash
// of the capability's Spec (SpecHash: which columns are perturbed and suffixed, derived from
// its definition). Anything that changes the generated files changes the key.
func Key(src *Source, opt Options) string {
	return fmt.Sprintf("%s-%s-%s-n%d-s%d-g%d-schema%d-spec%s", src.Cap.ID, src.Manifest.AsOf, src.Manifest.Fingerprint,
		opt.Rows, opt.Seed, Version, snapshots.SchemaVersion, SpecHash(src.Cap))
}

// SpecHash is the first 8 hex digits of the SHA-256 of c's Spec (its perturbed and suffixed
// columns, or the reason it has none), so a change of the definition that changes the
// scale-up changes the cache key.
func SpecHash(c *capability.Capability) string {
	spec, err := SpecFor(c)
	text := "perturb " + strings.Join(spec.Perturb, ",") + "\nsuffix " + strings.Join(spec.Suffix, ",")
	if err != nil {
		text = "error " + err.Error()
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:4])
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
func ReadInfo(dir string) (*Info, error) { return readJSON[Info](filepath.Join(dir, InfoFile)) }

// readJSON reads the JSON file at path as a T.
func readJSON[T any](path string) (*T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", path, err)
	}
	return &v, nil
}

// WriteInfo replaces the description of a generated data directory.
func WriteInfo(dir string, info *Info) error {
	return snapshots.WriteJSONAtomic(filepath.Join(dir, InfoFile), info)
}

// Build generates the scale-up of src given by opt and writes it as the data directory
// Dir(root, src, opt), unless that directory already exists, with workers parts of PartRows
// rows generated at a time (see Parts). It is written under a temporary name and renamed
// into place, so a directory under its final name is complete.
func Build(root string, src *Source, opt Options, workers int) (*Info, error) {
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
	spec, err := SpecFor(src.Cap)
	if err != nil {
		return nil, err
	}
	detail := fmt.Sprintf("synthetic scale-up for benchmarks, not agency data: %d rows generated from the %d rows of snapshot %s (as_of %s), seed %d, generator v%d; "+
		"replica k ≥ 1 multiplies %s by one factor in [%g, %g] per row and appends ~k to %s; dimensions and lineage columns are the source rows'; the gates below were run on the source snapshot",
		g.Rows(), len(src.Rows), src.Manifest.Fingerprint, src.Manifest.AsOf, opt.Seed, Version,
		strings.Join(spec.Perturb, ", "), MinFactor, MaxFactor, strings.Join(spec.Suffix, ", "))
	if _, err := WriteDataDir(tmp, src, g, Parts{Rows: PartRows, Workers: workers}, fp, detail); err != nil {
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

// Parts says how a fact table is written: in parts of Rows rows, Workers of them generated
// and encoded at the same time (each worker holds one part in memory). The bytes written
// depend on Rows, never on Workers.
type Parts struct {
	Rows    int
	Workers int
}

// WriteDataDir writes the rows of g as the only snapshot of a new data directory dir, laid
// out as ingest lays one out: the raw store holds the source snapshot's raw files (so
// citations verify); the snapshot directory holds the fact table (see writeFacts), the
// source's manifest with the row counts, the fingerprint and a first gate stating the
// scale-up (detail), and the source's codebooks with row counts recounted; the catalog
// promotes it.
func WriteDataDir(dir string, src *Source, g *Generator, parts Parts, fingerprint, detail string) (*snapshots.Manifest, error) {
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
	if err := writeFacts(filepath.Join(snapDir, snapshots.FactsFile), snapshots.Columns(src.Cap), g, parts, t); err != nil {
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
// The table is written part by part: snapshots.WriteFacts writes parts of w.Rows rows, each
// generated into a buffer its worker reuses, into temporary files; each part's row groups
// are appended to path as soon as the parts before it are, and its file is removed. For a
// source row group whose schema, encodings and codec match the output's, as WriteFacts' own
// do, parquet-go's Writer.WriteRowGroup copies the compressed pages, statistics and page
// index verbatim: every page of the result is one WriteFacts wrote. At most w.Workers parts
// are generated or waiting at a time, so memory holds that many parts and the disk the
// table and that many parts, whatever the row count; the bytes do not depend on w.Workers.
func writeFacts(path string, cols []capability.Field, g *Generator, w Parts, t *tally) error {
	if w.Rows < 1 {
		return fmt.Errorf("synth: part rows must be positive, got %d", w.Rows)
	}
	n := (g.Rows() + w.Rows - 1) / w.Rows
	workers := max(1, min(w.Workers, n))
	partPath := func(i int) string {
		return filepath.Join(filepath.Dir(path), fmt.Sprintf(".part-%06d.parquet", i))
	}
	done := make([]chan error, n)
	for i := range done {
		done[i] = make(chan error, 1)
	}
	// window holds a token for every part handed to a worker and not yet appended.
	window := make(chan struct{}, workers)
	jobs := make(chan int)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	tallies := make([]*tally, workers)
	var wg sync.WaitGroup
	for wi := range workers {
		tallies[wi] = newTally(g.src.Cap)
		wg.Add(1)
		go func(tl *tally) {
			defer wg.Done()
			buf := make([]snapshots.Row, min(w.Rows, g.Rows()))
			for i := range jobs {
				lo := i * w.Rows
				rows := buf[:min(w.Rows, g.Rows()-lo)]
				g.Fill(rows, lo)
				tl.add(rows)
				done[i] <- snapshots.WriteFacts(partPath(i), cols, rows)
			}
		}(tallies[wi])
	}
	err := appendParts(path, n, w.Rows, partPath, done, window)
	close(stop)
	wg.Wait()
	for i := range n {
		os.Remove(partPath(i)) // left behind by a failure only
	}
	if err != nil {
		return err
	}
	for _, tl := range tallies {
		t.merge(tl)
	}
	return nil
}

// appendParts waits for each of the n parts in order (done[i] delivers the error of writing
// part i to partPath(i)), appends its row groups to the file at path and removes it, then
// frees its slot in window. A single part is renamed into place.
func appendParts(path string, n, maxRows int, partPath func(int) string, done []chan error, window chan struct{}) error {
	if n == 1 {
		if err := <-done[0]; err != nil {
			return err
		}
		return os.Rename(partPath(0), path)
	}
	sp, err := newSplicer(path, maxRows)
	if err != nil {
		return err
	}
	defer sp.abort()
	for i := range n {
		if err := <-done[i]; err != nil {
			return err
		}
		if err := sp.add(partPath(i)); err != nil {
			return err
		}
		os.Remove(partPath(i))
		<-window
	}
	return sp.finish()
}

// splice writes the row groups of the Parquet files parts, in order, as the file at path,
// with the first part's schema (and so its encodings and codecs).
func splice(path string, parts []string, maxRows int) error {
	sp, err := newSplicer(path, maxRows)
	if err != nil {
		return err
	}
	defer sp.abort()
	for _, p := range parts {
		if err := sp.add(p); err != nil {
			return err
		}
	}
	return sp.finish()
}

// splicer appends the row groups of Parquet files, one file after the other, to a new file
// written under a temporary name beside path and renamed to path when finished.
type splicer struct {
	path    string
	maxRows int
	out     *os.File
	w       *parquet.GenericWriter[any]
	done    bool
}

func newSplicer(path string, maxRows int) (*splicer, error) {
	out, err := os.CreateTemp(filepath.Dir(path), ".facts-*")
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	return &splicer{path: path, maxRows: maxRows, out: out}, nil
}

// add appends the row groups of the Parquet file at part; the first part's schema is the
// output's.
func (sp *splicer) add(part string) error {
	err := withParquetFile(part, func(pf *parquet.File) error {
		if sp.w == nil {
			sp.w = parquet.NewGenericWriter[any](sp.out, pf.Schema(), parquet.MaxRowsPerRowGroup(int64(sp.maxRows)))
		}
		for _, rg := range pf.RowGroups() {
			if _, err := sp.w.WriteRowGroup(rg); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("synth: splice %s: %w", part, err)
	}
	return nil
}

// finish writes the footer and renames the file to its path.
func (sp *splicer) finish() error {
	if sp.w == nil {
		return fmt.Errorf("synth: splice %s: no parts", sp.path)
	}
	if err := sp.w.Close(); err != nil {
		return fmt.Errorf("synth: splice %s: %w", sp.path, err)
	}
	if err := sp.out.Close(); err != nil {
		return fmt.Errorf("synth: splice %s: %w", sp.path, err)
	}
	if err := os.Rename(sp.out.Name(), sp.path); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	sp.done = true
	return nil
}

// abort removes the unfinished file, unless finish renamed it into place.
func (sp *splicer) abort() {
	if !sp.done {
		sp.out.Close()
		os.Remove(sp.out.Name())
	}
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

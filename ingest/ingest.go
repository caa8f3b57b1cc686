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
	"slices"
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
	Role      string // RoleData, RoleReference or RoleCheck
	SHA256    string
	Bytes     int64
	// Derived marks a third party's extract or re-save of the publisher's file; OriginalURL
	// is then the publisher's own address of the data (URL is where the copy came from).
	Derived     bool
	OriginalURL string
}

// Plan is the set of files one document is read from. For a capability whose documents
// restate the whole (capability.Restate) a plan is one snapshot; for one whose documents
// complement each other (capability.Complement) Run composes the snapshots from the plans'
// documents (documents.go).
type Plan struct {
	// AsOfHint is the as_of the file names imply, used when a file cannot be parsed.
	AsOfHint string
	// Document is the identity of the document the plan reads: two plans with the same
	// Document are versions of one document, the later (by as_of) replacing the earlier.
	// Empty, it is the names of the plan's data files (a publisher that keeps a document's
	// file name across versions).
	Document string
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
	// Cells is the column each field was read from, per file and sheet (Rows.Cells): the
	// conformance suite compares every such value with the literal cell it cites.
	Cells map[CellKey]map[string]int
	// Coverage lists the periods the document covers only in part (a year to date, a day
	// cut short), each saying how to get the complete figure; answers over them say so.
	Coverage []snapshots.Coverage

	// documents and revisions are set by the composition of complementing documents.
	documents []snapshots.Document
	revisions []snapshots.Revision
}

// Adapter ingests one capability.
type Adapter interface {
	Capability() *capability.Capability
	// Version changes whenever the adapter's output for the same files changes.
	Version() string
	// Folders lists the folders of the raw directory the adapter reads, relative to it and
	// slash-separated (e.g. "eia/eia860m"): Plan sees files in these folders only.
	Folders() []string
	// Plan finds the adapter's files and groups them into snapshots.
	Plan(files *Finder) ([]Plan, error)
	// Build parses a plan's files (read from File.Path, with File.SHA256 set).
	Build(p Plan) (*Build, error)
	// Known lists the files the adapter can download from their official URLs.
	Known() []fetch.Source
}

// Named is implemented by an adapter that shares its capability with another (two forms of
// a publisher's data): its name tells them apart.
type Named interface {
	Name() string
}

// NameOf names adapter a: its capability's identifier, and its own name when it has one.
func NameOf(a Adapter) string {
	if n, ok := a.(Named); ok && n.Name() != "" {
		return a.Capability().ID + " " + n.Name()
	}
	return a.Capability().ID
}

// Pager is implemented by an adapter whose files also come from an API read page by page
// with a key from configuration: ingest --fetch walks each request's pages
// (fetch.FetchPages) into the adapter's folders.
type Pager interface {
	Paged() []fetch.Pages
}

// Finder finds an adapter's files inside the folders it declares, and nowhere else under
// the raw directory: publishers' file names may repeat across folders.
type Finder struct {
	root    string
	folders []string
}

// NewFinder is a Finder over the given folders of the raw directory root.
func NewFinder(root string, folders []string) *Finder { return &Finder{root: root, folders: folders} }

// Find returns the paths of the files in the finder's folders (and below them) whose base
// name matches match, sorted. A declared folder that does not exist holds no file.
func (f *Finder) Find(match func(name string) bool) ([]string, error) {
	var out []string
	for _, dir := range f.folders {
		d := filepath.Join(f.root, filepath.FromSlash(dir))
		if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && match(e.Name()) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find files under %s: %w", d, err)
		}
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// Named returns the paths of the files named exactly name.
func (f *Finder) Named(name string) ([]string, error) {
	return f.Find(func(n string) bool { return n == name })
}

// Outcome is what happened to one planned snapshot, or to an adapter that failed.
type Outcome struct {
	Capability string
	AsOf       string
	Status     string // promoted, rejected, failed
	Unchanged  bool
	Rows       int
	Reasons    []string
	Manifest   *snapshots.Manifest
	// PreviousAsOf is the promoted as_of whose rows the row_count_not_collapsed gate
	// compared with ("" when none): the one dated as this one or just before it.
	PreviousAsOf string
	PreviousRows int
	// Err is why the adapter could not plan or its snapshot could not be stored (Status
	// failed); nothing of it was promoted.
	Err error
}

// Failed is the Status of an Outcome whose adapter could not plan or store its snapshot.
const Failed = "failed"

// Run ingests every file the adapters find under rawDir into store, writing one progress
// line per file and per snapshot to log. An adapter that fails does not stop the others:
// its failure is an Outcome with Status Failed, and Run returns an error naming every
// failed adapter after all have run.
func Run(rawDir string, store *snapshots.Store, adapters []Adapter, log io.Writer) ([]Outcome, error) {
	if _, err := os.Stat(rawDir); err != nil {
		return nil, fmt.Errorf("ingest: raw directory: %w", err)
	}
	var out []Outcome
	var failed []string
	for _, a := range adapters {
		id := a.Capability().ID
		plans, err := a.Plan(NewFinder(rawDir, a.Folders()))
		if err != nil {
			err = fmt.Errorf("ingest %s: plan: %w", id, err)
			out = append(out, Outcome{Capability: id, Status: Failed, Err: err, Reasons: []string{err.Error()}})
			failed = append(failed, id)
			continue
		}
		if len(plans) == 0 {
			fmt.Fprintf(log, "%-20s no source files found under %s in %s\n", id, rawDir, strings.Join(a.Folders(), ", "))
		}
		if a.Capability().Documents.Relation == capability.Complement && len(plans) > 0 {
			outs, err := runDocuments(a, plans, rawDir, store, log)
			out = append(out, outs...)
			if err != nil {
				failed = append(failed, id)
			}
			continue
		}
		for _, p := range plans {
			o, err := runPlan(a, p, rawDir, store, log)
			if err != nil {
				err = fmt.Errorf("ingest %s: %w", id, err)
				o = Outcome{Capability: id, AsOf: p.AsOfHint, Status: Failed, Err: err, Reasons: []string{err.Error()}}
				failed = append(failed, id)
			}
			out = append(out, o)
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("ingest: %d adapters failed (%s); every other adapter ran", len(failed), strings.Join(slices.Compact(failed), ", "))
	}
	return out, nil
}

func fingerprint(a Adapter, p Plan) string {
	return fingerprintAt(a, p, snapshots.SchemaVersion)
}

// fingerprintAt is the fingerprint the plan's snapshot has at a given schema version.
func fingerprintAt(a Adapter, p Plan, schema int) string {
	var parts []string
	for _, f := range p.Files {
		parts = append(parts, f.Role+":"+filepath.Base(f.Path)+":"+f.SHA256)
	}
	sort.Strings(parts)
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n%s\n%s", a.Capability().ID, schema, a.Version(), strings.Join(parts, "\n"))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func runPlan(a Adapter, p Plan, rawDir string, store *snapshots.Store, log io.Writer) (Outcome, error) {
	if err := storeFiles(a, &p, rawDir, store, log); err != nil {
		return Outcome{}, err
	}
	return buildSnapshot(a, p, p.AsOfHint, func() (*Build, error) { return a.Build(p) }, store)
}

// storeFiles copies the plan's files into the raw store, by hash, and points the plan at the
// stored copies.
func storeFiles(a Adapter, p *Plan, rawDir string, store *snapshots.Store, log io.Writer) error {
	raw := store.Raw()
	for i := range p.Files {
		f := &p.Files[i]
		sha, n, err := snapshots.HashFile(f.Path)
		if err != nil {
			return err
		}
		stored, err := raw.Put(f.Path, sha)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(rawDir, f.Path)
		fmt.Fprintf(log, "%-20s %-60s %10d bytes  sha256 %s…\n", a.Capability().ID, rel, n, sha[:12])
		f.Path, f.SHA256, f.Bytes = stored, sha, n
	}
	return nil
}

// buildSnapshot makes the snapshot of the files of p (stored, with their hashes): nothing
// when the same files through the same adapter already made one; otherwise build, gates,
// write and, when every gate passes, promotion. hint is the as_of of a build that fails.
func buildSnapshot(a Adapter, p Plan, hint string, build func() (*Build, error), store *snapshots.Store) (Outcome, error) {
	capID := a.Capability().ID
	fp := fingerprint(a, p)
	cat, err := store.ReadCatalog()
	if err != nil {
		return Outcome{}, err
	}
	// The same files through the same adapter: nothing to do. A snapshot written by an
	// earlier schema version from the same files holds the same facts in an older layout
	// (which the service reads): it stands, so a pinned as_of keeps its snapshot.
	existing := findSnapshot(store, capID, fp)
	for v := snapshots.SchemaVersion - 1; existing == nil && v >= 1; v-- {
		existing = findSnapshot(store, capID, fingerprintAt(a, p, v))
	}
	if existing != nil {
		o := Outcome{Capability: capID, AsOf: existing.AsOf, Status: existing.Status, Unchanged: true, Rows: existing.Rows, Reasons: existing.Reasons, Manifest: existing}
		if existing.Status == snapshots.Promoted && cat.Promoted[capID][existing.AsOf] != fp {
			if err := store.Promote(existing); err != nil {
				return o, err
			}
		}
		return o, nil
	}

	m := &snapshots.Manifest{Capability: capID, Fingerprint: fp, SchemaVersion: snapshots.SchemaVersion, AsOf: hint}
	b, buildErr := build()
	prevAsOf, prevRows := "", 0
	if buildErr != nil {
		m.Gates = []snapshots.Gate{{Name: "source_parses", Detail: buildErr.Error()}}
		m.Sources = sourcesOf(p)
	} else {
		m.AsOf, m.Sources, m.Rows = b.AsOf, b.Sources, len(b.Rows)
		m.Documents, m.Coverage, m.Revisions = b.documents, b.Coverage, b.revisions
		attachCells(m.Sources, a.Capability(), b.Cells)
		m.RowsBySheet = rowsBySheet(a.Capability(), b.Rows)
		if prevAsOf, prevRows, err = previousPromoted(store, cat, a.Capability(), m.AsOf); err != nil {
			return Outcome{}, err
		}
		m.Gates = append(m.Gates, snapshots.Gate{Name: "source_parses", Passed: true, Detail: fmt.Sprintf("%d files read", len(p.Files))})
		m.Gates = append(m.Gates, b.Checks...)
		gates := snapshots.RunGates(snapshots.GateInput{
			Cap: a.Capability(), Rows: b.Rows, Sources: b.Sources, Ranges: b.Ranges, Required: b.Required, PreviousRows: prevRows,
		})
		if len(m.Documents) > 0 && prevAsOf != "" {
			prev, err := snapshots.ReadManifest(store.SnapshotDir(capID, prevAsOf, cat.Promoted[capID][prevAsOf]))
			if err != nil {
				return Outcome{}, err
			}
			if why := documentsCollapsed(m.Documents, prev); why != "" {
				for i := range gates {
					if gates[i].Name == "row_count_not_collapsed" {
						gates[i].Passed, gates[i].Detail = false, gates[i].Detail+"; "+why
					}
				}
			}
		}
		m.Gates = append(m.Gates, gates...)
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
		out = append(out, f.Source())
	}
	return out
}

// attachCells records in each source the column each field was read from, per sheet. A field
// whose column varies from row to row on a sheet has no one column and is left out, so
// nothing reads it from a column it was not read from; a field whose column c's definition
// says another field chooses (a wide sheet) is recorded with the column of each of that
// field's values (CellsBy).
func attachCells(srcs []snapshots.Source, c *capability.Capability, cells map[CellKey]map[string]int) {
	for i := range srcs {
		for k, byField := range cells {
			if k.File != srcs[i].File || k.By == "" {
				continue
			}
			for field, col := range byField {
				f, _ := c.Field(field)
				if srcs[i].CellsBy == nil {
					srcs[i].CellsBy = map[string]map[string]snapshots.CellsBy{}
				}
				if srcs[i].CellsBy[k.Sheet] == nil {
					srcs[i].CellsBy[k.Sheet] = map[string]snapshots.CellsBy{}
				}
				cb := srcs[i].CellsBy[k.Sheet][field]
				if cb.Columns == nil {
					cb = snapshots.CellsBy{By: f.Cell.ColumnBy, Columns: map[string]int{}}
				}
				cb.Columns[k.By] = col
				srcs[i].CellsBy[k.Sheet][field] = cb
			}
		}
	}
	// The fields each sheet records on some row of its own: their column varies.
	varies := map[CellKey]map[string]bool{}
	for k, byField := range cells {
		if k.Row == 0 || k.By != "" {
			continue
		}
		sk := CellKey{File: k.File, Sheet: k.Sheet}
		if varies[sk] == nil {
			varies[sk] = map[string]bool{}
		}
		for field := range byField {
			varies[sk][field] = true
		}
	}
	for i := range srcs {
		for k, byField := range cells {
			if k.File != srcs[i].File || k.Row != 0 || k.By != "" {
				continue
			}
			one := map[string]int{}
			for field, col := range byField {
				if !varies[k][field] {
					one[field] = col
				}
			}
			if srcs[i].Cells == nil {
				srcs[i].Cells = map[string]map[string]int{}
			}
			srcs[i].Cells[k.Sheet] = one
		}
	}
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

// previousPromoted is the promoted snapshot a new one of capability c dated asOf is compared
// with (its as_of and rows; "" and 0 when none): the one dated asOf or just before it, whatever
// order the documents arrive in; for documents that restate the whole, when none is dated so
// early, the earliest one after it (a copy cut short can claim an earlier date). A set of
// complementing documents grows with its dates, so it is never compared with a later one.
func previousPromoted(store *snapshots.Store, cat *snapshots.Catalog, c *capability.Capability, asOf string) (string, int, error) {
	best, after := "", ""
	for d := range cat.Promoted[c.ID] {
		if d <= asOf && d > best {
			best = d
		}
		if d > asOf && (after == "" || d < after) {
			after = d
		}
	}
	if best == "" && c.Documents.Relation == capability.Restate {
		best = after
	}
	if best == "" {
		return "", 0, nil
	}
	m, err := snapshots.ReadManifest(store.SnapshotDir(c.ID, best, cat.Promoted[c.ID][best]))
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

// Package snapshots stores what ingest produces and what the server serves: the raw store,
// one Parquet fact table per capability and as_of with lineage columns, its manifest and
// gate results, and the catalog of promoted snapshots, updated atomically.
package snapshots

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// SchemaVersion is the version of the fact-table layout and manifest; it is part of every
// snapshot's fingerprint. Version 2 writes data pages of at most 32 KiB with a page index and
// leaves near-unique text columns without a dictionary (WriteFacts); version 1 wrote pages of
// 256 KiB and a dictionary for every text column. The service reads both.
const SchemaVersion = 2

// Status of a snapshot.
const (
	Promoted = "promoted"
	Rejected = "rejected"
)

// Source is one raw file a snapshot was built from.
type Source struct {
	SourceID  string `json:"source_id"`
	Publisher string `json:"publisher"`
	URL       string `json:"source_url"`
	File      string `json:"source_file"`
	SHA256    string `json:"raw_file_sha256"`
	Bytes     int64  `json:"bytes"`
	// Role is "data" (rows of the fact table), "reference" (codebooks) or "check"
	// (a second copy the data is compared with).
	Role string `json:"role"`
	// Title is the document's own title (the source view of an aggregate citation).
	Title string `json:"title,omitempty"`
	// Release is the publication or vintage the file states.
	Release string `json:"release,omitempty"`
	// HeaderRows gives, per cited sheet, the row holding the column headers.
	HeaderRows map[string]int `json:"header_rows,omitempty"`
	// Cells gives, per sheet, the 1-based column each field was read from (what ingest's
	// rows record as they are set from cells): the aggregate evidence re-reads these columns.
	// A field computed rather than read (a sheet's lifecycle, a date from year and month) has
	// none.
	Cells map[string]map[string]int `json:"cells,omitempty"`
	// CellsBy gives, per sheet, the columns of a field read from a wide sheet (one column per
	// value of another field: capability.CellRule.ColumnBy): the column of each of that
	// field's values.
	CellsBy map[string]map[string]CellsBy `json:"cells_by,omitempty"`
	// BlankMarks are the publisher's marks for "no value" (beyond an empty cell and a lone
	// period) that the file's cells were read with ("N/A", "TBD"): such a cell is null.
	BlankMarks []string `json:"blank_marks,omitempty"`
	// Derived marks a third party's extract or re-save of the publisher's data: the file
	// hashed and cited is that copy, and OriginalURL is the publisher's own address of the
	// data it was made from.
	Derived     bool   `json:"derived,omitempty"`
	OriginalURL string `json:"original_url,omitempty"`
}

// CellsBy is where a field of a wide sheet was read: the column of each value of field By.
type CellsBy struct {
	By      string         `json:"by"`
	Columns map[string]int `json:"columns"`
}

// Gate is the outcome of one gate.
type Gate struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Manifest describes one snapshot.
type Manifest struct {
	Capability    string         `json:"capability"`
	AsOf          string         `json:"as_of"`
	Fingerprint   string         `json:"fingerprint"`
	SchemaVersion int            `json:"schema_version"`
	Status        string         `json:"status"`
	Rows          int            `json:"rows"`
	RowsBySheet   map[string]int `json:"rows_by_sheet,omitempty"`
	Sources       []Source       `json:"sources"`
	Gates         []Gate         `json:"gates"`
	Reasons       []string       `json:"reasons,omitempty"`
	// Documents lists, for a capability whose documents complement each other, the
	// documents the snapshot holds: the newest version of each published on or before its
	// as_of.
	Documents []Document `json:"documents,omitempty"`
	// Coverage lists the periods a document covers only in part.
	Coverage []Coverage `json:"coverage,omitempty"`
	// Revisions lists the rows two documents both publish with different values: the newer
	// publication's row is served, and the earlier one is cited beside it.
	Revisions []Revision `json:"revisions,omitempty"`
	// Dir is where the snapshot lives (not stored).
	Dir string `json:"-"`
}

// Manifest and fact-table file names inside a snapshot directory.
const (
	ManifestFile  = "manifest.json"
	FactsFile     = "facts.parquet"
	CodebooksFile = "codebooks.json"
)

// FactsPath is the Parquet fact table of the snapshot.
func (m *Manifest) FactsPath() string { return filepath.Join(m.Dir, FactsFile) }

// Passed reports whether every gate passed.
func (m *Manifest) Passed() bool {
	for _, g := range m.Gates {
		if !g.Passed {
			return false
		}
	}
	return len(m.Gates) > 0
}

// DataSources lists the sources whose rows are in the fact table.
func (m *Manifest) DataSources() []Source {
	var out []Source
	for _, s := range m.Sources {
		if s.Role == "data" {
			out = append(out, s)
		}
	}
	return out
}

// ReadManifest reads dir/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", dir, err)
	}
	m.Dir = dir
	return &m, nil
}

// WriteJSONAtomic writes v as indented JSON to path through a temporary file and a rename,
// so a reader sees the old file or the new one, never a part.
func WriteJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// WriteFileAtomic writes data to path through a temporary file, fsync and rename.
func WriteFileAtomic(path string, data []byte) (err error) {
	defer func() { err = explainFull(err) }()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

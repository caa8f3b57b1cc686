package snapshots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CodeSource is the row of the agency's code table a code was read from.
type CodeSource struct {
	SourceFile string `json:"source_file"`
	Sheet      string `json:"sheet"`
	SourceRow  int    `json:"source_row"`
	SHA256     string `json:"raw_file_sha256"`
}

// Code is one entry of a codebook.
type Code struct {
	Code        string `json:"code"`
	Description string `json:"description,omitempty"`
	// Group is the code's group in the agency table (e.g. the fuel type of an energy source).
	Group string `json:"group,omitempty"`
	// InAgencyTable is false for a code the data uses that the agency's table lacks.
	InAgencyTable bool `json:"in_agency_table"`
	// Rows is how many fact rows of the snapshot carry the code.
	Rows   int         `json:"rows_in_snapshot"`
	Source *CodeSource `json:"source,omitempty"`
	Note   string      `json:"note,omitempty"`
}

// Codebook lists the valid values of one field.
type Codebook struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Codes       []Code `json:"codes"`
}

// ReadCodebooks reads a snapshot's codebooks (none when the file is absent).
func ReadCodebooks(dir string) ([]Codebook, error) {
	b, err := os.ReadFile(filepath.Join(dir, CodebooksFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("codebooks: %w", err)
	}
	var out []Codebook
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("codebooks %s: %w", dir, err)
	}
	return out, nil
}

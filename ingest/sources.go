package ingest

import (
	"path/filepath"
	"sort"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/snapshots"
)

// Roles of a plan's files.
const (
	RoleData      = "data"      // fact rows are read from it
	RoleReference = "reference" // codebooks or other reference tables are read from it
	RoleCheck     = "check"     // a second copy the data must agree with
)

// Source is the manifest entry of the file.
func (f File) Source() snapshots.Source {
	return snapshots.Source{SourceID: f.SourceID, Publisher: f.Publisher, URL: f.URL, File: filepath.Base(f.Path),
		SHA256: f.SHA256, Bytes: f.Bytes, Role: f.Role, Derived: f.Derived, OriginalURL: f.OriginalURL}
}

// SplitRoles returns the first data file of files (nil when none) and the files of every
// other role, in order.
func SplitRoles(files []File) (*File, []File) {
	var data *File
	var rest []File
	for i := range files {
		if files[i].Role == RoleData && data == nil {
			data = &files[i]
			continue
		}
		rest = append(rest, files[i])
	}
	return data, rest
}

// DataFiles returns the files of role data, in order.
func DataFiles(files []File) []File {
	var out []File
	for _, f := range files {
		if f.Role == RoleData {
			out = append(out, f)
		}
	}
	return out
}

// CountCodes adds to each codebook of c how many rows carry each code, and appends the codes
// the data uses that the publisher's table lacks, flagged as such.
func CountCodes(c *capability.Capability, books []snapshots.Codebook, rows []snapshots.Row) []snapshots.Codebook {
	idx := map[string]int{}
	for i, f := range snapshots.Columns(c) {
		idx[f.Name] = i
	}
	for bi := range books {
		b := &books[bi]
		j, ok := idx[b.Name]
		if !ok {
			continue
		}
		counts := map[string]int{}
		for _, r := range rows {
			if s, ok := r[j].(string); ok {
				counts[s]++
			}
		}
		known := map[string]bool{}
		for ci := range b.Codes {
			b.Codes[ci].Rows = counts[b.Codes[ci].Code]
			known[b.Codes[ci].Code] = true
		}
		var extra []string
		for c := range counts {
			if !known[c] {
				extra = append(extra, c)
			}
		}
		sort.Strings(extra)
		for _, c := range extra {
			b.Codes = append(b.Codes, snapshots.Code{Code: c, InAgencyTable: false, Rows: counts[c],
				Note: "used by the data; not in the agency's code table"})
		}
	}
	return books
}

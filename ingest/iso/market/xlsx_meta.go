package market

import (
	"archive/zip"
	"fmt"
	"io"
	"regexp"
)

var coreModified = regexp.MustCompile(`<dcterms:modified[^>]*>(\d{4}-\d{2}-\d{2})T`)

// workbookModified is the last-modified date an xlsx workbook's own metadata records
// (docProps/core.xml, dcterms:modified), "" when it records none. It is part of the hashed
// file, so a date read from it is as reproducible as a cell.
func workbookModified(path string) (string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return "", fmt.Errorf("read workbook metadata of %s: %w", path, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if f.Name != "docProps/core.xml" {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("read %s of %s: %w", f.Name, path, err)
		}
		defer r.Close()
		b, err := io.ReadAll(io.LimitReader(r, 1<<20))
		if err != nil {
			return "", fmt.Errorf("read %s of %s: %w", f.Name, path, err)
		}
		if m := coreModified.FindSubmatch(b); m != nil {
			return string(m[1]), nil
		}
	}
	return "", nil
}

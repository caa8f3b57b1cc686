package market

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// A transcription is a third party's text copy of a grid operator's tables (the operator
// publishes them as PDFs): a CSV with a header row whose every data row names the operator's
// document (source_doc, its address) and page (source_page) the values were read from. It is
// served as derived: the file hashed and cited is the transcription, and the operator's
// document is the original.

// transcriber is the repository the transcriptions here were copied from.
const transcriber = "https://github.com/jessicacohen554-cyber/market-simulator"

// transcript describes one kind of transcription file.
type transcript struct {
	name     *regexp.Regexp // the file's name
	sourceID string
	// copies gives, by file name, the address of the copy the file was taken from (the
	// repository's file at a commit); another file of the kind cites the repository.
	copies map[string]string
	// labels are the header labels, in the transcription's column order.
	labels []string
}

// copyURL is where file f of kind t was copied from.
func (t transcript) copyURL(f string) string {
	if u, ok := t.copies[filepath.Base(f)]; ok {
		return u
	}
	return transcriber
}

// table is one transcription file read: its sheet, the column of each label, and the labels
// its header row lacks (read at their place in the layout, so that the rows still parse and
// only headers_present rejects the file).
type table struct {
	file    *ingest.File
	name    string
	sh      *grid.Sheet
	col     map[string]int
	missing []string
}

// openTable reads file f of kind t. A header label not found is looked for at its column of
// the layout and reported missing.
func openTable(f *ingest.File, t transcript) (*table, error) {
	wb, err := grid.Open(f.Path)
	if err != nil {
		return nil, err
	}
	if len(wb.Sheets) != 1 {
		return nil, fmt.Errorf("%s: %d tables, one expected", filepath.Base(f.Path), len(wb.Sheets))
	}
	tb := &table{file: f, name: filepath.Base(f.Path), sh: wb.Sheets[0], col: map[string]int{}}
	h := kit.HeaderAt(tb.sh, 1)
	for i, l := range t.labels {
		c := h.Col(l)
		if c == 0 {
			tb.missing = append(tb.missing, fmt.Sprintf("%s row 1: no column %q (read as column %s, its place in the layout)", tb.name, l, grid.ColumnName(i+1)))
			c = i + 1
		}
		tb.col[l] = c
	}
	return tb, nil
}

// text is the trimmed text of label's cell on row r, white space folded.
func (tb *table) text(r int, label string) string {
	return kit.Squash(strings.TrimSpace(tb.sh.Cell(r, tb.col[label]).Value))
}

// cell is label's cell on row r.
func (tb *table) cell(r int, label string) grid.Cell { return tb.sh.Cell(r, tb.col[label]) }

// where names label's cell on row r.
func (tb *table) where(r int, label string) string {
	return fmt.Sprintf("%s!%s%d", tb.name, grid.ColumnName(tb.col[label]), r)
}

// blankRow reports whether row r holds nothing.
func (tb *table) blankRow(r int) bool {
	for _, c := range tb.sh.Row(r) {
		if strings.TrimSpace(c.Value) != "" {
			return false
		}
	}
	return true
}

// docName is the file name at the end of a document's address, unescaped
// ("2025 PRA Results Posting 20250529_Corrections694160.pdf").
func docName(addr string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return path.Base(addr)
	}
	name, err := url.PathUnescape(path.Base(u.EscapedPath()))
	if err != nil {
		return path.Base(u.Path)
	}
	return name
}

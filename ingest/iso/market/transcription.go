package market

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"

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

// file declares the transcriptions of kind t, by publisher, with the operator's page as the
// original: one table (a CSV), its header labels in row 1 (a label not found is reported and
// its column read at its place in the layout, so that the rows still parse and only
// headers_present rejects the file), every row holding a cell read by each.
func (t transcript) file(publisher, original string, each func(r *kit.Row)) *kit.File {
	sh := &kit.Sheet{Header: 1, Each: each, IsRow: func(r *kit.Row) bool { return kit.Filled(r.Sheet.Sheet.Row(r.N)) > 0 }}
	for i, l := range t.labels {
		sh.Columns = append(sh.Columns, kit.Column{Header: l, At: i + 1})
	}
	return &kit.File{
		Match: t.name, SourceID: t.sourceID, Publisher: publisher + ", transcribed by a third party",
		URL: func(name string, _ []string) string { return t.copyURL(name) }, Derived: true, OriginalURL: original,
		Open: func(fr *kit.FileRead) error {
			if len(fr.WB.Sheets) != 1 {
				return fmt.Errorf("%s: %d tables, one expected", fr.Name, len(fr.WB.Sheets))
			}
			return nil
		},
		Sheets: []*kit.Sheet{sh},
	}
}

// txText is the trimmed text of label's cell on row r, white space folded.
func txText(r *kit.Row, label string) string { return kit.Squash(r.Cell(label).Value) }

// txProblem records a problem of label's cell on row r.
func txProblem(r *kit.Row, label, format string, args ...any) {
	r.Problem(r.Sheet.Col(label), "", format, args...)
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

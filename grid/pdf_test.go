package grid

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/citeq/citeq/internal/pdfwrite"
)

func writePDF(t testing.TB, pages []pdfwrite.Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pdfwrite.Write(&b, pages); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rowTexts renders a sheet as rows of cell values ("" for an empty cell).
func rowTexts(sh *Sheet) [][]string {
	var out [][]string
	for r := 1; r <= sh.NumRows(); r++ {
		var row []string
		for _, c := range sh.Row(r) {
			row = append(row, c.Value)
		}
		out = append(out, row)
	}
	return out
}

// TestPDFPagesLinesCells: each page is a sheet "Page n"; each line a row from the top; cells
// split at column gaps, words of a cell kept together, and every cell of a table block in the
// column of the block's widest line, a header line without the row-label cell included, and
// a line of one cell clear of the first column (wrapped text) in its column.
func TestPDFPagesLinesCells(t *testing.T) {
	table := func(y float64, cells ...string) []pdfwrite.Text {
		var out []pdfwrite.Text
		for i, c := range cells {
			if c == "" {
				continue
			}
			if i == 0 {
				out = append(out, pdfwrite.Text{X: 40, Y: y, Size: 10, S: c})
				continue
			}
			out = append(out, pdfwrite.Text{X: 200 + 90*float64(i), Y: y, Size: 10, S: c, Right: true})
		}
		return out
	}
	var p1 []pdfwrite.Text
	p1 = append(p1, pdfwrite.Text{X: 40, Y: 560, Size: 16, S: "Summer 2025 PRA Results by Zone"})
	p1 = append(p1, table(500, "", "Z1", "Z2", "ERZ")...)
	p1 = append(p1, table(485, "PRMR", "1,234.5", "", "9.0")...)
	p1 = append(p1, table(470, "ACP ($/MW-Day)", "666.50", "$666.50", "$74.09 - $91.60")...)
	p1 = append(p1, table(458, "Offer", "1.0", "", "")...)
	p1 = append(p1, pdfwrite.Text{X: 470, Y: 462, Size: 10, S: "(wrapped", Right: true}, pdfwrite.Text{X: 470, Y: 450, Size: 10, S: "text)", Right: true})
	p1 = append(p1, pdfwrite.Text{X: 40, Y: 440, Size: 8, S: "* ERZ cleared as printed"})
	data := writePDF(t, []pdfwrite.Page{{Texts: p1}, {}, {Texts: []pdfwrite.Text{{X: 40, Y: 300, Size: 12, S: "Posted   (3)"}}}})
	if got := Sniff(data); got != "pdf" {
		t.Fatalf("Sniff %q", got)
	}
	wb, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if wb.Format != "pdf" || !reflect.DeepEqual(wb.SheetNames(), []string{"Page 1", "Page 2", "Page 3"}) {
		t.Fatalf("format %s, sheets %v", wb.Format, wb.SheetNames())
	}
	want := [][]string{
		{"Summer 2025 PRA Results by Zone"},
		{"", "Z1", "Z2", "ERZ"},
		{"PRMR", "1,234.5", "", "9.0"},
		{"ACP ($/MW-Day)", "666.50", "$666.50", "$74.09 - $91.60"},
		{"", "", "", "(wrapped"},
		{"Offer", "1.0"},
		{"", "", "", "text)"},
		{"* ERZ cleared as printed"},
	}
	if got := rowTexts(wb.Sheet("Page 1")); !reflect.DeepEqual(got, want) {
		t.Errorf("page 1:\n got %q\nwant %q", got, want)
	}
	sh := wb.Sheet("Page 1")
	if c := sh.Cell(4, 2); c.Kind != Number || c.Value != "666.50" {
		t.Errorf("B4 %+v, want the number as printed", c)
	}
	if c := sh.Cell(4, 3); c.Kind != Text {
		t.Errorf("C4 %+v: a dollar sign makes text", c)
	}
	if n := wb.Sheet("Page 2").NumRows(); n != 0 {
		t.Errorf("the blank page has %d rows", n)
	}
	if got := rowTexts(wb.Sheet("Page 3")); !reflect.DeepEqual(got, [][]string{{"Posted (3)"}}) {
		t.Errorf("page 3 %q: spaces within a cell fold to one", got)
	}
}

// TestPDFDamaged: a file that starts like a PDF but is not one is an error, never a panic.
func TestPDFDamaged(t *testing.T) {
	good := writePDF(t, []pdfwrite.Page{{Texts: []pdfwrite.Text{{X: 10, Y: 10, Size: 10, S: "x"}}}})
	for name, data := range map[string][]byte{
		"header only": []byte("%PDF-1.4\n"),
		"truncated":   good[:len(good)/2],
		"no xref":     bytes.Replace(good, []byte("xref"), []byte("xxxx"), 1),
	} {
		if _, err := Parse(data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

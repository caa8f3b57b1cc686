// Package pdfwrite writes small PDF documents of positioned text in the standard Helvetica
// font: the test fixtures laid out as a publisher's PDF tables, and the PDFs the reader's
// tests build at test time. It writes PDF 1.4 with one Flate-compressed content stream per
// page and the font's glyph widths, so a reader places every glyph where it was drawn.
package pdfwrite

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Text is one run of text drawn on a page, its baseline at Y (points from the bottom of the
// page). X is its left edge, or its right edge when Right is set (numbers in a table column).
type Text struct {
	X, Y  float64
	Size  float64
	S     string
	Right bool
}

// Page is one page: its texts in drawing order.
type Page struct {
	Texts []Text
}

// Page size, US letter landscape (points).
const (
	PageWidth  = 792
	PageHeight = 612
)

// helvetica are the advance widths (per 1000 units of the font size) of Helvetica's
// characters 32 to 126 in WinAnsiEncoding, from the font's metrics.
var helvetica = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
}

// Width is the width in points of s set in Helvetica at size.
func Width(s string, size float64) float64 {
	w := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 32 && c <= 126 {
			w += helvetica[c-32]
		}
	}
	return float64(w) * size / 1000
}

// Write writes the document. Only printable ASCII is drawn; any other byte is an error.
func Write(w io.Writer, pages []Page) error {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	widths := make([]string, len(helvetica))
	for i, v := range helvetica {
		widths[i] = strconv.Itoa(v)
	}
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [" + strings.Join(widths, " ") + "] >>")
	for i, p := range pages {
		var content bytes.Buffer
		for _, t := range p.Texts {
			for j := 0; j < len(t.S); j++ {
				if c := t.S[j]; c < 32 || c > 126 {
					return fmt.Errorf("pdfwrite: page %d: %q holds a character other than printable ASCII", i+1, t.S)
				}
			}
			x := t.X
			if t.Right {
				x -= Width(t.S, t.Size)
			}
			r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
			fmt.Fprintf(&content, "BT /F1 %s Tf %s %s Td (%s) Tj ET\n", num(t.Size), num(x), num(t.Y), r.Replace(t.S))
		}
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		if _, err := zw.Write(content.Bytes()); err != nil {
			return fmt.Errorf("pdfwrite: compress page %d: %w", i+1, err)
		}
		if err := zw.Close(); err != nil {
			return fmt.Errorf("pdfwrite: compress page %d: %w", i+1, err)
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", PageWidth, PageHeight, 5+2*i))
		obj(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	_, err := w.Write(buf.Bytes())
	if err != nil {
		return fmt.Errorf("pdfwrite: %w", err)
	}
	return nil
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

package grid

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// A PDF is read as one sheet per page, named "Page <n>" (1-based, as a reader of the PDF
// numbers its pages), so a citation of a PDF is page-row evidence:
//
//   - A row is one line of text: the glyphs drawn on one baseline (within a third of the font
//     size), the lines numbered from the top of the page down.
//   - A cell is a run of glyphs on that line; a horizontal gap of at least cellGap times the
//     font size starts the next cell (a word space, drawn or left as a gap, stays inside).
//   - Columns: the consecutive lines holding two cells or more form a table block; the line
//     with the most cells sets the block's columns, and every cell of the block takes the
//     column it overlaps most (the nearest, when it overlaps none). A line of one cell joins
//     the block above it when the cell stands clear of the block's first column (the text of
//     a cell wrapped onto a line of its own); any other line of one cell (a title, a note) is
//     column A. A line whose cells would share a column keeps its reading order.
//
// Every value is the printed text; a cell whose text is a decimal number is a Number cell.
const (
	cellGap  = 1.0  // gap, in font sizes, that separates two cells of a line
	spaceGap = 0.15 // gap, in font sizes, read as a space between two words of a cell
	lineTol  = 0.35 // baseline difference, in font sizes, within which glyphs share a line
)

// PDFPageName is the sheet name of page n of a PDF.
func PDFPageName(n int) string { return "Page " + strconv.Itoa(n) }

// pdfCell is one cell of a line before columns are assigned.
type pdfCell struct {
	x0, x1 float64
	text   strings.Builder
}

func parsePDF(data []byte) (wb *Workbook, err error) {
	defer func() {
		if r := recover(); r != nil {
			wb, err = nil, fmt.Errorf("pdf: damaged document: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("pdf: %w", err)
	}
	wb = &Workbook{Format: "pdf"}
	for n := 1; n <= r.NumPage(); n++ {
		sh := &Sheet{Name: PDFPageName(n)}
		if p := r.Page(n); !p.V.IsNull() {
			sh.rows = pdfRows(p.Content().Text)
		}
		wb.Sheets = append(wb.Sheets, sh)
	}
	return wb, nil
}

// pdfRows lays a page's glyphs out as rows of cells.
func pdfRows(glyphs []pdf.Text) [][]Cell {
	var gs []pdf.Text
	for _, g := range glyphs {
		if g.S != "" && g.FontSize > 0 && !math.IsNaN(g.X+g.Y+g.W) && !math.IsInf(g.X+g.Y+g.W, 0) {
			gs = append(gs, g)
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].Y > gs[j].Y })
	var lines [][]pdf.Text
	top := 0.0
	for _, g := range gs {
		if n := len(lines); n > 0 && top-g.Y <= lineTol*g.FontSize {
			lines[n-1] = append(lines[n-1], g)
			continue
		}
		lines = append(lines, []pdf.Text{g})
		top = g.Y
	}
	cells := make([][]*pdfCell, len(lines))
	for i, l := range lines {
		sort.SliceStable(l, func(a, b int) bool { return l[a].X < l[b].X })
		cells[i] = pdfLineCells(l)
	}
	rows := make([][]Cell, len(lines))
	for start := 0; start < len(cells); {
		end := start + 1
		if len(cells[start]) > 1 {
			first := cells[start][0].x1 // right edge of the first cell of the last line of two or more
			for ; end < len(cells); end++ {
				if l := cells[end]; len(l) > 1 {
					first = l[0].x1
				} else if len(l) == 0 || l[0].x0 <= first {
					break
				}
			}
		}
		pdfBlock(cells[start:end], rows[start:end])
		start = end
	}
	return trimRows(rows)
}

// pdfLineCells splits one line's glyphs, in reading order, into cells.
func pdfLineCells(line []pdf.Text) []*pdfCell {
	var out []*pdfCell
	var cur *pdfCell
	end, space := 0.0, false
	for _, g := range line {
		if strings.TrimSpace(g.S) == "" {
			space = true
			continue
		}
		gap := g.X - end
		switch {
		case cur == nil || gap >= cellGap*g.FontSize:
			cur = &pdfCell{x0: g.X}
			out = append(out, cur)
		case space || gap > spaceGap*g.FontSize:
			cur.text.WriteByte(' ')
		}
		cur.text.WriteString(g.S)
		end, space = g.X+g.W, false
		cur.x1 = max(cur.x1, end)
	}
	return out
}

// pdfBlock assigns the columns of a block of lines (see parsePDF) and writes its rows.
func pdfBlock(block [][]*pdfCell, rows [][]Cell) {
	anchors := block[0]
	for _, l := range block {
		if len(l) > len(anchors) {
			anchors = l
		}
	}
	for i, l := range block {
		cols := make([]int, len(l))
		used := map[int]bool{}
		ordered := len(block) == 1
		for j, c := range l {
			if ordered {
				break
			}
			best, bestOverlap, bestDist := 0, 0.0, math.Inf(1)
			for k, a := range anchors {
				overlap := math.Min(c.x1, a.x1) - math.Max(c.x0, a.x0)
				dist := math.Abs((c.x0+c.x1)/2 - (a.x0+a.x1)/2)
				if overlap > bestOverlap || bestOverlap <= 0 && overlap <= 0 && dist < bestDist {
					best, bestOverlap, bestDist = k, max(overlap, 0), dist
				}
			}
			if used[best] {
				ordered = true
				break
			}
			used[best] = true
			cols[j] = best
		}
		if ordered {
			for j := range cols {
				cols[j] = j
			}
		}
		n := 0
		for _, c := range cols {
			n = max(n, c+1)
		}
		row := make([]Cell, n)
		for j, c := range l {
			row[cols[j]] = pdfValue(c.text.String())
		}
		rows[i] = trimRow(row)
	}
}

// pdfValue is a cell holding printed text: a Number when the text is a decimal number.
func pdfValue(s string) Cell {
	if _, err := strconv.ParseFloat(s, 64); err == nil && strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) < 0 {
		return Cell{Kind: Number, Value: s}
	}
	return Cell{Kind: Text, Value: s}
}

package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// defaultWidth is the width output is fitted to when neither $COLUMNS nor a terminal says.
const defaultWidth = 100

// outputWidth is the width in characters that tables and notes written to w are fitted to:
// $COLUMNS when set to a number (0: no limit), else the width of the terminal w is, else
// defaultWidth.
func outputWidth(w io.Writer) int {
	if v := strings.TrimSpace(os.Getenv("COLUMNS")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	if f, ok := w.(*os.File); ok {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return defaultWidth
}

// table is an aligned text table: columns two spaces apart, right-aligned where right says
// so. A nil row prints as a rule.
type table struct {
	head []string
	// sub is an optional second header line (the metrics' units), aligned as head.
	sub   []string
	right []bool
	rows  [][]string
	// keep is how many leading columns (the labels) every block repeats when the columns are
	// wrapped into several blocks to fit the width.
	keep int
	// wrapLast lets the last column's text run onto further lines within its cell, rather
	// than wrapping the columns into blocks.
	wrapLast bool
}

// fitted is how a table was fitted to its width.
type fitted struct {
	// blocks is the number of column blocks printed one below the other (1: all side by side).
	blocks int
	// cut reports whether cells of the repeated label columns were shortened.
	cut bool
}

// keepCellWidth is the widest a repeated label cell is printed when the labels alone leave
// too little room; longer values are cut.
const keepCellWidth = 24

func runeLen(s string) int { return len([]rune(s)) }

// write prints the table, indented, within width characters (0: no limit): when it is wider,
// the last column wraps within its cell (wrapLast), or else the columns after the first keep
// are wrapped into blocks printed one below the other, each repeating the keep columns.
func (t *table) write(w io.Writer, indent string, width int) fitted {
	n := len(t.head)
	widths := make([]int, n)
	measure := func(cells []string) {
		for i, c := range cells {
			if i < n {
				widths[i] = max(widths[i], runeLen(c))
			}
		}
	}
	measure(t.head)
	measure(t.sub)
	for _, r := range t.rows {
		measure(r)
	}
	span := func(cols []int) int {
		total := runeLen(indent) + 2*(len(cols)-1)
		for _, c := range cols {
			total += widths[c]
		}
		return total
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if width <= 0 || span(all) <= width || n == 0 {
		t.block(w, indent, all, widths, 0)
		return fitted{blocks: 1}
	}
	if t.wrapLast && n > 1 {
		room := width - span(all[:n-1]) - 2
		if room >= max(16, runeLen(t.head[n-1])) {
			t.block(w, indent, all, widths, room)
			return fitted{blocks: 1}
		}
	}
	keep := min(t.keep, n)
	var fit fitted
	rest := all[keep:]
	widest := 0
	for _, c := range rest {
		widest = max(widest, widths[c])
	}
	// Labels so wide that no other column fits beside them are cut.
	if keep > 0 && span(all[:keep])+2+widest > width {
		for c := 0; c < keep; c++ {
			if widths[c] > keepCellWidth {
				widths[c] = max(keepCellWidth, runeLen(t.head[c]))
				fit.cut = true
			}
		}
	}
	var blocks [][]int
	cur := append([]int(nil), all[:keep]...)
	for _, c := range rest {
		if len(cur) > keep && span(append(cur, c)) > width {
			blocks = append(blocks, cur)
			cur = append([]int(nil), all[:keep]...)
		}
		cur = append(cur, c)
	}
	blocks = append(blocks, cur)
	for i, b := range blocks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		t.block(w, indent, b, widths, 0)
	}
	fit.blocks = len(blocks)
	return fit
}

// block prints the columns cols of the table; a cell wider than its column is cut, and with
// lastRoom > 0 the last column's cells wrap at lastRoom characters.
func (t *table) block(w io.Writer, indent string, cols []int, widths []int, lastRoom int) {
	ws := make([]int, len(cols))
	for i, c := range cols {
		ws[i] = widths[c]
	}
	if lastRoom > 0 {
		ws[len(ws)-1] = min(ws[len(ws)-1], lastRoom)
	}
	line := func(cells []string) {
		pick := make([]string, len(cols))
		for i, c := range cols {
			if c < len(cells) {
				pick[i] = cells[c]
			}
		}
		var tail []string
		if lastRoom > 0 {
			tail = wrapText(pick[len(pick)-1], ws[len(ws)-1])
			pick[len(pick)-1] = tail[0]
			tail = tail[1:]
		}
		t.line(w, indent, cols, ws, pick)
		for _, more := range tail {
			cont := make([]string, len(cols))
			cont[len(cont)-1] = more
			t.line(w, indent, cols, ws, cont)
		}
	}
	line(t.head)
	// The second header line, unless it is blank over these columns.
	if slices.ContainsFunc(cols, func(c int) bool { return c < len(t.sub) && t.sub[c] != "" }) {
		line(t.sub)
	}
	total := 2 * (len(ws) - 1)
	for _, wd := range ws {
		total += wd
	}
	for _, r := range t.rows {
		if r == nil {
			fmt.Fprintln(w, indent+strings.Repeat("-", total))
			continue
		}
		line(r)
	}
}

func (t *table) line(w io.Writer, indent string, cols, ws []int, cells []string) {
	var b strings.Builder
	b.WriteString(indent)
	for i, c := range cells {
		if runeLen(c) > ws[i] {
			c = cut(c, ws[i])
		}
		pad := strings.Repeat(" ", ws[i]-runeLen(c))
		if i > 0 {
			b.WriteString("  ")
		}
		if cols[i] < len(t.right) && t.right[cols[i]] {
			b.WriteString(pad + c)
		} else {
			b.WriteString(c + pad)
		}
	}
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
}

// wrapText breaks text into lines of at most width characters, at spaces where it can (a
// word longer than the width is broken).
func wrapText(text string, width int) []string { return wrapWords(text, width, width) }

// wrapWords is wrapText with a first line of its own width.
func wrapWords(text string, first, width int) []string {
	if width <= 0 || runeLen(text) <= first {
		return []string{text}
	}
	var lines []string
	var cur []rune
	room := func() int {
		if len(lines) == 0 {
			return max(first, 1)
		}
		return width
	}
	for _, word := range strings.Fields(text) {
		wr := []rune(word)
		for len(wr) > room() {
			if len(cur) > 0 {
				lines = append(lines, string(cur))
				cur = nil
				continue
			}
			lines = append(lines, string(wr[:room()]))
			wr = wr[room():]
		}
		switch {
		case len(cur) == 0:
			cur = wr
		case len(cur)+1+len(wr) <= room():
			cur = append(append(cur, ' '), wr...)
		default:
			lines = append(lines, string(cur))
			cur = wr
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// writeWrapped writes text after first, wrapped to width (0: no limit), its further lines
// after indent.
func writeWrapped(w io.Writer, first, indent, text string, width int) {
	if width <= 0 || width-runeLen(indent) < 20 {
		fmt.Fprintln(w, first+text)
		return
	}
	if width-runeLen(first) < 20 {
		fmt.Fprintln(w, strings.TrimRight(first, " "))
		first = indent
	}
	for i, l := range wrapWords(text, width-runeLen(first), width-runeLen(indent)) {
		if i == 0 {
			fmt.Fprintln(w, first+l)
		} else {
			fmt.Fprintln(w, indent+l)
		}
	}
}

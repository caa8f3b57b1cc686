// Package kit is the toolkit adapters are built on: it finds a sheet's header row by its
// labels despite the publishers' spelling drift, reads typed cells (numbers, published
// blanks, Excel serial dates, text dates, unknown-month marks), tells footers and notes from
// data, collects the problems of a build into gates, and states the generic gates every
// adapter reports (headers present, cells parse, rows reconcile with a second reading of the
// sheet).
package kit

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/snapshots"
)

// Norm folds a header label for matching: lower case, every run of white space (line breaks
// included) one space, trailing footnote marks (*, †, ‡, digits after a letter or a closing
// parenthesis, superscripts) and a trailing colon dropped. "Nameplate Capacity\n(MW)" and
// "nameplate capacity (MW)1" fold alike.
func Norm(label string) string {
	s := strings.ToLower(strings.Join(strings.Fields(label), " "))
	for {
		t := strings.TrimRightFunc(s, func(r rune) bool {
			return r == '*' || r == '†' || r == '‡' || r == ':' || r == ' ' || unicode.Is(unicode.No, r)
		})
		// Footnote digits (one or two) glued to a closing parenthesis or to a word of four
		// letters or more: "(MW)1", "Status2"; not "Q1", "Zone 1" or "2024".
		if n := len(t); n > 1 && isDigit(t[n-1]) {
			i := n - 1
			if i > 0 && isDigit(t[i-1]) {
				i--
			}
			if i > 0 && (t[i-1] == ')' || letterRun(t[:i]) >= 4) {
				t = t[:i]
			}
		}
		if t == s {
			return s
		}
		s = t
	}
}

// Header is a sheet's header row: each folded label's 1-based column.
type Header struct {
	Row    int
	cols   map[string]int
	labels []string // as published, by column - 1
	fold   func(string) string
}

// HeaderAt reads row n of sh as the header row.
func HeaderAt(sh *grid.Sheet, n int) *Header { return headerAtFold(sh, n, Norm) }

// headerAtFold reads row n of sh as the header row, its labels folded by fold.
func headerAtFold(sh *grid.Sheet, n int, fold func(string) string) *Header {
	h := &Header{Row: n, cols: map[string]int{}, fold: fold}
	for i, c := range sh.Row(n) {
		h.labels = append(h.labels, strings.Join(strings.Fields(c.Value), " "))
		if k := fold(c.Value); k != "" {
			if _, dup := h.cols[k]; !dup {
				h.cols[k] = i + 1
			}
		}
	}
	return h
}

// FindHeader returns the first row among rows 1 to maxRow of sh that holds every one of
// labels (folded by Norm), or an error naming the labels the closest row lacks.
func FindHeader(sh *grid.Sheet, maxRow int, labels ...string) (*Header, error) {
	if sh == nil {
		return nil, fmt.Errorf("no sheet to find the header row in")
	}
	best, bestMissing := 0, labels
	for n := 1; n <= min(maxRow, sh.NumRows()); n++ {
		h := HeaderAt(sh, n)
		missing := h.Missing(labels...)
		if len(missing) == 0 {
			return h, nil
		}
		if len(missing) < len(bestMissing) {
			best, bestMissing = n, missing
		}
	}
	if best == 0 {
		return nil, fmt.Errorf("sheet %s: no row among the first %d holds the header labels %q", sh.Name, maxRow, labels)
	}
	return nil, fmt.Errorf("sheet %s: row %d is the closest to a header row but lacks %q", sh.Name, best, bestMissing)
}

// Col is the 1-based column of label (0 when absent).
func (h *Header) Col(label string) int { return h.cols[h.fold(label)] }

// Has reports whether label is in the header row.
func (h *Header) Has(label string) bool { return h.Col(label) > 0 }

// Missing lists the labels the header row lacks.
func (h *Header) Missing(labels ...string) []string {
	var out []string
	for _, l := range labels {
		if h.Col(l) == 0 {
			out = append(out, l)
		}
	}
	return out
}

// Label is the header of 1-based column c as published (white space folded).
func (h *Header) Label(c int) string {
	if c < 1 || c > len(h.labels) {
		return ""
	}
	return h.labels[c-1]
}

// Labels lists the published header labels, by column.
func (h *Header) Labels() []string { return append([]string(nil), h.labels...) }

// Cell returns the cell of row r under label (Empty when the label is absent).
func (h *Header) Cell(sh *grid.Sheet, r int, label string) grid.Cell {
	if c := h.Col(label); c > 0 {
		return sh.Cell(r, c)
	}
	return grid.Cell{}
}

// Problems collects the cell-level faults of a build; a build with any fails the gate they
// are reported under.
type Problems struct {
	n     int
	first []string
}

// Add records one problem.
func (p *Problems) Add(format string, args ...any) {
	p.n++
	if len(p.first) < 5 {
		p.first = append(p.first, fmt.Sprintf(format, args...))
	}
}

// Len is the number of problems recorded.
func (p *Problems) Len() int { return p.n }

// Gate is a gate named name: passed with detail ok when no problem was recorded, else failed
// with the count and the first few problems.
func (p *Problems) Gate(name, ok string) snapshots.Gate {
	if p.n == 0 {
		return snapshots.Gate{Name: name, Passed: true, Detail: ok}
	}
	return snapshots.Gate{Name: name, Detail: fmt.Sprintf("%d cells do not parse, e.g. %s", p.n, strings.Join(p.first, "; "))}
}

// Failures is a gate over a list of failures: passed with detail ok when the list is
// empty, else failed with them joined.
func Failures(name string, failures []string, ok string) snapshots.Gate {
	if len(failures) == 0 {
		return snapshots.Gate{Name: name, Passed: true, Detail: ok}
	}
	if len(failures) > 8 {
		failures = append(failures[:8:8], fmt.Sprintf("and %d more", len(failures)-8))
	}
	return snapshots.Gate{Name: name, Detail: strings.Join(failures, "; ")}
}

// Generic gate names: every adapter reports these, so a damaged file is rejected for the
// same reason whichever publisher it comes from.
const (
	GateHeaders   = "headers_present"
	GateCells     = "cells_parse"
	GateReconcile = "totals_reconcile"
	GateComplete  = "sheets_complete"
)

// Reconcile compares, per sheet, what the adapter parsed with a second, independent reading
// of the same sheet (rows counted and a column summed straight from the cells).
type Reconcile struct {
	bad, ok []string
}

// Sheet records one sheet's two readings; sums agree within a relative 1e-9.
func (rc *Reconcile) Sheet(name string, parsedRows int, parsedSum float64, sheetRows int, sheetSum float64, unit string) {
	tol := 1e-9 * max(1, abs(sheetSum))
	if parsedRows != sheetRows || abs(parsedSum-sheetSum) > tol {
		rc.bad = append(rc.bad, fmt.Sprintf("sheet %s: %d rows / %.3f %s parsed, %d rows / %.3f %s in the sheet", name, parsedRows, parsedSum, unit, sheetRows, sheetSum, unit))
		return
	}
	rc.ok = append(rc.ok, fmt.Sprintf("%s %d rows %.1f %s", name, parsedRows, parsedSum, unit))
}

// Gate is the totals_reconcile gate.
func (rc *Reconcile) Gate() snapshots.Gate {
	return Failures(GateReconcile, rc.bad, strings.Join(rc.ok, "; "))
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// letterRun is the number of letters that end s.
func letterRun(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] >= 'a' && s[i] <= 'z'; i-- {
		n++
	}
	return n
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

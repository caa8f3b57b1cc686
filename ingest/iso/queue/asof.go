package queue

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/citeq/citeq/grid"
	"github.com/citeq/citeq/ingest/kit"
)

// latestDateIn is an as_of rule: the latest calendar date in the column headed by the first
// of labels present on sheet (header in row header); when no such column is found
// (headers_present then fails), unknownAsOf.
func latestDateIn(sheet string, header int, labels ...string) func(wb *grid.Workbook, name string) (string, error) {
	return func(wb *grid.Workbook, name string) (string, error) {
		sh := wb.Sheet(sheet)
		if sh == nil {
			return "", fmt.Errorf("no sheet %q to read the as_of from", sheet)
		}
		h := kit.HeaderAt(sh, header)
		c, label := 0, ""
		for _, l := range labels {
			if c == 0 {
				c, label = h.Col(l), l
			}
		}
		if c == 0 {
			return unknownAsOf(name), nil
		}
		best := ""
		for r := header + 1; r <= sh.NumRows(); r++ {
			cell := sh.Cell(r, c)
			d, err := kit.Date(cell)
			if err != nil || d == nil {
				if t, ok := textDate(cell.Value, nil); ok {
					d = t
				}
			}
			if s, _ := d.(string); s > best {
				best = s
			}
		}
		if best == "" {
			return "", fmt.Errorf("column %q holds no date", label)
		}
		return best, nil
	}
}

// unknownAsOf is the as_of of a file whose date column is missing: the date its name
// implies, else 0001-01-01. Such a file fails headers_present, so it is never served.
func unknownAsOf(name string) string {
	if d := hintFromName(name); d != "" {
		return d
	}
	return "0001-01-01"
}

// printedDate is an as_of rule: the date printed after prefix in a cell among the first
// rows of sheet (e.g. "Report Run Date: 01/23/2025"), or in the cell to its right.
func printedDate(sheet string, prefix *regexp.Regexp) func(wb *grid.Workbook, name string) (string, error) {
	return func(wb *grid.Workbook, name string) (string, error) {
		sh := wb.Sheet(sheet)
		if sh == nil {
			return "", fmt.Errorf("no sheet %q to read the as_of from", sheet)
		}
		for r := 1; r <= min(5, sh.NumRows()); r++ {
			row := sh.Row(r)
			for i, c := range row {
				m := prefix.FindStringSubmatchIndex(c.Value)
				if m == nil {
					continue
				}
				rest := strings.TrimSpace(c.Value[m[1]:])
				if rest == "" && i+1 < len(row) {
					d, err := kit.Date(row[i+1])
					if err == nil && d != nil {
						return d.(string), nil
					}
					continue
				}
				t, err := kit.ParseDate(rest)
				if f := strings.Fields(rest); err != nil && len(f) > 1 {
					t, err = kit.ParseDate(f[0]) // "1/23/2025 12:00:00 AM"
				}
				if err != nil {
					return "", fmt.Errorf("sheet %s row %d: %w", sheet, r, err)
				}
				return t.Format("2006-01-02"), nil
			}
		}
		return "", fmt.Errorf("sheet %s: no cell %q among the first rows", sheet, prefix)
	}
}

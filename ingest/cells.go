package ingest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/citeq/citeq/ingest/grid"
)

// isNullText reports whether a cell's text stands for "no value" in the agencies' files: an
// empty cell, a single space or a lone period.
func isNullText(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t == "."
}

// cellText returns a text cell's trimmed value, nil when null.
func cellText(c grid.Cell) any {
	if c.Kind == grid.Empty || isNullText(c.Value) {
		return nil
	}
	return strings.TrimSpace(c.Value)
}

// cellFloat returns a numeric cell as float64, nil when null, an error when it is text
// that is not a number.
func cellFloat(c grid.Cell) (any, error) {
	if c.Kind == grid.Empty || isNullText(c.Value) {
		return nil, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(c.Value), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%q is not a number", c.Value)
	}
	return f, nil
}

// cellInt returns a whole-number cell as int64, nil when null.
func cellInt(c grid.Cell) (any, error) {
	v, err := cellFloat(c)
	if v == nil || err != nil {
		return nil, err
	}
	f := v.(float64)
	if f != math.Trunc(f) || math.Abs(f) > 1e15 {
		return nil, fmt.Errorf("%q is not a whole number", c.Value)
	}
	return int64(f), nil
}

// normHeader collapses the whitespace (line breaks included) of a header cell.
func normHeader(s string) string { return strings.Join(strings.Fields(s), " ") }

// headerIndex maps each normalized header of row n to its 1-based column.
func headerIndex(sh *grid.Sheet, n int) map[string]int {
	out := map[string]int{}
	for i, c := range sh.Row(n) {
		if h := normHeader(c.Value); h != "" {
			if _, dup := out[h]; !dup {
				out[h] = i + 1
			}
		}
	}
	return out
}

// problems collects the cell-level faults of a build; a build with any fails its check.
type problems struct {
	n     int
	first []string
}

func (p *problems) add(format string, args ...any) {
	p.n++
	if len(p.first) < 5 {
		p.first = append(p.first, fmt.Sprintf(format, args...))
	}
}

func (p *problems) gate(name, ok string) gateResult {
	if p.n == 0 {
		return gateResult{Name: name, Passed: true, Detail: ok}
	}
	return gateResult{Name: name, Detail: fmt.Sprintf("%d cells do not parse, e.g. %s", p.n, strings.Join(p.first, "; "))}
}

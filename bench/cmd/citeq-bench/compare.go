package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Row is one row of an answer in the form every system's is compared in: the group keys (or
// a record's key) as text, nullKey for null, then the values, NaN for null.
type Row struct {
	Keys []string
	Vals []float64
}

// nullKey stands for a null key.
const nullKey = "\x00null"

// tolerance is the relative difference two engines' values may show: they sum in different
// orders.
const tolerance = 1e-9

// near reports whether a and b agree within tolerance (relative to the larger magnitude).
func near(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tolerance*math.Max(math.Abs(a), math.Abs(b))
}

// compareRows checks that two systems returned the same rows: the same count, the same keys
// and every value equal within tolerance (null only against null). Unordered rows are
// compared after sorting by key.
func compareRows(a, b []Row, ordered bool) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d rows against %d", len(a), len(b))
	}
	if !ordered {
		a, b = sortedRows(a), sortedRows(b)
	}
	for i := range a {
		ka, kb := strings.Join(a[i].Keys, " | "), strings.Join(b[i].Keys, " | ")
		if ka != kb {
			return fmt.Errorf("row %d: key %q against %q", i, ka, kb)
		}
		if len(a[i].Vals) != len(b[i].Vals) {
			return fmt.Errorf("row %s: %d values against %d", ka, len(a[i].Vals), len(b[i].Vals))
		}
		for j, va := range a[i].Vals {
			vb := b[i].Vals[j]
			if math.IsNaN(va) != math.IsNaN(vb) || !math.IsNaN(va) && !near(va, vb) {
				return fmt.Errorf("row %s, value %d: %v against %v", ka, j+1, nullable(va), nullable(vb))
			}
		}
	}
	return nil
}

// compareSummary checks DuckDB's summary statement (rows: one row of the capability's
// metrics, in order) against the service's summary totals, each within tolerance and null
// only against null.
func compareSummary(totals []float64, rows [][]any) error {
	if len(rows) != 1 {
		return fmt.Errorf("DuckDB's summary has %d rows, want 1", len(rows))
	}
	if len(totals) == 0 {
		return fmt.Errorf("the service answered no summary totals")
	}
	duck := Row{Vals: make([]float64, len(rows[0]))}
	for i, v := range rows[0] {
		duck.Vals[i] = numValue(v)
	}
	return compareRows([]Row{{Vals: totals}}, []Row{duck}, true)
}

func sortedRows(rows []Row) []Row {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(x, y Row) int { return slices.Compare(x.Keys, y.Keys) })
	return out
}

func nullable(v float64) string {
	if math.IsNaN(v) {
		return "null"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// keyText is a decoded JSON key value as text (integers in decimal, as citeq's
// dictionaries hold them).
func keyText(v any) string {
	switch x := v.(type) {
	case nil:
		return nullKey
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// numValue is a decoded JSON value as a number (NaN for null or not a number).
func numValue(v any) float64 {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	case float64:
		return x
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

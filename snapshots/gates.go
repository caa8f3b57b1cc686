package snapshots

import (
	"fmt"
	"math"
	"strings"

	"github.com/citeq/citeq/capability"
)

// Range bounds the plausible values of a numeric field; gates reject a snapshot with a
// value outside it (a shifted column or a unit change shows up here).
type Range struct {
	Min, Max float64
	// Also lists values outside [Min, Max] the publisher uses as codes (EIA writes month 88
	// for an unknown month).
	Also []float64
}

func (r Range) allows(x float64) bool {
	if x >= r.Min && x <= r.Max {
		return true
	}
	for _, a := range r.Also {
		if x == a {
			return true
		}
	}
	return false
}

// minRowShare is the smallest share of the previous promoted snapshot's row count a new
// snapshot may have before the row_count_not_collapsed gate rejects it.
const minRowShare = 0.5

// GateInput is what the generic gates look at.
type GateInput struct {
	Cap     *capability.Capability
	Rows    []Row
	Sources []Source
	Ranges  map[string]Range
	// Required lists fields that must be non-null on every row.
	Required []string
	// PreviousRows is the row count of the latest promoted snapshot before this one (0: none).
	PreviousRows int
}

// RunGates runs the gates every snapshot must pass: lineage complete, required columns
// present and typed, natural key unique, values in range, row count not collapsed.
func RunGates(in GateInput) []Gate {
	cols := Columns(in.Cap)
	idx := map[string]int{}
	for i, f := range cols {
		idx[f.Name] = i
	}
	return []Gate{
		lineageGate(in, idx),
		typedGate(in, cols, idx),
		keyGate(in, idx),
		rangeGate(in, idx),
		countGate(in),
	}
}

func lineageGate(in GateInput, idx map[string]int) Gate {
	g := Gate{Name: "lineage_complete"}
	known := map[string]bool{}
	for _, s := range in.Sources {
		known[s.SHA256] = true
	}
	for i, r := range in.Rows {
		for _, c := range []string{capability.ColSourceID, capability.ColSourceFile, capability.ColSheet, capability.ColRawSHA256} {
			if s, _ := r[idx[c]].(string); s == "" {
				g.Detail = fmt.Sprintf("row %d has no %s", i, c)
				return g
			}
		}
		if n, _ := r[idx[capability.ColSourceRow]].(int64); n < 1 {
			g.Detail = fmt.Sprintf("row %d has no source row number", i)
			return g
		}
		if sha := r[idx[capability.ColRawSHA256]].(string); !known[sha] {
			g.Detail = fmt.Sprintf("row %d cites raw file %s, which is not a source of the snapshot", i, sha)
			return g
		}
	}
	g.Passed = true
	g.Detail = fmt.Sprintf("%d rows, each with source id, file, sheet, row number and raw file hash", len(in.Rows))
	return g
}

func typedGate(in GateInput, cols []capability.Field, idx map[string]int) Gate {
	g := Gate{Name: "required_columns_typed"}
	if len(in.Rows) == 0 {
		g.Detail = "no rows"
		return g
	}
	for i, r := range in.Rows {
		if len(r) != len(cols) {
			g.Detail = fmt.Sprintf("row %d has %d columns, want %d", i, len(r), len(cols))
			return g
		}
		for j, f := range cols {
			if _, err := value(f, r[j]); err != nil {
				g.Detail = fmt.Sprintf("row %d: %v", i, err)
				return g
			}
		}
		for _, name := range in.Required {
			if r[idx[name]] == nil {
				g.Detail = fmt.Sprintf("row %d (%s row %v) has no %s", i, r[idx[capability.ColSheet]], r[idx[capability.ColSourceRow]], name)
				return g
			}
		}
	}
	g.Passed = true
	g.Detail = fmt.Sprintf("%d columns typed; required %s present on every row", len(cols), strings.Join(in.Required, ", "))
	return g
}

func keyGate(in GateInput, idx map[string]int) Gate {
	g := Gate{Name: "natural_key_unique"}
	seen := make(map[string]int, len(in.Rows))
	var b strings.Builder
	nullKeys := 0
	for i, r := range in.Rows {
		b.Reset()
		null := false
		for _, k := range in.Cap.NaturalKey {
			v := r[idx[k]]
			if v == nil {
				null = true
			}
			fmt.Fprintf(&b, "%v\x1f", v)
		}
		if null {
			nullKeys++
			continue
		}
		if j, dup := seen[b.String()]; dup {
			g.Detail = fmt.Sprintf("(%s) = (%s) appears on rows %d and %d", strings.Join(in.Cap.NaturalKey, ", "),
				strings.ReplaceAll(strings.TrimSuffix(b.String(), "\x1f"), "\x1f", ", "), j, i)
			return g
		}
		seen[b.String()] = i
	}
	g.Passed = true
	g.Detail = fmt.Sprintf("(%s) unique over %d rows (%d with a null key part not compared)", strings.Join(in.Cap.NaturalKey, ", "), len(seen), nullKeys)
	return g
}

func rangeGate(in GateInput, idx map[string]int) Gate {
	g := Gate{Name: "values_in_range"}
	var checked []string
	for name, rg := range in.Ranges {
		j, ok := idx[name]
		if !ok {
			g.Detail = "range given for unknown column " + name
			return g
		}
		for _, r := range in.Rows {
			var x float64
			switch v := r[j].(type) {
			case nil:
				continue
			case float64:
				x = v
			case int64:
				x = float64(v)
			default:
				continue
			}
			if math.IsNaN(x) || !rg.allows(x) {
				g.Detail = fmt.Sprintf("%s = %v on %s row %v is outside [%v, %v]", name, x, r[idx[capability.ColSheet]], r[idx[capability.ColSourceRow]], rg.Min, rg.Max)
				return g
			}
		}
		checked = append(checked, name)
	}
	g.Passed = true
	g.Detail = fmt.Sprintf("%d columns within their ranges", len(checked))
	return g
}

func countGate(in GateInput) Gate {
	g := Gate{Name: "row_count_not_collapsed"}
	if in.PreviousRows == 0 {
		g.Passed = len(in.Rows) > 0
		g.Detail = fmt.Sprintf("%d rows; no earlier promoted snapshot to compare with", len(in.Rows))
		return g
	}
	share := float64(len(in.Rows)) / float64(in.PreviousRows)
	g.Passed = share >= minRowShare
	g.Detail = fmt.Sprintf("%d rows against %d in the previous promoted snapshot (%.0f%%, at least %.0f%% required)", len(in.Rows), in.PreviousRows, share*100, minRowShare*100)
	return g
}

package service

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// Note codes of answers that would otherwise mislead (see README, "Answers that cannot
// mislead").
const (
	// NoteMixedPartition: the matched set spans several values of a partition dimension
	// (capability.Capability.Partitions) that the query neither filters to one value nor
	// groups by, so summary.totals add what should not be added silently.
	NoteMixedPartition = "mixed_partition"
)

// valueCount is one value of a dimension in a set of rows, and how many rows hold it.
type valueCount struct {
	value string
	null  bool
	rows  int64
}

// valueCounts lists the values of the Dict column name over sel, in dictionary order
// (null last), each with its number of rows.
func valueCounts(t *columnar.Table, sel columnar.Selection, name string) ([]valueCount, error) {
	col, err := t.Column(name)
	if err != nil {
		return nil, fmt.Errorf("values of %s: %w", name, err)
	}
	counts := make([]int64, len(col.Values))
	var nulls int64
	for i, n := 0, sel.Len(); i < n; i++ {
		if code := col.Codes[sel.Row(i)]; code >= 0 {
			counts[code]++
		} else {
			nulls++
		}
	}
	var out []valueCount
	for code, n := range counts {
		if n > 0 {
			out = append(out, valueCount{value: col.Values[code], rows: n})
		}
	}
	if nulls > 0 {
		out = append(out, valueCount{null: true, rows: nulls})
	}
	return out, nil
}

// partitionNotes are the mixed_partition notes of an answer: one per partition dimension of
// c that the matched set sel spans several values of, when p neither filters it to one value
// nor groups by it.
func partitionNotes(c *capability.Capability, t *columnar.Table, sel columnar.Selection, p *Params) ([]Obj, error) {
	var out []Obj
	for _, name := range c.Partitions {
		if slices.Contains(p.GroupBy, name) || len(p.Filters[name]) == 1 {
			continue
		}
		vals, err := valueCounts(t, sel, name)
		if err != nil {
			return nil, err
		}
		if len(vals) < 2 {
			continue
		}
		f, _ := c.Field(name)
		list := make([]Obj, len(vals))
		var parts []string
		for i, v := range vals {
			var typedV any
			shown := "null"
			if !v.null {
				typedV, shown = typed(f.Type, v.value), v.value
			}
			list[i] = Obj{{"value", typedV}, {"rows", v.rows}}
			parts = append(parts, fmt.Sprintf("%s: %d rows", shown, v.rows))
		}
		example := "" // the value with the most rows
		var most int64
		for _, v := range vals {
			if !v.null && v.rows > most {
				example, most = v.value, v.rows
			}
		}
		out = append(out, Obj{
			{"code", NoteMixedPartition},
			{"dimension", name},
			{"values", list},
			{"message", fmt.Sprintf("the matched rows span %d values of %s (%s), which are not meant to be added together, yet summary.totals add them; split them: filter %s to one value (e.g. \"filters\":{\"%s\":%s}) or add %s to group_by",
				len(vals), name, strings.Join(parts, ", "), name, name, mustJSON(typed(f.Type, example)), name)},
		})
	}
	return out, nil
}

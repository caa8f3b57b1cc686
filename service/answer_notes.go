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
	counts, nulls := col.CountValues(sel)
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
		if rep, ok := c.RepeatOf(name); ok {
			// Only a set spanning a repeating value and another one could count twice.
			if note := repeatNote(f, rep, vals); note != nil {
				out = append(out, note)
			}
			continue
		}
		list, parts := valueList(f, vals)
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

// valueList is the values member of a mixed_partition note (each value typed, with its rows)
// and the same as text for its message ("C: 3 rows").
func valueList(f capability.Field, vals []valueCount) ([]Obj, []string) {
	list := make([]Obj, len(vals))
	parts := make([]string, len(vals))
	for i, v := range vals {
		var typedV any
		shown := "null"
		if !v.null {
			typedV, shown = typed(f.Type, v.value), v.value
		}
		list[i] = Obj{{"value", typedV}, {"rows", v.rows}}
		parts[i] = fmt.Sprintf("%s: %d rows", shown, v.rows)
	}
	return list, parts
}

// repeatNote is the mixed_partition note of a set spanning the values vals of a dimension
// whose rep.Values rows repeat what rep.Of rows count, or nil when the set holds no
// repeating row or nothing else.
func repeatNote(f capability.Field, rep capability.Repeat, vals []valueCount) Obj {
	var repeating, others int
	var repVals []string
	list, parts := valueList(f, vals)
	example := ""
	var most int64
	for _, v := range vals {
		if !v.null && slices.Contains(rep.Values, v.value) {
			repeating++
			repVals = append(repVals, v.value)
			continue
		}
		others++
		if !v.null && v.rows > most {
			example, most = v.value, v.rows
		}
	}
	if repeating == 0 || others == 0 {
		return nil
	}
	return Obj{
		{"code", NoteMixedPartition},
		{"dimension", f.Name},
		{"values", list},
		{"repeating", Obj{{"values", repVals}, {"of", rep.Of}, {"left_out_of", rep.Metrics}}},
		{"message", fmt.Sprintf("the matched rows span %d values of %s (%s), and the %s %s rows repeat what %s %s rows count (%s): adding their published figures to the others would count a sale twice. %s leave them out, so each is counted once; the other metrics count every %s. To see each %s's own figures, add %s to group_by, or filter %s (e.g. \"filters\":{\"%s\":%s}); the repeating rows' published cells are in the records (include_records)",
			len(vals), f.Name, strings.Join(parts, ", "), f.Name, strings.Join(repVals, ", "), f.Name, strings.Join(rep.Of, ", "), rep.Reason,
			strings.Join(rep.Metrics, ", "), f.Name, f.Name, f.Name, f.Name, f.Name, mustJSON(typed(f.Type, example)))},
	}
}

// NoteNotCounted: a metric is null because every matched row is a repeating row it leaves
// out (capability.Repeat), not because the rows publish nothing.
const NoteNotCounted = "not_counted"

// repeatNullNote is the not_counted note of metric m over a set whose dimension values the
// function value gives (the group's or the filters' single value), when they are all
// repeating values m leaves out; nil otherwise.
func repeatNullNote(c *capability.Capability, m capability.Metric, value func(dim string) ([]string, bool), where string) Obj {
	for _, rep := range c.Repeats {
		if !slices.Contains(rep.Metrics, m.Name) {
			continue
		}
		vals, ok := value(rep.Dimension)
		if !ok || len(vals) == 0 {
			continue
		}
		all := true
		for _, v := range vals {
			all = all && slices.Contains(rep.Values, v)
		}
		if !all {
			continue
		}
		return Obj{{"code", NoteNotCounted}, {"metric", m.Name},
			{"message", fmt.Sprintf("%s are %s %s rows, which repeat what %s %s rows count (%s), so %s leaves them out and is null; their published cells are in the records (include_records), and %s over %s %s gives the figure counted once",
				where, rep.Dimension, strings.Join(vals, ", "), rep.Dimension, strings.Join(rep.Of, ", "), rep.Reason, m.Name, m.Name, rep.Dimension, strings.Join(rep.Of, ", "))}}
	}
	return nil
}

// NoteDateUnplaced: a date range left out rows that match everything else but have no
// date in the range's column (a year published without its month, say).
const NoteDateUnplaced = "date_unplaced"

// yearFilterOf is the year filter that reaches the rows a date range cannot place: the
// date column's name without _date, plus _year, when c has such a filter.
func yearFilterOf(c *capability.Capability, r capability.DateRange) (capability.Field, bool) {
	name := strings.TrimSuffix(r.Column, "_date") + "_year"
	f, ok := c.Field(name)
	if !ok || !f.Filter || f.Type != capability.Integer {
		return capability.Field{}, false
	}
	return f, true
}

// unplacedNotes are the date_unplaced notes of an answer: for each date range p gives, how
// many rows match the filters and the other ranges but have a null date in the range's
// column, so the range could not place them, and how to reach them.
func unplacedNotes(c *capability.Capability, t *columnar.Table, p *Params) ([]Obj, error) {
	var out []Obj
	for _, r := range c.DateRanges {
		b, ok := p.Ranges[r.Name]
		if !ok {
			continue
		}
		var preds []columnar.Predicate
		for _, name := range c.FilterNames()[1:] {
			if vals, ok := p.Filters[name]; ok {
				preds = append(preds, columnar.Predicate{Column: name, Allow: t.Col(name).AllowValues(vals)})
			}
		}
		for _, o := range c.DateRanges {
			if ob, ok := p.Ranges[o.Name]; ok && o.Name != r.Name {
				preds = append(preds, rangePredicates(t, o, ob)...)
			}
		}
		// The columns the range's bounds compare (a date column, or the instant fields of
		// timestamp bounds): a row null in one of them cannot be placed.
		var cols []*columnar.Column
		column := ""
		for _, rb := range rangeBounds(r, b) {
			col, err := t.Column(rb.column)
			if err != nil {
				return nil, fmt.Errorf("date range %s: %w", r.Name, err)
			}
			cols = append(cols, col)
			if column == "" {
				column = rb.column
			}
		}
		sel := t.Filter(preds)
		var unplaced []int
		for i, n := 0, sel.Len(); i < n; i++ {
			row := sel.Row(i)
			for _, col := range cols {
				if col.Codes[row] < 0 {
					unplaced = append(unplaced, row)
					break
				}
			}
		}
		sel.Release()
		if len(unplaced) == 0 {
			continue
		}
		note := Obj{{"code", NoteDateUnplaced}, {"date_range", r.Name}, {"column", column}, {"count", len(unplaced)}}
		msg := fmt.Sprintf("%d rows match the other filters but have no %s, so %s/%s cannot place them and the answer leaves them out", len(unplaced), column, r.From(), r.To())
		yf, hasYear := yearFilterOf(c, r)
		if !hasYear {
			note = append(note, KV{"year_filter", nil})
			msg += fmt.Sprintf("; %s has no year filter for %s, so only a query without the range includes them", c.ID, r.Column)
			out = append(out, append(note, KV{"message", msg}))
			continue
		}
		years, err := t.Column(yf.Name)
		if err != nil {
			return nil, fmt.Errorf("date range %s: %w", r.Name, err)
		}
		lo, hi := yearOf(b[0], 0), yearOf(b[1], 1<<30)
		inRange := map[string]int{}
		var list []string
		withYear, n := 0, 0
		for _, row := range unplaced {
			code := years.Codes[row]
			if code < 0 {
				continue
			}
			withYear++
			y := years.Values[code]
			if yv := yearOf(y, -1); yv >= lo && yv <= hi {
				if inRange[y] == 0 {
					list = append(list, y)
				}
				inRange[y]++
				n++
			}
		}
		slices.Sort(list)
		note = append(note, KV{"year_filter", yf.Name}, KV{"with_year", withYear}, KV{"in_range_years", n})
		msg += fmt.Sprintf("; %d of them have a %s (published without a month) and %d have none", withYear, yf.Name, len(unplaced)-withYear)
		if n > 0 {
			msg += fmt.Sprintf("; %d have a %s within the range's years (%s): filter %s to those years (e.g. \"%s\":[%s]) to reach them", n, yf.Name, strings.Join(list, ", "), yf.Name, yf.Name, strings.Join(list, ","))
		} else if withYear > 0 {
			msg += fmt.Sprintf("; none of those years falls within the range; %s reaches them by year", yf.Name)
		}
		out = append(out, append(note, KV{"message", msg}))
	}
	return out, nil
}

// yearOf is the year of a YYYY or YYYY-MM-DD text, or def when there is none.
func yearOf(s string, def int) int {
	if len(s) < 4 {
		return def
	}
	y := 0
	for _, ch := range s[:4] {
		if ch < '0' || ch > '9' {
			return def
		}
		y = y*10 + int(ch-'0')
	}
	return y
}

// Codes of the notes that say why a metric value is null where the existing ones
// (not_published, mixed_units) do not apply.
const (
	// NoteNotAdditive: the (other) row of top_n cannot add its groups' values of a metric
	// that is not additive across groups.
	NoteNotAdditive = "not_additive"
	// NoteRatioUndefined: a ratio whose denominator sums to null or zero.
	NoteRatioUndefined = "ratio_undefined"
	// NoteNoRows: no row matches, so a metric over values has nothing to aggregate.
	NoteNoRows = "no_rows"
)

// rowNullNote says why metric mr is null on row r, unless a note of noteMemo.row already does
// (mixed units).
func rowNullNote(snap *Snapshot, p *Params, mr MetricResult, r outRow) []Obj {
	m := mr.Metric
	inGroup := func(dim string) ([]string, bool) {
		for k, name := range p.GroupBy {
			if name == dim && !r.null[k] {
				return []string{r.group[k]}, true
			}
		}
		vals, ok := p.Filters[dim]
		return vals, ok
	}
	if !r.other {
		if note := repeatNullNote(snap.Cap, m, inGroup, "this group's rows"); note != nil {
			return []Obj{note}
		}
	}
	switch {
	case r.other && !m.Additive:
		return []Obj{{{"code", NoteNotAdditive}, {"metric", m.Name},
			{"message", fmt.Sprintf("%s is not additive across groups, so the %s row cannot add the values of the groups it folds and shows null; summary.totals gives it over the whole matched set, and a query filtered to the folded groups gives it for them", m.Name, OtherGroup)}}}
	case !r.other && mr.Groups.Mixed[r.gi]:
		return nil // mixed_units, from noteMemo.row
	case m.Agg == capability.Ratio:
		return []Obj{ratioNote(m, "this group's rows")}
	}
	where := "this group's rows"
	if r.other {
		where = "the groups " + OtherGroup + " folds"
	}
	return []Obj{{{"code", "not_published"}, {"metric", m.Name},
		{"message", fmt.Sprintf("none of %s reports %s (as_of %s), so %s is null here, not zero", where, m.Column, snap.Manifest.AsOf, m.Name)}}}
}

// ratioNote says why ratio m is null over the rows named by where.
func ratioNote(m capability.Metric, where string) Obj {
	return Obj{{"code", NoteRatioUndefined}, {"metric", m.Name},
		{"message", fmt.Sprintf("%s is the sum of %s over the sum of %s, and over %s either no row reports %s or the sum of %s is null or zero, so it is null", m.Name, m.Column, m.Denominator, where, m.Column, m.Denominator)}}
}

// matchedUnits maps each unit column of c's metrics to its one unit over the matched set
// sel, when the set has exactly one (no null): summary.units then names it instead of the
// definition's generic unit text.
func matchedUnits(c *capability.Capability, t *columnar.Table, sel columnar.Selection) (map[string]string, error) {
	out := map[string]string{}
	done := map[string]bool{}
	for _, m := range c.Metrics {
		if m.UnitColumn == "" || done[m.UnitColumn] {
			continue
		}
		done[m.UnitColumn] = true
		vals, err := valueCounts(t, sel, m.UnitColumn)
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 && !vals[0].null {
			out[m.UnitColumn] = vals[0].value
		}
	}
	return out, nil
}

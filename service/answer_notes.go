package service

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/jsonw"
)

// Note codes of answers that would otherwise mislead (see README, "Answers that cannot
// mislead").
const (
	// NoteMixedPartition: the matched set spans several values of a partition dimension
	// (capability.Capability.Partitions) that the query neither filters to one value nor
	// groups by, so summary.totals combine what should not be combined silently.
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
// nor groups by it. Each says what the totals (results) did with the values: which metrics
// combine them and which are null.
func partitionNotes(c *capability.Capability, t *columnar.Table, sel columnar.Selection, p *Params, results []MetricResult) ([]Obj, error) {
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
			{"message", fmt.Sprintf("the matched rows span %d values of %s (%s), which are not meant to be combined: %s; split them: filter %s to one value (e.g. \"filters\":{\"%s\":%s}) or add %s to group_by",
				len(vals), name, strings.Join(parts, ", "), totalsDid(results), name, name, mustJSON(typed(f.Type, example)), name)},
		})
	}
	return out, nil
}

// totalsDid says what summary.totals did with the rows of every value: the metrics whose
// totals combine them, and those that are null (each with its own note).
func totalsDid(results []MetricResult) string {
	var combined, null []string
	for _, mr := range results {
		if len(mr.Total.Valid) > 0 && mr.Total.Valid[0] {
			combined = append(combined, mr.Metric.Name)
		} else {
			null = append(null, mr.Metric.Name)
		}
	}
	switch {
	case len(combined) == 0:
		return "summary.totals combine none of them (every total is null, each with its note)"
	case len(null) == 0:
		return "yet summary.totals combine them in every metric (" + strings.Join(combined, ", ") + ")"
	}
	verb := " are"
	if len(null) == 1 {
		verb = " is"
	}
	return "summary.totals combine them in " + strings.Join(combined, ", ") + ", while " + strings.Join(null, ", ") + verb + " null (see the notes)"
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

// Codes of the notes the capability definitions declare beyond the engine's aggregates
// (capability.Metric.OnePeriod and Shares, capability.Capability.Periods, capability.Field
// From and Nulls), and of the nulls only a comparison of counts would show.
const (
	// NoteNotAdditiveOverTime: a metric that adds one period only (seasonally adjusted annual
	// rates) is null over rows of several periods.
	NoteNotAdditiveOverTime = "not_additive_over_time"
	// NoteShareNotAveraged: an average over more than one share is null (no weights).
	NoteShareNotAveraged = "share_not_averaged"
	// NotePeriodsPresent: on each row of a grouped answer whose groups have values for
	// different numbers of periods, the row's number.
	NotePeriodsPresent = "periods_present"
	// NoteUnequalCoverage: the summary of the same answer: the fewest and most periods.
	NoteUnequalCoverage = "unequal_coverage"
	// NoteValuesMissing: some matched rows have no value in a column metrics aggregate, so
	// those metrics cover fewer rows than the row counts.
	NoteValuesMissing = "values_missing"
	// NoteNullGroupKey: some matched rows have no value of a group_by dimension and form its
	// null group; the note says whether the publisher left the value blank.
	NoteNullGroupKey = "null_group_key"
)

// maxExamples is how many rows a note names as examples.
const maxExamples = 5

// declared is what the capability's declarations add to one answer's rows: each group's
// periods present, when the groups' numbers differ.
type declared struct {
	field   string  // the periods' field
	value   string  // the field whose values make a period present
	periods []int64 // by group; nil when every group has as many
	most    int64
	// rendered holds the periods_present note of each number of periods a group has,
	// rendered once (render): many groups share one.
	rendered map[int64][]byte
}

// groupIndex maps each group of g, by its key codes, to its index.
func groupIndex(g *columnar.Grouping) map[string]int {
	out := make(map[string]int, g.N)
	for gi, codes := range g.Codes {
		out[codeKey(codes)] = gi
	}
	return out
}

// codeKey is a group's key codes as a map key.
func codeKey(codes []int32) string {
	b := make([]byte, 0, 4*len(codes))
	for _, c := range codes {
		b = append(b, byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
	}
	return string(b)
}

// subset is the rows of sel that keep says to keep, as a selection.
func subset(sel columnar.Selection, keep func(row int) bool) columnar.Selection {
	idx := make([]int32, 0, sel.Len())
	for i, n := 0, sel.Len(); i < n; i++ {
		if r := sel.Row(i); keep(r) {
			idx = append(idx, int32(r))
		}
	}
	return columnar.Selection{Idx: idx}
}

// present reports whether row r of col has a value.
func present(col *columnar.Column, r int) bool { return col.Valid(r) }

// perGroup evaluates op over the rows sub (a subset of the answer's matched rows) grouped as
// the answer is, and returns its value for each of the answer's groups (0 where a group has
// no row of sub) and over all of sub.
func perGroup(t *columnar.Table, sub columnar.Selection, p *Params, groups *columnar.Grouping, op columnar.Op) ([]float64, float64) {
	ans := t.Compute(sub, p.GroupBy, []columnar.Op{op}, nil)
	out := make([]float64, groups.N)
	index := groupIndex(groups)
	for g, codes := range ans.Groups.Codes {
		if gi, ok := index[codeKey(codes)]; ok && ans.Results[0].Valid[g] {
			out[gi] = ans.Results[0].Values[g]
		}
	}
	var total float64
	if ans.Totals[0].Valid[0] {
		total = ans.Totals[0].Values[0]
	}
	return out, total
}

// declare applies c's declarations to the evaluation ev of p over t: it withholds the values
// of metrics declared OnePeriod or Shares where they would mislead (null, each with its note
// on the row or the total), and returns the groups' periods present when they differ, with
// the summary notes of the declarations, of the nulls in the metrics' columns and of the
// null group keys.
func declare(c *capability.Capability, t *columnar.Table, p *Params, ev *Evaluation) (*declared, []Obj, error) {
	var d *declared
	var notes []Obj
	onePeriod := slices.ContainsFunc(c.Metrics, func(m capability.Metric) bool { return m.OnePeriod != nil })
	if pd := c.Periods; pd != nil && (onePeriod || len(p.GroupBy) > 0) {
		if err := t.Need(pd.Field, pd.Value); err != nil {
			return nil, nil, fmt.Errorf("periods: %w", err)
		}
		value := t.Col(pd.Value)
		valued := subset(ev.Sel, func(r int) bool { return present(value, r) })
		counts, total := perGroup(t, valued, p, ev.Groups, columnar.Op{Agg: columnar.AggCountDistinct, Column: pd.Field})
		for j := range ev.Metrics {
			mr := &ev.Metrics[j]
			if mr.Metric.OnePeriod == nil {
				continue
			}
			// Validity read first: without group_by the total is the one group's result itself.
			valid, totalValid := slices.Clone(mr.Groups.Valid), mr.Total.Valid[0]
			for gi, n := range counts {
				if n > 1 && valid[gi] {
					mr.hold(gi, onePeriodNote(mr.Metric, pd, int64(n), "this group's"))
				}
			}
			if total > 1 && totalValid {
				mr.holdTotal(onePeriodNote(mr.Metric, pd, int64(total), "the matched"))
			}
		}
		if len(p.GroupBy) > 0 && len(counts) > 1 {
			lo, hi := counts[0], counts[0]
			for _, n := range counts {
				lo, hi = min(lo, n), max(hi, n)
			}
			if lo != hi {
				d = &declared{field: pd.Field, value: pd.Value, periods: make([]int64, len(counts)), most: int64(hi)}
				below := 0
				for gi, n := range counts {
					d.periods[gi] = int64(n)
					if n < hi {
						below++
					}
				}
				d.render()
				notes = append(notes, Obj{{"code", NoteUnequalCoverage}, {"field", pd.Field}, {"fewest", int64(lo)}, {"most", int64(hi)}, {"groups_below_most", below},
					{"message", fmt.Sprintf("the groups have a %s for between %d and %d periods (%s), and %d of the %d groups have fewer than %d: their figures cover fewer periods than the others', so compare or rank them knowing it; each row's %s note gives its number. To compare like with like, narrow the date range to periods every group has",
						pd.Value, int64(lo), int64(hi), pd.Field, below, len(counts), int64(hi), NotePeriodsPresent)}})
			}
		}
	}
	for j := range ev.Metrics {
		mr := &ev.Metrics[j]
		sh := mr.Metric.Shares
		if sh == nil {
			continue
		}
		if err := t.Need(mr.Metric.UnitColumn, mr.Metric.Column); err != nil {
			return nil, nil, fmt.Errorf("shares of %s: %w", mr.Metric.Name, err)
		}
		unit, value := t.Col(mr.Metric.UnitColumn), t.Col(mr.Metric.Column)
		isShare := make([]bool, len(unit.Values))
		for code, v := range unit.Values {
			isShare[code] = slices.Contains(sh.Units, v)
		}
		shares := subset(ev.Sel, func(r int) bool {
			code := unit.Codes[r]
			return code >= 0 && isShare[code] && present(value, r)
		})
		counts, total := perGroup(t, shares, p, ev.Groups, columnar.Op{Agg: columnar.AggCount})
		valid, totalValid := slices.Clone(mr.Groups.Valid), mr.Total.Valid[0]
		for gi, n := range counts {
			if n > 1 && valid[gi] {
				mr.hold(gi, shareNote(mr.Metric, int64(n), "this group's rows hold"))
			}
		}
		if total > 1 && totalValid {
			mr.holdTotal(shareNote(mr.Metric, int64(total), "the matched rows hold"))
		}
	}
	if len(c.Inputs) == 0 {
		// A derived capability's rows are its inputs' rows, each null in the columns of the
		// other input by construction: nothing there is a value the publisher left out.
		missing, err := missingNotes(c, t, ev)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, missing...)
	}
	keys, err := nullKeyNotes(c, t, p, ev)
	if err != nil {
		return nil, nil, err
	}
	return d, append(notes, keys...), nil
}

// hold withholds metric mr's value of group gi, with the note that says why.
func (mr *MetricResult) hold(gi int, note Obj) {
	if mr.held == nil {
		mr.held = make([]Obj, len(mr.Groups.Valid))
	}
	mr.Groups.Valid[gi], mr.Groups.Values[gi] = false, 0
	mr.held[gi] = note
}

// holdTotal withholds metric mr's total, with the note that says why.
func (mr *MetricResult) holdTotal(note Obj) {
	mr.Total.Valid[0], mr.Total.Values[0] = false, 0
	mr.heldTotal = note
}

// onePeriodNote says why metric m, which adds one period only, is null over rows of n
// periods.
func onePeriodNote(m capability.Metric, pd *capability.Periods, n int64, whose string) Obj {
	return Obj{{"code", NoteNotAdditiveOverTime}, {"metric", m.Name}, {"periods", n},
		{"message", fmt.Sprintf("%s rows hold values of %d periods (%s), and %s adds the values of one period only (%s), so it is null here, not their sum. Instead, %s",
			whose, n, pd.Field, m.Name, m.OnePeriod.Reason, m.OnePeriod.Instead)}}
}

// shareNote says why metric m, an average of shares, is null over n shares.
func shareNote(m capability.Metric, n int64, where string) Obj {
	return Obj{{"code", NoteShareNotAveraged}, {"metric", m.Name}, {"shares", n},
		{"message", fmt.Sprintf("%s %d shares (%s %s), and %s does not average shares (%s), so it is null here. Instead, %s",
			where, n, m.UnitColumn, strings.Join(m.Shares.Units, " or "), m.Name, m.Shares.Reason, m.Shares.Instead)}}
}

// render renders the periods_present note of each number of periods a group has, before
// the rows are rendered (writeRow only reads them, from as many goroutines as render rows).
func (d *declared) render() {
	d.rendered = map[int64][]byte{}
	for _, n := range d.periods {
		if _, ok := d.rendered[n]; ok {
			continue
		}
		msg := fmt.Sprintf("this group has a %s for %d periods (%s), the most any group of this answer has", d.value, n, d.field)
		if n < d.most {
			msg = fmt.Sprintf("this group has a %s for %d periods (%s) where other groups of this answer have up to %d: its figures cover fewer periods than theirs", d.value, n, d.field, d.most)
		}
		d.rendered[n] = mustObj(jsonw.Buf{}, Obj{{"code", NotePeriodsPresent}, {"field", d.field}, {"periods", n}, {"most", d.most}, {"message", msg}}).Bytes()
	}
}

// writeRow writes to notes (the notes of a row, separated by commas) the periods_present
// note of group gi.
func (d *declared) writeRow(notes jsonw.Buf, gi int) jsonw.Buf {
	return notes.Raw(d.rendered[d.periods[gi]])
}

// aggregatesColumn reports whether metric m aggregates the values of its column, leaving
// out the rows where it is null (a count of rows, a distinct count with its own note and a
// ratio do not).
func aggregatesColumn(m capability.Metric) bool {
	switch m.Agg {
	case capability.Sum, capability.Avg, capability.Min, capability.Max, capability.Median, capability.Percentile, capability.CountNonNull:
		return m.Column != ""
	}
	return false
}

// missingNotes are the values_missing notes of an answer: for each column metrics aggregate,
// when some matched rows (not all) have no value in it, how many, which metrics leave them
// out, and the first of them. A total withheld or null over mixed units has its own note.
func missingNotes(c *capability.Capability, t *columnar.Table, ev *Evaluation) ([]Obj, error) {
	matched := int64(ev.Sel.Len())
	var out []Obj
	var cols []string
	for _, m := range c.Metrics {
		if aggregatesColumn(m) && !slices.Contains(cols, m.Column) {
			cols = append(cols, m.Column)
		}
	}
	var counters []string
	for _, m := range c.Metrics {
		if m.Agg == capability.Count {
			counters = append(counters, m.Name)
		}
	}
	for _, col := range cols {
		var nulls int64 = -1
		var metrics []string
		for _, mr := range ev.Metrics {
			m := mr.Metric
			if !aggregatesColumn(m) || m.Column != col {
				continue
			}
			if nulls < 0 && len(mr.Total.NullRows) > 0 {
				nulls = mr.Total.NullRows[0]
			}
			if mr.Total.Valid[0] && !mr.Total.Mixed[0] {
				metrics = append(metrics, m.Name)
			}
		}
		if nulls <= 0 || nulls >= matched || len(metrics) == 0 {
			continue
		}
		examples, err := nullRowKeys(t, ev.Sel, col, maxExamples)
		if err != nil {
			return nil, err
		}
		f, _ := c.Field(col)
		has, them := "have", "them"
		if nulls == 1 {
			has, them = "has", "it"
		}
		msg := fmt.Sprintf("%d of the %d matched rows %s no %s, which the schema describes as: %s. %s leave %s out and cover the other %d",
			nulls, matched, has, col, f.Description, strings.Join(metrics, ", "), them, matched-nulls)
		if len(counters) > 0 {
			msg += fmt.Sprintf(", while %s counts all %d", strings.Join(counters, ", "), matched)
		}
		if len(examples) > 0 {
			which := fmt.Sprintf("the first %d", len(examples))
			if int64(len(examples)) == nulls {
				which = them
			}
			msg += fmt.Sprintf("; %s by record key: %s (include_records lists the records, %s null)", which, strings.Join(examples, ", "), col)
		}
		out = append(out, Obj{{"code", NoteValuesMissing}, {"column", col}, {"rows", nulls}, {"matched_rows", matched},
			{"metrics", metrics}, {"first", orEmpty(examples)}, {"message", msg}})
	}
	return out, nil
}

// nullRowKeys are the record keys of the first n rows of sel whose column col is null (the
// keys read at those rows only: the column of keys is not decoded whole).
func nullRowKeys(t *columnar.Table, sel columnar.Selection, col string, n int) ([]string, error) {
	if err := t.Need(col); err != nil {
		return nil, fmt.Errorf("rows without %s: %w", col, err)
	}
	c := t.Col(col)
	var rows []int
	for i, total := 0, sel.Len(); i < total && len(rows) < n; i++ {
		if r := sel.Row(i); !present(c, r) {
			rows = append(rows, r)
		}
	}
	keys, valid, err := t.Texts(capability.FieldRecordKey, rows)
	if err != nil {
		return nil, fmt.Errorf("rows without %s: %w", col, err)
	}
	var out []string
	for i, k := range keys {
		if valid[i] {
			out = append(out, k)
		}
	}
	return out, nil
}

// nullKeyNotes are the null_group_key notes of an answer: for each group_by dimension whose
// null group holds matched rows, their number and whether the publisher left the value blank.
func nullKeyNotes(c *capability.Capability, t *columnar.Table, p *Params, ev *Evaluation) ([]Obj, error) {
	var out []Obj
	for k, dim := range p.GroupBy {
		var rows int64
		for gi, codes := range ev.Groups.Codes {
			if codes[k] < 0 {
				rows += sourceRows(ev.Lineage[gi])
			}
		}
		if rows == 0 {
			continue
		}
		f, _ := c.Field(dim)
		note := Obj{{"code", NoteNullGroupKey}, {"dimension", dim}, {"rows", rows}}
		msg := fmt.Sprintf("%d matched rows have no %s, so they form the group whose %s is null", rows, dim, dim)
		switch {
		case f.From != "":
			if err := t.Need(dim, f.From); err != nil {
				return nil, fmt.Errorf("null %s: %w", dim, err)
			}
			key, from := t.Col(dim), t.Col(f.From)
			var blank int64
			for i, n := 0, ev.Sel.Len(); i < n; i++ {
				if r := ev.Sel.Row(i); key.Codes[r] < 0 && !present(from, r) {
					blank++
				}
			}
			note = append(note, KV{"blank_in_source", blank}, KV{"not_mapped", rows - blank})
			msg += fmt.Sprintf(": %s is mapped from %s, which the publisher left blank on %d of them", dim, f.From, blank)
			if rows > blank {
				msg += fmt.Sprintf(", and whose published value maps to no %s on %d", dim, rows-blank)
			}
			msg += fmt.Sprintf("; filter or group by %s to see them as published", f.From)
		case f.Nulls != "":
			note = append(note, KV{"blank_in_source", nil})
			msg += fmt.Sprintf(": a null %s is %s", dim, f.Nulls)
		default:
			note = append(note, KV{"blank_in_source", rows})
			msg += fmt.Sprintf(": the publisher left %s blank on them (%s: %s)", dim, dim, f.Description)
		}
		out = append(out, append(note, KV{"message", msg}))
	}
	return out, nil
}

package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// The default question set of a capability is built from its definition alone, with group
// keys and a filter value read from its snapshot, so every served capability is benchmarked
// with no code of its own:
//
//   - total: every metric over every row;
//   - by_<k1>: one key, the group_by dimension with the fewest distinct values above one;
//   - by_<k1>_<k2>: two keys, k1 and the dimension with the most distinct values up to
//     maxGroupValues (the heaviest grouping that still reads as a table);
//   - top_<n>_<k2>: k2 ranked by the first metric that aggregates values (else the first
//     metric), the first n kept and the rest folded into (other);
//   - <f>_eq_by_<k1>: a selective filter, the value of the filter field whose most common
//     value covers the fewest rows (that value), grouped by k1;
//   - records_limit<recordsLimit>: the first records and the summary totals.
//
// Ties go to the field defined first. Each query carries the same question in DuckDB's SQL,
// generated from the metrics' aggregations, so the engines' answers are compared before any
// time is reported.

// maxGroupValues bounds the distinct values of the second group key and of the ranked one.
const maxGroupValues = 1000

// topN is how many groups the ranking query keeps.
const topN = 10

// recordsLimit is how many records the records query asks for.
const recordsLimit = 100

// generatedQueries is the default question set of c over its snapshot table t (whose filter
// and group_by columns are dictionaries, as the service loads them). Query names start with
// the capability's tool name, so sets of several capabilities never collide.
func generatedQueries(c *capability.Capability, t *columnar.Table) ([]Query, error) {
	type dim struct {
		field    capability.Field
		distinct int
		top      int // rows of the most common value
		topValue string
	}
	read := func(f capability.Field) (dim, error) {
		col, err := t.Column(f.Name)
		if err != nil {
			return dim{}, fmt.Errorf("%s: %w", c.ID, err)
		}
		if col.Kind != columnar.Dict {
			return dim{}, fmt.Errorf("%s: %s is not held as dictionary codes", c.ID, f.Name)
		}
		d := dim{field: f, distinct: len(col.Values)}
		counts := make([]int, len(col.Values))
		for _, code := range col.Codes {
			if code >= 0 {
				counts[code]++
			}
		}
		for code, n := range counts {
			if n > d.top { // the first of equally common values, in dictionary order
				d.top, d.topValue = n, col.Values[code]
			}
		}
		return d, nil
	}
	var dims, filters []dim
	for _, f := range c.Fields {
		if !f.GroupBy && !f.Filter {
			continue
		}
		d, err := read(f)
		if err != nil {
			return nil, err
		}
		if f.GroupBy && d.distinct > 1 {
			dims = append(dims, d)
		}
		if f.Filter && d.distinct > 1 {
			filters = append(filters, d)
		}
	}
	// Keys are compared as text between engines: a Number dimension is a key only when the
	// capability has no other.
	if slices.ContainsFunc(dims, func(d dim) bool { return d.field.Type != capability.Number }) {
		dims = slices.DeleteFunc(dims, func(d dim) bool { return d.field.Type == capability.Number })
	}
	prefix := c.ToolName() + "/"
	g := sqlGen{c: c}
	out := []Query{{Name: prefix + "total", Path: c.Path, Body: `{}`, SQL: "SELECT " + g.metrics() + " FROM {facts}"}}

	var k1, k2 *dim
	for i := range dims {
		if k1 == nil || dims[i].distinct < k1.distinct {
			k1 = &dims[i]
		}
	}
	for i := range dims {
		if d := &dims[i]; d != k1 && d.distinct <= maxGroupValues && (k2 == nil || d.distinct > k2.distinct) {
			k2 = d
		}
	}
	if k1 != nil {
		out = append(out, g.grouped(prefix+"by_"+k1.field.Name, body{GroupBy: []string{k1.field.Name}}, "", k1.field.Name))
	}
	if k1 != nil && k2 != nil {
		out = append(out, g.grouped(prefix+"by_"+k1.field.Name+"_"+k2.field.Name, body{GroupBy: []string{k1.field.Name, k2.field.Name}}, "",
			k1.field.Name, k2.field.Name))
		n := min(topN, k2.distinct-1) // fewer than the groups, so (other) is never empty
		order := c.Metrics[0]
		if i := slices.IndexFunc(c.Metrics, valueMetric); i >= 0 {
			order = c.Metrics[i]
		}
		out = append(out, g.top(fmt.Sprintf("%stop%d_%s", prefix, n, k2.field.Name), k2.field, order, n))
	}
	if len(filters) > 0 {
		f := filters[0]
		for _, d := range filters[1:] {
			if d.top < f.top {
				f = d
			}
		}
		b := body{Filters: map[string][]string{f.field.Name: {f.topValue}}}
		var keys []string
		if k1 != nil && k1.field.Name != f.field.Name {
			keys = []string{k1.field.Name}
			b.GroupBy = keys
		}
		where := quoteIdent(f.field.Name) + " = " + literal(f.field.Type, f.topValue)
		name := prefix + f.field.Name + "_eq"
		if len(keys) > 0 {
			name += "_by_" + keys[0]
		}
		out = append(out, g.grouped(name, b, where, keys...))
	}
	out = append(out, g.records(prefix+fmt.Sprintf("records_limit%d", recordsLimit)))
	return out, nil
}

// valueMetric reports whether m aggregates its column's values (not a count of rows).
func valueMetric(m capability.Metric) bool {
	switch m.Agg {
	case capability.Sum, capability.Avg, capability.Min, capability.Max, capability.Ratio:
		return true
	}
	return false
}

// body is a query's JSON params, in the fields the generated questions use.
type body struct {
	Filters        map[string][]string `json:"filters,omitempty"`
	GroupBy        []string            `json:"group_by,omitempty"`
	OrderBy        string              `json:"order_by,omitempty"`
	TopN           int                 `json:"top_n,omitempty"`
	IncludeRecords bool                `json:"include_records,omitempty"`
	Limit          int                 `json:"limit,omitempty"`
}

func (b body) String() string {
	out, err := json.Marshal(b)
	if err != nil {
		panic(err) // maps of strings and slices always marshal
	}
	return string(out)
}

// sqlGen writes a capability's questions in DuckDB's SQL.
type sqlGen struct{ c *capability.Capability }

// metric is metric m over the rows in scope, as the service answers it: sums, averages and
// extremes as DOUBLE; a ratio the quotient of two sums, null where the denominator is null or
// zero; where m has a unit column, null over rows whose non-null inputs mix units (a null
// unit is a unit of its own) for the aggregations the engine checks (sum, avg, min, max, and
// count non-null over a numeric column, medians and percentiles); and null where the
// capability's declarations withhold it (declared).
func (g sqlGen) metric(m capability.Metric) string {
	return g.declared(m, g.aggregate(m))
}

// aggregate is metric m's aggregation with the unit-column rule.
func (g sqlGen) aggregate(m capability.Metric) string {
	col := quoteIdent(m.Column)
	var e string
	switch m.Agg {
	case capability.Count:
		return "count(*)"
	case capability.CountNonNull:
		e = "count(" + col + ")"
	case capability.CountDistinct:
		return "count(DISTINCT " + col + ")"
	case capability.Sum:
		e = "sum(" + col + ")::DOUBLE"
	case capability.Avg:
		e = "avg(" + col + ")::DOUBLE"
	case capability.Min:
		e = "min(" + col + ")::DOUBLE"
	case capability.Max:
		e = "max(" + col + ")::DOUBLE"
	case capability.Ratio:
		return "(sum(" + col + ")::DOUBLE / nullif(sum(" + quoteIdent(m.Denominator) + ")::DOUBLE, 0))"
	case capability.Median, capability.Percentile:
		// quantile_cont interpolates linearly between the two nearest ranks, as the engine does.
		p, _ := m.Quantile()
		e = "quantile_cont(" + col + ", " + strconv.FormatFloat(p/100, 'g', -1, 64) + ")::DOUBLE"
	default:
		panic(fmt.Sprintf("aggregation %q", m.Agg))
	}
	f, _ := g.c.Field(m.Column)
	numeric := f.Type == capability.Integer || f.Type == capability.Number
	if m.UnitColumn == "" || (m.Agg == capability.CountNonNull && !numeric) {
		return e
	}
	u, in := quoteIdent(m.UnitColumn), " FILTER (WHERE "+col+" IS NOT NULL)"
	return "CASE WHEN count(DISTINCT " + u + ")" + in + " + coalesce(bool_or(" + u + " IS NULL)" + in + ", false)::INT > 1 THEN NULL ELSE " + e + " END"
}

// declared is expression e of metric m null where the capability's declarations withhold
// it, as the service does: a metric that adds one period only (OnePeriod) over rows whose
// values are of more than one period (Capability.Periods), and a metric of shares over
// more than one row holding a share (Shares: its unit column reads one of the share units).
func (g sqlGen) declared(m capability.Metric, e string) string {
	if pd := g.c.Periods; m.OnePeriod != nil && pd != nil {
		e = "CASE WHEN count(DISTINCT " + quoteIdent(pd.Field) + ") FILTER (WHERE " + quoteIdent(pd.Value) + " IS NOT NULL) > 1 THEN NULL ELSE " + e + " END"
	}
	if sh := m.Shares; sh != nil {
		units := make([]string, len(sh.Units))
		for i, u := range sh.Units {
			units[i] = literal(capability.String, u)
		}
		e = "CASE WHEN count(*) FILTER (WHERE " + quoteIdent(m.UnitColumn) + " IN (" + strings.Join(units, ", ") + ") AND " + quoteIdent(m.Column) +
			" IS NOT NULL) > 1 THEN NULL ELSE " + e + " END"
	}
	return e
}

// metrics is every metric of the capability, in its order, as a select list.
func (g sqlGen) metrics() string {
	parts := make([]string, len(g.c.Metrics))
	for i, m := range g.c.Metrics {
		parts[i] = g.metric(m)
	}
	return strings.Join(parts, ", ")
}

// grouped is a question grouped by keys (none: one row), over the rows where holds ("" for
// all); its SQL selects the keys, then every metric.
func (g sqlGen) grouped(name string, b body, where string, keys ...string) Query {
	var sql strings.Builder
	sql.WriteString("SELECT ")
	for _, k := range keys {
		sql.WriteString(quoteIdent(k) + ", ")
	}
	sql.WriteString(g.metrics() + " FROM {facts}")
	if where != "" {
		sql.WriteString(" WHERE " + where)
	}
	if len(keys) > 0 {
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = quoteIdent(k)
		}
		sql.WriteString(" GROUP BY " + strings.Join(quoted, ", "))
	}
	return Query{Name: name, Path: g.c.Path, Body: b.String(), SQL: sql.String()}
}

// top is the ranking question: groups of key ranked by metric order (descending, nulls last,
// ties in key order), the first n kept and the rest folded into one (other) row whose
// additive metrics are the sums of its groups' values and whose other metrics are null, as
// the service answers it.
func (g sqlGen) top(name string, key capability.Field, order capability.Metric, n int) Query {
	k := quoteIdent(key.Name)
	var cols, folded []string
	for i, m := range g.c.Metrics {
		alias := fmt.Sprintf("m%d", i)
		cols = append(cols, g.metric(m)+" AS "+alias)
		if m.Additive {
			folded = append(folded, "sum("+alias+")")
		} else {
			folded = append(folded, "NULL")
		}
	}
	orderAlias := fmt.Sprintf("m%d", slices.IndexFunc(g.c.Metrics, func(m capability.Metric) bool { return m.Name == order.Name }))
	var kept []string
	for i := range g.c.Metrics {
		kept = append(kept, fmt.Sprintf("m%d", i))
	}
	sql := fmt.Sprintf(`WITH g AS (SELECT %s AS k, %s FROM {facts} GROUP BY %s),
r AS (SELECT k, %s, row_number() OVER (ORDER BY %s DESC NULLS LAST, k ASC NULLS LAST) <= %d AS top FROM g)
SELECT k::VARCHAR, %s FROM r WHERE top
UNION ALL
SELECT '(other)', %s FROM r WHERE NOT top HAVING count(*) > 0`,
		k, strings.Join(cols, ", "), k, strings.Join(kept, ", "), orderAlias, n, strings.Join(kept, ", "), strings.Join(folded, ", "))
	b := body{GroupBy: []string{key.Name}, OrderBy: order.Name, TopN: n}
	return Query{Name: name, Path: g.c.Path, Body: b.String(), SQL: sql}
}

// records is the records question: the first recordsLimit records in source order, compared
// on the record key and the numeric fields the metrics read, and the summary totals of every
// metric over every row.
func (g sqlGen) records(name string) Query {
	var vals []string
	for _, m := range g.c.Metrics {
		for _, col := range []string{m.Column, m.Denominator} {
			f, ok := g.c.Field(col)
			if ok && (f.Type == capability.Integer || f.Type == capability.Number) && !slices.Contains(vals, col) {
				vals = append(vals, col)
			}
		}
	}
	cols := []string{quoteIdent(capability.FieldRecordKey)}
	for _, v := range vals {
		cols = append(cols, quoteIdent(v))
	}
	b := body{IncludeRecords: true, Limit: recordsLimit}
	return Query{Name: name, Path: g.c.Path, Body: b.String(),
		SQL:        "SELECT " + strings.Join(cols, ", ") + fmt.Sprintf(" FROM {facts} LIMIT %d", recordsLimit),
		SummarySQL: "SELECT " + g.metrics() + " FROM {facts}",
		Records:    true, Limit: recordsLimit, RecordKey: capability.FieldRecordKey, RecordValues: vals}
}

// quoteIdent is name as a DuckDB identifier.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// literal is the SQL literal of a value of a field of type t, given as the engine's text.
func literal(t capability.Type, v string) string {
	switch t {
	case capability.Integer, capability.Number, capability.Boolean:
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

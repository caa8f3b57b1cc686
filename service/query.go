package service

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// sampleRows is how many source rows an aggregate citation samples.
const sampleRows = 5

// OtherGroup is the group value of the remainder row that top_n folds into.
const OtherGroup = "(other)"

// Prepared is a validated query, ready to run.
type Prepared struct {
	c      *capability.Capability
	snap   *Snapshot
	params *Params
	pinned bool
}

// Pinned reports whether the query names an exact as_of (its answer never changes).
func (q *Prepared) Pinned() bool { return q.pinned }

// Prepare resolves capability path p and validates raw params against it.
func (s *Service) Prepare(p string, raw RawParams) (*Prepared, *Error) {
	c, e := s.resolve(p)
	if e != nil {
		return nil, e
	}
	params, snap, e := s.Validate(c, raw)
	if e != nil {
		return nil, e
	}
	return &Prepared{c: c, snap: snap, params: params, pinned: Pinned(raw)}, nil
}

// Run answers a prepared query with its JSON payload. Answers are cached by capability,
// snapshot and canonical params — except with include_evidence, which re-verifies the raw
// files on every call.
func (s *Service) Run(q *Prepared) ([]byte, *Error) {
	if q.params.IncludeEvidence {
		return s.run(q.c, q.snap, q.params)
	}
	key := q.c.ID + "\x00" + q.snap.Manifest.Fingerprint + "\x00" + string(mustJSON(q.params.canonical(q.c)))
	if body, ok := s.cache.get(key); ok {
		return body, nil
	}
	body, e := s.run(q.c, q.snap, q.params)
	if e == nil {
		s.cache.put(key, body)
	}
	return body, e
}

// QueryRaw answers a query on capability path p; it returns the JSON payload, or an error.
func (s *Service) QueryRaw(p string, raw RawParams) ([]byte, *Error) {
	q, e := s.Prepare(p, raw)
	if e != nil {
		return nil, e
	}
	return s.Run(q)
}

// QueryJSON answers a query given as a JSON params object (POST body, MCP arguments).
func (s *Service) QueryJSON(p string, body []byte) ([]byte, *Error) {
	raw, e := ParseBody(body)
	if e != nil {
		return nil, e
	}
	return s.QueryRaw(p, raw)
}

// metricResult is one metric over the groups and over the whole matched set.
type metricResult struct {
	m      capability.Metric
	groups columnar.Result
	total  columnar.Result
}

func aggOf(a capability.Agg) columnar.Agg {
	switch a {
	case capability.Count:
		return columnar.AggCount
	case capability.CountNonNull:
		return columnar.AggCountNonNull
	case capability.Sum:
		return columnar.AggSum
	case capability.Avg:
		return columnar.AggAvg
	case capability.Min:
		return columnar.AggMin
	case capability.Max:
		return columnar.AggMax
	}
	return columnar.AggCountDistinct
}

// Predicates are the engine predicates of the filters and date ranges of p.
func Predicates(c *capability.Capability, t *columnar.Table, p *Params) []columnar.Predicate {
	var preds []columnar.Predicate
	for _, name := range c.FilterNames()[1:] {
		if vals, ok := p.Filters[name]; ok {
			preds = append(preds, columnar.Predicate{Column: name, Allow: t.Col(name).AllowValues(vals)})
		}
	}
	for _, r := range c.DateRanges {
		if b, ok := p.Ranges[r.Name]; ok {
			preds = append(preds, columnar.Predicate{Column: r.Column, Allow: t.Col(r.Column).AllowRange(b[0], b[1])})
		}
	}
	return preds
}

// Aggregate computes metric m per group of g; a ratio is the quotient of two sums (null
// where the denominator is null or zero). The benchmark harness calls it to time the engine
// exactly as the service uses it.
func Aggregate(t *columnar.Table, sel columnar.Selection, g *columnar.Grouping, m capability.Metric) columnar.Result {
	if m.Agg != capability.Ratio {
		return t.Aggregate(sel, g, aggOf(m.Agg), m.Column, m.UnitColumn)
	}
	num := t.Aggregate(sel, g, columnar.AggSum, m.Column, "")
	den := t.Aggregate(sel, g, columnar.AggSum, m.Denominator, "")
	for i := range num.Values {
		num.Valid[i] = num.Valid[i] && den.Valid[i] && den.Values[i] != 0
		if num.Valid[i] {
			num.Values[i] /= den.Values[i]
		} else {
			num.Values[i] = 0
		}
	}
	return num
}

// outRow is one row of the response before rendering.
type outRow struct {
	group   []string // dimension values (text)
	null    []bool   // which dimension values are null
	other   bool
	gi      int // group index in the grouping (-1 for other)
	sources []columnar.Source
	members []int // groups folded into (other)
}

func (s *Service) run(c *capability.Capability, snap *Snapshot, p *Params) ([]byte, *Error) {
	t := snap.Table
	sel := t.Filter(Predicates(c, t, p))
	groups := t.Group(sel, p.GroupBy)
	whole := groups
	if len(p.GroupBy) > 0 {
		whole = t.Group(sel, nil)
	}
	results := make([]metricResult, len(c.Metrics))
	for i, m := range c.Metrics {
		results[i] = metricResult{m: m, groups: Aggregate(t, sel, groups, m)}
		// Without group_by the single row is the whole matched set: its values are the totals.
		results[i].total = results[i].groups
		if whole != groups {
			results[i].total = Aggregate(t, sel, whole, m)
		}
	}
	lineage := t.Lineage(sel, groups, capability.ColSourceFile, capability.ColSheet, sampleRows)
	wholeLineage := lineage
	if whole != groups {
		wholeLineage = t.Lineage(sel, whole, capability.ColSourceFile, capability.ColSheet, sampleRows)
	}

	rows := make([]outRow, groups.N)
	for gi := range rows {
		r := outRow{gi: gi, sources: lineage[gi]}
		for k, col := range groups.Keys {
			code := groups.Codes[gi][k]
			if code < 0 {
				r.group, r.null = append(r.group, ""), append(r.null, true)
			} else {
				r.group, r.null = append(r.group, col.Values[code]), append(r.null, false)
			}
		}
		rows[gi] = r
	}
	metricIdx := -1
	if p.OrderBy != "" {
		for i, m := range c.Metrics {
			if m.Name == p.OrderBy {
				metricIdx = i
			}
		}
		rank(rows, results[metricIdx].groups, p.Order == "asc")
	}
	if p.TopN > 0 && len(rows) > p.TopN {
		rest := rows[p.TopN:]
		rows = rows[:p.TopN]
		if p.RollupOther {
			rows = append(rows, foldOther(rest, len(p.GroupBy)))
		}
	}

	canon := p.canonical(c)
	var filters Obj
	for _, kv := range canon {
		if kv.K == "filters" {
			filters = append(filters, kv.V.(Obj)...)
		}
	}
	citeBuf := getBuf()
	cw := newCiteWriter(c, snap, p, filters, *citeBuf, s.cites)
	defer func() { putBuf(citeBuf, cw.buf) }()

	// The rows, rendered one after the other: each {"group", "metrics", "notes"?, "lineage":
	// {"citation_ref", "citation_refs"? (more than one source), "source_rows_count"}}.
	rowsBuf := getBuf()
	out := append((*rowsBuf)[:0], '[')
	defer func() { putBuf(rowsBuf, out) }()
	group := make(Obj, 0, len(p.GroupBy))
	var err error
	for i, r := range rows {
		group = group[:0]
		for k, name := range p.GroupBy {
			f, _ := c.Field(name)
			if r.other {
				group = append(group, KV{name, OtherGroup})
			} else if r.null[k] {
				group = append(group, KV{name, nil})
			} else {
				group = append(group, KV{name, typed(f.Type, r.group[k])})
			}
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"group":`...)
		if out, err = appendObj(out, group); err != nil {
			panic(err)
		}
		out = append(out, `,"metrics":{`...)
		var notes []Obj
		for j, mr := range results {
			if j > 0 {
				out = append(out, ',')
			}
			out = appendString(out, mr.m.Name, true)
			out = append(out, ':')
			if out, err = rowValue(mr, r).appendJSON(out); err != nil {
				panic(err)
			}
			notes = append(notes, rowNotes(mr, r)...)
		}
		out = append(out, '}')
		if len(notes) > 0 {
			out = append(out, `,"notes":`...)
			if out, err = appendValue(out, notes); err != nil {
				panic(err)
			}
		}
		refs := cw.refs(r.sources, group)
		out = append(out, `,"lineage":{"citation_ref":`...)
		if len(refs) == 0 {
			out = append(out, "null"...)
		} else {
			out = appendString(out, refs[0], false)
		}
		if len(refs) > 1 {
			out = append(out, `,"citation_refs":`...)
			out, _ = appendValue(out, refs)
		}
		out = append(out, `,"source_rows_count":`...)
		out = strconv.AppendInt(out, sourceRows(r.sources), 10)
		out = append(out, "}}"...)
	}
	out = append(out, ']')

	totals := Obj{}
	units := Obj{}
	var notes []Obj
	for _, mr := range results {
		totals = append(totals, KV{mr.m.Name, num(mr.total, 0)})
		units = append(units, KV{mr.m.Name, mr.m.Unit})
		notes = append(notes, totalNotes(c, snap, mr, sel.Len())...)
	}
	totalRefs := cw.refs(wholeLineage[0], Obj{})
	summary := Obj{
		{"group_count", groups.N},
		{"returned_group_count", len(rows)},
		{"matched_source_rows", sel.Len()},
		{"totals", totals},
		{"units", units},
		{"notes", orEmptyNotes(notes)},
		{"citation_refs", orEmptyList(totalRefs)},
	}
	doc := Obj{
		{"capability", c.ID},
		{"as_of", snap.Manifest.AsOf},
		{"query", canon},
		{"summary", summary},
		{"rows", rawJSON(out)},
	}
	if p.IncludeRecords {
		recs, e := s.records(c, snap, sel, p.Limit)
		if e != nil {
			return nil, e
		}
		summary = append(summary, KV{"records_returned", len(recs)}, KV{"records_truncated", len(recs) < sel.Len()})
		doc[3].V = summary
		doc = append(doc, KV{"records", recs})
	}
	doc = append(doc, KV{"citations", cw.object(s, p.IncludeEvidence)})
	docBuf := getBuf()
	rendered, err := appendObj(*docBuf, doc)
	if err != nil {
		panic(err)
	}
	body := append(make([]byte, 0, len(rendered)), rendered...)
	putBuf(docBuf, rendered)
	return body, nil
}

func orEmptyNotes(n []Obj) []Obj {
	if n == nil {
		return []Obj{}
	}
	return n
}

func sourceRows(srcs []columnar.Source) int64 {
	var n int64
	for _, s := range srcs {
		n += s.Rows
	}
	return n
}

// rank orders rows by a metric (nulls last whatever the order), ties in group-key order.
func rank(rows []outRow, res columnar.Result, asc bool) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].gi, rows[j].gi
		va, vb := res.Valid[a], res.Valid[b]
		if va != vb {
			return va
		}
		if !va || res.Values[a] == res.Values[b] {
			return a < b
		}
		if asc {
			return res.Values[a] < res.Values[b]
		}
		return res.Values[a] > res.Values[b]
	})
}

// foldOther folds the rows beyond top_n into one (other) row: additive metrics are the sum
// of the folded groups (so rows reconcile to the totals), non-additive ones are null.
func foldOther(rest []outRow, keys int) outRow {
	o := outRow{other: true, gi: -1}
	byFile := map[int32]*columnar.Source{}
	for _, r := range rest {
		o.members = append(o.members, r.gi)
		for _, src := range r.sources {
			m := byFile[src.File]
			if m == nil {
				m = &columnar.Source{File: src.File}
				byFile[src.File] = m
			}
			m.Rows += src.Rows
			m.Sample = append(m.Sample, src.Sample...)
			for _, sh := range src.Sheets {
				if !containsInt32(m.Sheets, sh) {
					m.Sheets = append(m.Sheets, sh)
				}
			}
		}
	}
	for _, m := range byFile {
		sort.Slice(m.Sample, func(i, j int) bool { return m.Sample[i] < m.Sample[j] })
		if len(m.Sample) > sampleRows {
			m.Sample = m.Sample[:sampleRows]
		}
		sort.Slice(m.Sheets, func(i, j int) bool { return m.Sheets[i] < m.Sheets[j] })
		o.sources = append(o.sources, *m)
	}
	sort.Slice(o.sources, func(i, j int) bool { return o.sources[i].File < o.sources[j].File })
	return o
}

func containsInt32(l []int32, x int32) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

func num(r columnar.Result, gi int) Num {
	if gi < 0 || gi >= len(r.Values) {
		return Num{}
	}
	return Num{V: r.Values[gi], Valid: r.Valid[gi]}
}

func rowValue(mr metricResult, r outRow) Num {
	if !r.other {
		return num(mr.groups, r.gi)
	}
	if !mr.m.Additive {
		return Num{}
	}
	var sum Num
	for _, gi := range r.members {
		if mr.groups.Valid[gi] {
			sum.V += mr.groups.Values[gi]
			sum.Valid = true
		}
	}
	return sum
}

func rowNotes(mr metricResult, r outRow) []Obj {
	if r.other {
		return nil
	}
	var out []Obj
	if mr.m.NullNote != "" && mr.groups.NullRows[r.gi] > 0 {
		out = append(out, nullNote(mr.m, mr.groups.NullRows[r.gi]))
	}
	if mr.groups.Mixed[r.gi] {
		out = append(out, mixedNote(mr.m))
	}
	return out
}

func nullNote(m capability.Metric, n int64) Obj {
	return Obj{{"code", m.NullNote}, {"metric", m.Name}, {"count", n},
		{"message", fmt.Sprintf("%d matched rows have no %s and are not counted in %s", n, m.Column, m.Name)}}
}

func mixedNote(m capability.Metric) Obj {
	return Obj{{"code", "mixed_units"}, {"metric", m.Name},
		{"message", fmt.Sprintf("the matched rows mix units (%s), so %s is null; filter on or group by %s", m.UnitColumn, m.Name, m.UnitColumn)}}
}

func totalNotes(c *capability.Capability, snap *Snapshot, mr metricResult, matched int) []Obj {
	var out []Obj
	if mr.m.NullNote != "" && len(mr.total.NullRows) > 0 {
		out = append(out, nullNote(mr.m, mr.total.NullRows[0]))
	}
	if len(mr.total.Mixed) > 0 && mr.total.Mixed[0] {
		out = append(out, mixedNote(mr.m))
	}
	if matched > 0 && len(mr.total.Valid) > 0 && !mr.total.Valid[0] && !mr.total.Mixed[0] && mr.m.Column != "" {
		out = append(out, Obj{{"code", "not_published"}, {"metric", mr.m.Name},
			{"message", fmt.Sprintf("no matched row reports %s (as_of %s publishes it for none of them), so %s is null, not zero", mr.m.Column, snap.Manifest.AsOf, mr.m.Name)}})
	}
	return out
}

func text(t *columnar.Table, col string, r int) string {
	v, _ := t.Col(col).Text(r)
	return v
}

func intText(t *columnar.Table, col string, r int) int64 {
	v, _ := t.Col(col).Text(r)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

// records renders up to limit matched rows, in source order, each with its citation.
func (s *Service) records(c *capability.Capability, snap *Snapshot, sel columnar.Selection, limit int) ([]Obj, *Error) {
	n := min(limit, sel.Len())
	out := make([]Obj, 0, n)
	for i := 0; i < n; i++ {
		r := sel.Row(i)
		rec := make(Obj, 0, len(c.Fields)+1)
		for _, f := range c.Fields {
			v, ok := snap.Table.Col(f.Name).Text(r)
			if !ok {
				rec = append(rec, KV{f.Name, nil})
				continue
			}
			if f.Type == capability.Number {
				fv, _ := strconv.ParseFloat(v, 64)
				rec = append(rec, KV{f.Name, Num{V: fv, Valid: true}})
				continue
			}
			rec = append(rec, KV{f.Name, typed(f.Type, v)})
		}
		rec = append(rec, KV{"citation", rawJSON(appendRecordCitation(nil, snap, r))})
		out = append(out, rec)
	}
	return out, nil
}

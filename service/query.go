package service

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/jsonw"
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
	// latest says the query asks for the latest snapshot (no date, pinned or on:<date>).
	latest bool
	// cmp is the other side of a query with compare_as_of (compare.go).
	cmp *comparison
	// index is the raw-file index of the catalog the snapshot was resolved in: the evidence
	// of the answer lists the snapshots of that catalog (cited_by), never of a later one.
	index *rawIndex
}

// Pinned reports whether the answer never changes: the query names an exact as_of and does
// not include evidence (whose cited_by lists every snapshot built from the cited file, so a
// later promotion over the same file changes it).
func (q *Prepared) Pinned() bool { return q.pinned && !q.params.IncludeEvidence }

// Reverified reports whether the answer re-verifies raw files (include_evidence): like the
// evidence endpoint's, it must be revalidated on every use.
func (q *Prepared) Reverified() bool { return q.params.IncludeEvidence }

// Prepare resolves capability path p and validates the request against it; req is left as
// it is.
func (s *Service) Prepare(p string, req *Request) (*Prepared, *apierror.Error) {
	// One catalog throughout: when a reload replaces it while the query is resolved, the query
	// is resolved again in the new one, so its snapshot and its evidence agree.
	for {
		index := s.rawIndexNow()
		q, e := s.prepare(p, req)
		if e != nil {
			return nil, e
		}
		if s.rawIndexNow() == index {
			q.index = index
			return q, nil
		}
	}
}

// prepare is Prepare in the catalog served now.
func (s *Service) prepare(p string, req *Request) (*Prepared, *apierror.Error) {
	c, e := s.resolve(p)
	if e != nil {
		return nil, e
	}
	if req.err != nil {
		return nil, req.err
	}
	req = req.clone()
	// as_of on:<date> resolves to a served date first; the answer is then the one pinned to
	// that date, though not pinned itself: a snapshot promoted later may be in force then.
	on, e := s.resolveAsOfOn(c, req)
	if e != nil {
		return nil, e
	}
	if req.compare != "" {
		q, e := s.prepareCompare(c, req, on)
		if e != nil {
			return nil, e
		}
		if e := setPage(c, q.snap, q.params, q.cmp.snap.Manifest.AsOf+"/"+q.cmp.snap.Manifest.Fingerprint, req.cursor); e != nil {
			return nil, e
		}
		return q, nil
	}
	params, snap, e := s.Validate(c, req)
	if e != nil {
		return nil, e
	}
	// A derived answer is computed from the inputs served on its as_of, to which ingest may
	// still add a snapshot dated earlier: it is never pinned.
	pinned := req.pinned() && !on && snap.derived == nil
	if snap.derived != nil {
		if e := snap.derived.check(params); e != nil {
			return nil, e
		}
	}
	if e := setPage(c, snap, params, "", req.cursor); e != nil {
		return nil, e
	}
	return &Prepared{c: c, snap: snap, params: params, pinned: pinned, latest: !req.pinned()}, nil
}

// Run answers a prepared query with its JSON payload. Answers are cached by capability,
// snapshot and canonical params — except with include_evidence, which re-verifies the raw
// files on every call. A request whose context has ended (its client gone, or its deadline
// passed) before the answer is computed is not computed.
func (s *Service) Run(ctx context.Context, q *Prepared) ([]byte, *apierror.Error) {
	if e := cancelled(ctx); e != nil {
		return nil, e
	}
	if q.cmp != nil {
		return s.compare(q)
	}
	var extra []Obj
	if note := s.staleNote(q); note != nil {
		extra = []Obj{note}
	}
	if q.params.IncludeEvidence {
		return s.runNoted(q.c, q.snap, q.params, extra, q.index)
	}
	key := q.c.ID + "\x00" + q.snap.Manifest.Fingerprint + "\x00" + string(mustJSON(q.params.canonical(q.c)))
	if extra != nil {
		key += "\x00" + string(mustJSON(extra))
	}
	if body, ok := s.cache.get(key); ok {
		return body, nil
	}
	body, e := s.runNoted(q.c, q.snap, q.params, extra, q.index)
	if e == nil {
		s.cache.put(key, body)
	}
	return body, e
}

// QueryRequest answers a query on capability path p, given as a request already read; a
// request whose context has ended before its answer is computed is not answered (Run).
func (s *Service) QueryRequest(ctx context.Context, p string, req *Request) ([]byte, *apierror.Error) {
	q, e := s.Prepare(p, req)
	if e != nil {
		return nil, e
	}
	return s.Run(ctx, q)
}

// QueryJSON answers a query given as a JSON params object (POST body, MCP arguments).
func (s *Service) QueryJSON(ctx context.Context, p string, body []byte) ([]byte, *apierror.Error) {
	req, e := ParseBody(body)
	if e != nil {
		return nil, e
	}
	return s.QueryRequest(ctx, p, req)
}

// MetricResult is one metric over the groups and over the whole matched set.
type MetricResult struct {
	Metric capability.Metric
	Groups columnar.Result
	Total  columnar.Result
	// held are the notes of the values a declaration withholds (capability.Metric.OnePeriod
	// and Shares; declare): by group, nil where none is; heldTotal that of the total.
	held      []Obj
	heldTotal Obj
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
	case capability.Median, capability.Percentile:
		return columnar.AggQuantile
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
			preds = append(preds, rangePredicates(t, r, b)...)
		}
	}
	return preds
}

// rangePredicates are the engine predicates of range r with canonical bounds b.
func rangePredicates(t *columnar.Table, r capability.DateRange, b [2]string) []columnar.Predicate {
	var preds []columnar.Predicate
	for _, rb := range rangeBounds(r, b) {
		preds = append(preds, columnar.Predicate{Column: rb.column, Allow: t.Col(rb.column).AllowRange(rb.lo, rb.hi)})
	}
	return preds
}

// Evaluation is the engine's answer to a query: the matched rows, the groups, every metric
// over the groups and over the whole matched set, and the lineage of both.
type Evaluation struct {
	Sel     columnar.Selection
	Groups  *columnar.Grouping
	Metrics []MetricResult
	Lineage [][]columnar.Source
	Total   []columnar.Source
}

// Evaluate runs the engine work of a query in one pass over the matched rows: the filters,
// then every metric of c (a ratio is the quotient of two sums, null where the denominator is
// null or zero) per group of p.GroupBy and over the whole matched set, with the lineage of
// both. The benchmark harness calls it to time the engine exactly as the service uses it.
func Evaluate(c *capability.Capability, t *columnar.Table, p *Params) (*Evaluation, error) {
	if err := t.Need(QueryColumns(c, p)...); err != nil {
		return nil, err
	}
	sel := t.Filter(Predicates(c, t, p))
	var ops []columnar.Op
	first := make([]int, len(c.Metrics)) // each metric's first op
	for i, m := range c.Metrics {
		first[i] = len(ops)
		if m.Agg == capability.Ratio {
			ops = append(ops, columnar.Op{Agg: columnar.AggSum, Column: m.Column}, columnar.Op{Agg: columnar.AggSum, Column: m.Denominator})
			continue
		}
		ops = append(ops, opOf(m))
	}
	ans := t.Compute(sel, p.GroupBy, ops, &columnar.LineageSpec{FileCol: capability.ColSourceFile, SheetCol: capability.ColSheet, K: sampleRows})
	ev := &Evaluation{Sel: sel, Groups: ans.Groups, Lineage: ans.Lineage, Total: ans.Total}
	for i, m := range c.Metrics {
		mr := MetricResult{Metric: m, Groups: ans.Results[first[i]], Total: ans.Totals[first[i]]}
		if m.Agg == capability.Ratio {
			mr.Groups = quotient(mr.Groups, ans.Results[first[i]+1])
			mr.Total = quotient(mr.Total, ans.Totals[first[i]+1])
		}
		ev.Metrics = append(ev.Metrics, mr)
	}
	return ev, nil
}

// QueryColumns are the columns read to answer p: filters, date ranges, group keys, metric
// inputs and units, and the lineage columns the citations quote.
func QueryColumns(c *capability.Capability, p *Params) []string {
	cols := citationColumns(c)
	for _, name := range c.FilterNames()[1:] {
		if _, ok := p.Filters[name]; ok {
			cols = append(cols, name)
		}
	}
	for _, r := range c.DateRanges {
		if _, ok := p.Ranges[r.Name]; ok {
			cols = append(cols, r.Column)
			if r.Instants != nil {
				cols = append(cols, r.Instants.From, r.Instants.To)
			}
		}
	}
	cols = append(cols, p.GroupBy...)
	for _, m := range c.Metrics {
		for _, col := range []string{m.Column, m.Denominator, m.UnitColumn} {
			if col != "" {
				cols = append(cols, col)
			}
		}
	}
	return cols
}

// unreadable is the error of a snapshot column that cannot be read from its file.
func unreadable(snap *Snapshot, err error) *apierror.Error {
	return apierror.New(500, apierror.CodeInternal, "the %s snapshot as_of %s cannot be read (%v); retry, and report it if it persists", snap.Cap.ID, snap.Manifest.AsOf, err)
}

// quotient divides the sums num by den, null where den is null or zero.
func quotient(num, den columnar.Result) columnar.Result {
	out := columnar.Result{Values: make([]float64, len(num.Values)), Valid: make([]bool, len(num.Values)),
		NullRows: num.NullRows, Mixed: num.Mixed}
	for i := range num.Values {
		if num.Valid[i] && den.Valid[i] && den.Values[i] != 0 {
			out.Values[i], out.Valid[i] = num.Values[i]/den.Values[i], true
		}
	}
	return out
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

func (s *Service) run(c *capability.Capability, snap *Snapshot, p *Params) ([]byte, *apierror.Error) {
	return s.runNoted(c, snap, p, nil, nil)
}

// runNoted answers p over snap in three steps: evaluate (filter, group, aggregate, declare
// what is withheld), rank (order, top-n, (other)) and render (rows, summary, records,
// citations); extra notes go at the end of summary.notes (staleNote). With include_evidence the
// citations are verified against index (nil: the catalog served now).
func (s *Service) runNoted(c *capability.Capability, snap *Snapshot, p *Params, extra []Obj, index *rawIndex) ([]byte, *apierror.Error) {
	ev, evErr := Evaluate(c, snap.Table, p)
	if evErr != nil {
		return nil, unreadable(snap, evErr)
	}
	defer ev.Sel.Release()
	// The declarations withhold values before the groups are ranked by them.
	decl, declNotes, derr := declare(c, snap.Table, p, ev)
	if derr != nil {
		return nil, unreadable(snap, derr)
	}
	rows := rankRows(c, p, ev)
	var verify *verifyRun
	if p.IncludeEvidence {
		verify = s.newVerifyRun(index)
	}
	return s.render(c, snap, p, ev, decl, rows, declNotes, extra, verify)
}

// rankRows makes the output rows of ev's groups, ordered by p.OrderBy and cut to p.TopN, the
// rest folded into (other) when p asks for it.
func rankRows(c *capability.Capability, p *Params, ev *Evaluation) []outRow {
	groups := ev.Groups
	rows := make([]outRow, groups.N)
	nk := len(groups.Keys)
	texts, nulls := make([]string, groups.N*nk), make([]bool, groups.N*nk) // every row's, in one
	for gi := range rows {
		r := outRow{gi: gi, sources: ev.Lineage[gi], group: texts[gi*nk : (gi+1)*nk : (gi+1)*nk], null: nulls[gi*nk : (gi+1)*nk : (gi+1)*nk]}
		for k, col := range groups.Keys {
			if code := groups.Codes[gi][k]; code < 0 {
				r.null[k] = true
			} else {
				r.group[k] = col.Values[code]
			}
		}
		rows[gi] = r
	}
	if p.OrderBy != "" {
		metricIdx := -1
		for i, m := range c.Metrics {
			if m.Name == p.OrderBy {
				metricIdx = i
			}
		}
		rank(rows, ev.Metrics[metricIdx].Groups, p.Order == "asc")
	}
	if p.TopN > 0 && len(rows) > p.TopN {
		rest := rows[p.TopN:]
		rows = rows[:p.TopN]
		if p.RollupOther {
			rows = append(rows, foldOther(rest, len(p.GroupBy)))
		}
	}
	return rows
}

// render writes the answer to p: {capability, as_of, query, summary, rows, records?,
// citations}, the small members rendered first, then the rows, records and citations copied
// once into a buffer sized for all of it.
func (s *Service) render(c *capability.Capability, snap *Snapshot, p *Params, ev *Evaluation, decl *declared, rows []outRow, declNotes, extra []Obj, verify *verifyRun) ([]byte, *apierror.Error) {
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
	nsrc := len(ev.Total)
	for _, r := range rows {
		nsrc += len(r.sources)
	}
	cw.cites = slices.Grow(cw.cites, nsrc)
	if n := len(rows); n > 0 && rows[n-1].other {
		cw.setExcludes(keptGroups(c, p, rows[:n-1]))
	}
	rr := newRowRenderer(c, snap, p, ev.Metrics)
	rr.decl = decl
	out, rowsTail, release := s.renderRows(c, rr, rows, cw, filters)
	defer release()

	summary, e := s.summary(c, snap, p, ev, len(rows), declNotes, extra)
	if e != nil {
		return nil, e
	}
	summary = append(summary, KV{"citation_refs", orEmpty(cw.refs(ev.Total, Obj{}))})
	var recs rawJSON
	if p.IncludeRecords {
		var nrecs int
		recs, nrecs, e = s.records(c, snap, ev.Sel, p.offset, p.Limit)
		if e != nil {
			return nil, e
		}
		more := p.offset+nrecs < ev.Sel.Len()
		summary = append(summary, KV{"records_returned", nrecs}, KV{"records_truncated", more})
		if p.offset > 0 {
			summary = append(summary, KV{"records_offset", p.offset})
		}
		summary = append(summary, pageSummary(p, p.offset+nrecs, more)...)
	}
	head, err := jsonw.Buf{}.OpenObj().KeyString("capability", c.ID).KeyString("as_of", snap.Manifest.AsOf).Key("query").Value(canon)
	if err == nil {
		head, err = head.Key("summary").Obj(summary)
	}
	if err != nil {
		panic(err)
	}
	return s.assemble(head.Bytes(), out, rowsTail, recs, cw, verify), nil
}

// keptGroups are the groups of rows, listed before (other): the (other) row's lineage filter
// leaves them out.
func keptGroups(c *capability.Capability, p *Params, rows []outRow) []Obj {
	kept := make([]Obj, 0, len(rows))
	for _, r := range rows {
		g := make(Obj, 0, len(p.GroupBy))
		for k, name := range p.GroupBy {
			f, _ := c.Field(name)
			if r.null[k] {
				g = append(g, KV{name, nil})
			} else {
				g = append(g, KV{name, typed(f.Type, r.group[k])})
			}
		}
		kept = append(kept, g)
	}
	return kept
}

// renderRows renders rows as a JSON array, one after the other: each {"group", "metrics",
// "notes"?, "lineage": {"citation_ref", "citation_refs"? (more than one source),
// "source_rows_count"}}, their citations written by cw. Many rows are rendered in two halves
// at once, each half's citations by a writer of its own, merged into cw after: the array is
// then out followed by a comma and tail, closed by a bracket (without tail, out and the
// bracket). release returns the buffers.
func (s *Service) renderRows(c *capability.Capability, rr *rowRenderer, rows []outRow, cw *citeWriter, filters Obj) (out, tail []byte, release func()) {
	rowsBuf := getBuf()
	w := jsonw.NewBuf((*rowsBuf)[:0]).OpenArr()
	if len(rows) < parallelRows || runtime.GOMAXPROCS(0) < 2 {
		out = rr.render(w, rows, cw).Bytes()
		return out, nil, func() { putBuf(rowsBuf, out) }
	}
	mid := len(rows) / 2
	secondBuf, citeBuf2 := getBuf(), getBuf()
	cw2 := newCiteWriter(c, rr.snap, rr.p, filters, *citeBuf2, s.cites)
	n2 := 0
	for _, r := range rows[mid:] {
		n2 += len(r.sources)
	}
	cw2.excludes, cw2.cites = cw.excludes, make([]citation, 0, n2)
	var second []byte
	var failed any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { failed = recover() }()
		second = rr.render(jsonw.NewBuf((*secondBuf)[:0]), rows[mid:], cw2).Bytes()
	}()
	out = rr.render(w, rows[:mid], cw).Bytes()
	<-done
	if failed != nil {
		putBuf(rowsBuf, out)
		panic(failed)
	}
	// The second half is written after the first, from its own buffer, and the second
	// writer's citations with the first's.
	cw.merge(cw2)
	return out, second, func() { putBuf(rowsBuf, out); putBuf(secondBuf, second); putBuf(citeBuf2, cw2.buf) }
}

// summary is the answer's summary up to its notes: the group counts, the matched rows, every
// metric's total and unit, and the notes (of the totals, partitions, flags, declarations
// declNotes, unplaced dates, documents, derived inputs, then extra).
func (s *Service) summary(c *capability.Capability, snap *Snapshot, p *Params, ev *Evaluation, returned int, declNotes, extra []Obj) (Obj, *apierror.Error) {
	sel := ev.Sel
	totals := Obj{}
	units := Obj{}
	var notes []Obj
	oneUnit, uerr := matchedUnits(c, snap.Table, sel)
	if uerr != nil {
		return nil, unreadable(snap, uerr)
	}
	var none noRows
	if sel.Len() == 0 {
		none.why, none.extra = s.noRowsWhy(c, snap, p)
	}
	for _, mr := range ev.Metrics {
		totals = append(totals, KV{mr.Metric.Name, num(mr.Total, 0)})
		unit := mr.Metric.Unit
		if u, ok := oneUnit[mr.Metric.UnitColumn]; ok {
			unit = u
		}
		units = append(units, KV{mr.Metric.Name, unit})
		notes = append(notes, totalNotes(c, snap, p, mr, sel.Len(), none)...)
	}
	parts, perr := partitionNotes(c, snap.Table, sel, p, ev.Metrics)
	if perr != nil {
		return nil, unreadable(snap, perr)
	}
	notes = append(notes, parts...)
	flagged, ferr := flagNotes(c, snap, sel, p)
	if ferr != nil {
		return nil, unreadable(snap, ferr)
	}
	notes = append(notes, flagged...)
	notes = append(notes, declNotes...)
	unplaced, uerr := unplacedNotes(c, snap.Table, p)
	if uerr != nil {
		return nil, unreadable(snap, uerr)
	}
	notes = append(notes, unplaced...)
	docs, derr := documentNotes(snap, sel)
	if derr != nil {
		return nil, unreadable(snap, derr)
	}
	notes = append(notes, docs...)
	if snap.derived != nil {
		notes = append(notes, snap.derived.notes(p)...)
	}
	notes = append(notes, extra...)
	return Obj{
		{"group_count", ev.Groups.N},
		{"returned_group_count", returned},
		{"matched_source_rows", sel.Len()},
		{"totals", totals},
		{"units", units},
		{"notes", orEmpty(notes)},
	}, nil
}

// assemble joins the answer's pieces: head (the small members, without the closing brace),
// the rows (out, and tail when rendered in two halves), the records recs (nil without) and
// the citations of cw, each with its evidence verified by verify (nil: without evidence).
// bytes.Join copies them into a buffer of their exact length, which it does not clear first.
func (s *Service) assemble(head, out, tail []byte, recs rawJSON, cw *citeWriter, verify *verifyRun) []byte {
	pieces := append(make([][]byte, 0, 3*len(cw.cites)+12), head, rowsMember, out)
	if tail != nil {
		pieces = append(pieces, comma, tail)
	}
	pieces = append(pieces, closeBracket)
	if recs != nil {
		pieces = append(pieces, recordsMember, recs)
	}
	pieces = cw.citationPieces(append(pieces, citationsMember), s, verify)
	return bytes.Join(append(pieces, closeBrace), nil)
}

// Pieces of the answers' JSON.
var (
	rowsMember, recordsMember, citationsMember = jsonw.Member("rows"), jsonw.Member("records"), jsonw.Member("citations")
	comma, closeBracket, closeBrace            = []byte(","), []byte("]"), []byte("}")
)

// parallelRows is the fewest rows rendered in two halves at once.
const parallelRows = 128

// rowRenderer renders the rows of one answer.
type rowRenderer struct {
	snap       *Snapshot
	p          *Params
	results    []MetricResult
	metricKeys []jsonw.Name // each metric's name
	// keys are each group dimension's name; types their field types.
	keys  []jsonw.Name
	types []capability.Type
	// decl gives each group's periods present, when the groups' numbers differ.
	decl *declared
}

func newRowRenderer(c *capability.Capability, snap *Snapshot, p *Params, results []MetricResult) *rowRenderer {
	rr := &rowRenderer{snap: snap, p: p, results: results, metricKeys: make([]jsonw.Name, len(results)),
		keys: make([]jsonw.Name, len(p.GroupBy)), types: make([]capability.Type, len(p.GroupBy))}
	for j, mr := range results {
		rr.metricKeys[j] = jsonw.NameOf(mr.Metric.Name)
	}
	for k, name := range p.GroupBy {
		f, _ := c.Field(name)
		rr.keys[k], rr.types[k] = jsonw.NameOf(name), f.Type
	}
	return rr
}

// render writes rows to out, separated by commas, citing their sources with cw, and returns
// out.
func (rr *rowRenderer) render(out jsonw.Buf, rows []outRow, cw *citeWriter) jsonw.Buf {
	notesMemo := newNoteMemo(len(rr.results))
	// notes holds the row's notes, gf its members of the lineage filters, ids its citations.
	var notes, gf jsonw.Buf
	var ids []citeID
	var err error
	for i := range rows {
		r := &rows[i]
		out = out.OpenObj().Name(nGroup).OpenObj()
		gf = gf.Reset()
		for k, key := range rr.keys {
			out = out.Name(key)
			from := out.Len()
			switch {
			case r.other:
				out = out.String(OtherGroup)
			case r.null[k]:
				out = out.Null()
			default:
				if out, err = writeTyped(out, rr.types[k], r.group[k]); err != nil {
					panic(err)
				}
			}
			if !r.other {
				gf = gf.Name(key).OpenArr().Append(out.Bytes()[from:]).CloseArr()
			}
		}
		out = out.CloseObj().Name(nMetrics).OpenObj()
		notes = notes.Reset()
		for j := range rr.results {
			mr := &rr.results[j]
			v := rowValue(mr, r)
			if out, err = out.Name(rr.metricKeys[j]).Num(v); err != nil {
				panic(err)
			}
			if v.Valid && !r.other && !mr.Groups.Mixed[r.gi] && (mr.Metric.NullNote == "" || mr.Groups.NullRows[r.gi] == 0) {
				continue // no note (noteMemo.row would add none)
			}
			notes = notesMemo.row(notes, rr.snap, rr.p, j, mr, r, v.Valid)
		}
		if rr.decl != nil && !r.other {
			notes = rr.decl.writeRow(notes, r.gi)
		}
		out = out.CloseObj()
		if notes.Len() > 0 {
			out = out.Name(nNotes).OpenArr().Append(notes.Bytes()).CloseArr()
		}
		ids = ids[:0]
		for _, src := range r.sources {
			ids = append(ids, cw.cite(src, gf.Bytes(), r.other))
		}
		out = out.Name(nLineage).OpenObj().Name(nCitationRef)
		if len(ids) == 0 {
			out = out.Null()
		} else {
			out = writeRef(out, ids[0])
		}
		if len(ids) > 1 {
			out = out.Name(nCitationRefs).OpenArr()
			for _, id := range ids {
				out = writeRef(out, id)
			}
			out = out.CloseArr()
		}
		out = out.Name(nSourceRowsCount).Int(sourceRows(r.sources)).CloseObj().CloseObj()
	}
	return out
}

func sourceRows(srcs []columnar.Source) int64 {
	var n int64
	for _, s := range srcs {
		n += s.Rows
	}
	return n
}

// rank orders rows by a metric (nulls last whatever the order), ties in group-key order. It
// sorts the group indices, then moves each row once.
func rank(rows []outRow, res columnar.Result, asc bool) {
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := rows[i].gi, rows[j].gi
		va, vb := res.Valid[a], res.Valid[b]
		switch {
		case va != vb:
			if va {
				return -1
			}
			return 1
		case !va || res.Values[a] == res.Values[b]:
			return cmp.Compare(a, b)
		}
		x, y := res.Values[a], res.Values[b]
		if !asc {
			x, y = y, x
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0 // incomparable (NaN): the order they came in
	})
	sorted := make([]outRow, len(rows))
	for i, o := range order {
		sorted[i] = rows[o]
	}
	copy(rows, sorted)
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

func rowValue(mr *MetricResult, r *outRow) Num {
	if !r.other {
		return num(mr.Groups, r.gi)
	}
	if !mr.Metric.Additive {
		return Num{}
	}
	var sum Num
	for _, gi := range r.members {
		if mr.Groups.Valid[gi] {
			sum.V += mr.Groups.Values[gi]
			sum.Valid = true
		}
	}
	return sum
}

// noteMemo renders a query's row notes: the notes that are the same on every row they
// stand on (all but the counts of null rows, and the null notes of a capability whose rows
// repeat others', which depend on the group) are rendered once per metric.
type noteMemo struct {
	// text holds, by metric and kind (mixed units, null on a row, null on the (other) row),
	// the notes rendered and separated by commas, once done says so.
	text [][]byte
	done []bool
}

func newNoteMemo(metrics int) *noteMemo {
	return &noteMemo{text: make([][]byte, 3*metrics), done: make([]bool, 3*metrics)}
}

// row writes to notes (the notes of a row, separated by commas) the notes of metric j
// (result mr) on row r, whose value is valid or null, as the rows render them: the null-row
// count and mixed-units notes, then rowNullNote for a null value.
func (m *noteMemo) row(notes jsonw.Buf, snap *Snapshot, p *Params, j int, mr *MetricResult, r *outRow, valid bool) jsonw.Buf {
	if !r.other && mr.held != nil && mr.held[r.gi] != nil {
		return mustObj(notes, mr.held[r.gi])
	}
	if !r.other {
		if mr.Metric.NullNote != "" && mr.Groups.NullRows[r.gi] > 0 {
			notes = writeNullNote(notes, mr.Metric, mr.Groups.NullRows[r.gi])
		}
		if mr.Groups.Mixed[r.gi] {
			notes = m.once(notes, j, 0, func() []Obj { return []Obj{mixedNote(mr.Metric)} })
		}
	}
	if valid || !r.other && mr.Groups.Mixed[r.gi] {
		return notes
	}
	kind := 1
	if r.other {
		kind = 2
	}
	if !r.other && len(snap.Cap.Repeats) > 0 {
		for _, n := range rowNullNote(snap, p, *mr, *r) {
			notes = mustObj(notes, n)
		}
		return notes
	}
	return m.once(notes, j, kind, func() []Obj { return rowNullNote(snap, p, *mr, *r) })
}

// mustObj writes o, which cannot fail to render (a note); it panics otherwise.
func mustObj(w jsonw.Buf, o Obj) jsonw.Buf {
	w, err := w.Obj(o)
	if err != nil {
		panic(err)
	}
	return w
}

// once writes the notes of metric j of a kind, rendered the first time.
func (m *noteMemo) once(dst jsonw.Buf, j, kind int, notes func() []Obj) jsonw.Buf {
	i := 3*j + kind
	if !m.done[i] {
		var w jsonw.Buf
		for _, n := range notes() {
			w = mustObj(w, n)
		}
		m.text[i] = w.Bytes()
		m.done[i] = true
	}
	return dst.Raw(m.text[i])
}

func nullNote(m capability.Metric, n int64) Obj {
	return Obj{{"code", m.NullNote}, {"metric", m.Name}, {"count", n}, {"message", nullMessage(m, n)}}
}

// writeNullNote writes nullNote(m, n) as jsonw renders it, without building it: a row's
// note, written once per row of a many-group answer.
func writeNullNote(w jsonw.Buf, m capability.Metric, n int64) jsonw.Buf {
	return w.OpenObj().Name(nCode).String(m.NullNote).Name(nMetric).String(m.Name).Name(nCount).Int(n).
		Name(nMessage).String(nullMessage(m, n)).CloseObj()
}

// nullMessage is the message of nullNote.
func nullMessage(m capability.Metric, n int64) string {
	return strconv.FormatInt(n, 10) + " matched rows have no " + m.Column + " and are not counted in " + m.Name
}

func mixedNote(m capability.Metric) Obj {
	return Obj{{"code", "mixed_units"}, {"metric", m.Name},
		{"message", fmt.Sprintf("the matched rows mix units (%s), so %s is null; filter on or group by %s", m.UnitColumn, m.Name, m.UnitColumn)}}
}

// noRows is what is true when no row matches (Service.noRowsWhy): why, and the note's
// members that say it (held_by, covers).
type noRows struct {
	why   string
	extra Obj
}

func totalNotes(c *capability.Capability, snap *Snapshot, p *Params, mr MetricResult, matched int, none noRows) []Obj {
	if mr.heldTotal != nil {
		return []Obj{mr.heldTotal}
	}
	var out []Obj
	if matched > 0 && len(mr.Total.Valid) > 0 && !mr.Total.Valid[0] {
		filtered := func(dim string) ([]string, bool) { vals, ok := p.Filters[dim]; return vals, ok }
		if note := repeatNullNote(c, mr.Metric, filtered, "the matched rows"); note != nil {
			return append(out, note)
		}
	}
	if mr.Metric.NullNote != "" && len(mr.Total.NullRows) > 0 {
		out = append(out, nullNote(mr.Metric, mr.Total.NullRows[0]))
	}
	if len(mr.Total.Mixed) > 0 && mr.Total.Mixed[0] {
		out = append(out, mixedNote(mr.Metric))
	}
	if matched > 0 && len(mr.Total.Valid) > 0 && !mr.Total.Valid[0] && !mr.Total.Mixed[0] && mr.Metric.Column != "" {
		if mr.Metric.Agg == capability.Ratio {
			out = append(out, ratioNote(mr.Metric, "the matched rows"))
		} else {
			out = append(out, Obj{{"code", "not_published"}, {"metric", mr.Metric.Name},
				{"message", fmt.Sprintf("no matched row reports %s (as_of %s publishes it for none of them), so %s is null, not zero", mr.Metric.Column, snap.Manifest.AsOf, mr.Metric.Name)}})
		}
	}
	if matched == 0 && len(mr.Total.Valid) > 0 && !mr.Total.Valid[0] {
		note := Obj{{"code", NoteNoRows}, {"metric", mr.Metric.Name}}
		note = append(note, none.extra...)
		out = append(out, append(note, KV{"message", fmt.Sprintf("%s has nothing to aggregate and is null: %s", mr.Metric.Name, none.why)}))
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

// records renders up to limit matched rows from the offset-th on, in source order, each with
// its citation, as a JSON array of objects (each field by name, then "citation"), and returns
// how many: it stops at the first record past PageBytes (paging.go).
func (s *Service) records(c *capability.Capability, snap *Snapshot, sel columnar.Selection, offset, limit int) (rawJSON, int, *apierror.Error) {
	offset = min(offset, sel.Len())
	n := min(limit, sel.Len()-offset)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = sel.Row(offset + i)
	}
	// Column by column: a column not in memory is read from the file at these rows only.
	names := make([]string, len(c.Fields))
	for fi, f := range c.Fields {
		names[fi] = f.Name
	}
	cells, err := snap.Table.CellsOf(names, rows)
	if err != nil {
		return nil, 0, unreadable(snap, err)
	}
	keys := make([]jsonw.Name, len(c.Fields))
	for fi, f := range c.Fields {
		keys[fi] = jsonw.NameOf(f.Name)
	}
	lin := snap.lineage()
	b := jsonw.NewBuf(make([]byte, 0, n*(64+32*len(c.Fields)))).OpenArr()
	for i, r := range rows {
		b = b.OpenObj()
		for fi, f := range c.Fields {
			b = b.Name(keys[fi])
			if b, err = writeCell(b, f.Type, cells[fi], i); err != nil {
				panic(err)
			}
		}
		b = lin.writeRecordCitation(b.Name(nCitation), snap, r).CloseObj()
		if b.Len() >= PageBytes && i+1 < n {
			return b.CloseArr().Bytes(), i + 1, nil
		}
	}
	return b.CloseArr().Bytes(), n, nil
}

// writeCell writes cell i of a field of type t as a record gives it: null, a number (with
// at most 15 significant digits), an integer, a boolean, or the text.
func writeCell(w jsonw.Buf, t capability.Type, c *columnar.Cells, i int) (jsonw.Buf, error) {
	if !c.Valid[i] {
		return w.Null(), nil
	}
	switch {
	case t == capability.Number && c.Floats != nil:
		return w.Num(Num{V: c.Floats[i], Valid: true})
	case t == capability.Integer && c.Ints != nil:
		return w.Int(c.Ints[i]), nil
	case t == capability.Boolean && c.Bools != nil:
		return w.Bool(c.Bools[i]), nil
	}
	v, _ := c.Text(i)
	if t == capability.Number {
		fv, _ := strconv.ParseFloat(v, 64)
		return w.Num(Num{V: fv, Valid: true})
	}
	if t == capability.String || t == capability.Date {
		return w.String(v), nil // typed's value of these, without boxing it
	}
	return w.Value(typed(t, v))
}

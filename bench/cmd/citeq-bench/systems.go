package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/service"
)

// Answer is what a system's answer to a query says, used to check that every system
// answers the same question: matched rows, groups and the total of the first metric (NaN
// where the system does not compute it), and, where the system produces them, the rows
// compared with DuckDB's.
type Answer struct {
	Matched int
	Groups  int
	Total   float64
	Bytes   int // size of the payload, where the system produces one
	// Totals are the summary totals of every metric of the capability, in its order (NaN
	// for null), where the system produces them (the service).
	Totals []float64
	Rows   []Row
	// Ordered says Rows are in a meaningful order (records in source order).
	Ordered bool
	// Paged says the service's records stop short of the limit because the page's bytes
	// were reached (summary.records_truncated with fewer records than asked and matched):
	// they are the first of the rows another system returns.
	Paged bool
}

// A system answers queries over one loaded dataset.
type system interface {
	Name() string
	// Prepare does the untimed work for q (parsing, validation, planning) and returns the
	// timed run and the function that reads the answer out of a run's result (untimed).
	Prepare(q Query) (run func() (any, error), answer func(any) (Answer, error), err error)
}

// serviceSystem asks the service layer, as the REST and MCP front ends do: parse and
// validate the params, run the engine, build citations, render the JSON payload.
type serviceSystem struct{ svc *service.Service }

func (serviceSystem) Name() string { return "service" }

func (s serviceSystem) Prepare(q Query) (func() (any, error), func(any) (Answer, error), error) {
	c, p, _, err := validate(s.svc, q)
	if err != nil {
		return nil, nil, err
	}
	body := []byte(q.Body)
	run := func() (any, error) {
		out, e := s.svc.QueryJSON(context.Background(), q.Path, body)
		if e != nil {
			return nil, fmt.Errorf("%s: %s", e.Code, e.Message)
		}
		return out, nil
	}
	answer := func(res any) (Answer, error) {
		out := res.([]byte)
		var doc struct {
			Summary struct {
				GroupCount int                        `json:"group_count"`
				Matched    int                        `json:"matched_source_rows"`
				Totals     map[string]json.RawMessage `json:"totals"`
				Truncated  bool                       `json:"records_truncated"`
			} `json:"summary"`
			Rows []struct {
				Group   map[string]any `json:"group"`
				Metrics map[string]any `json:"metrics"`
			} `json:"rows"`
			Records []map[string]any `json:"records"`
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return Answer{}, fmt.Errorf("service payload: %w", err)
		}
		a := Answer{Matched: doc.Summary.Matched, Groups: doc.Summary.GroupCount, Bytes: len(out)}
		if raw, ok := doc.Summary.Totals[c.Metrics[0].Name]; ok {
			_ = json.Unmarshal(raw, &a.Total) // null stays 0
		}
		for _, m := range c.Metrics {
			v := math.NaN()
			if raw, ok := doc.Summary.Totals[m.Name]; ok {
				var x any
				d := json.NewDecoder(bytes.NewReader(raw))
				d.UseNumber()
				if err := d.Decode(&x); err != nil {
					return Answer{}, fmt.Errorf("service payload: total %s: %w", m.Name, err)
				}
				v = numValue(x)
			}
			a.Totals = append(a.Totals, v)
		}
		switch {
		case q.Records:
			a.Ordered = true
			a.Paged = doc.Summary.Truncated && len(doc.Records) < min(q.Limit, doc.Summary.Matched)
			for _, rec := range doc.Records {
				row := Row{Keys: []string{keyText(rec[q.RecordKey])}}
				for _, col := range q.RecordValues {
					row.Vals = append(row.Vals, numValue(rec[col]))
				}
				a.Rows = append(a.Rows, row)
			}
		default:
			for _, r := range doc.Rows {
				var row Row
				for _, k := range p.GroupBy {
					row.Keys = append(row.Keys, keyText(r.Group[k]))
				}
				for _, m := range c.Metrics {
					row.Vals = append(row.Vals, numValue(r.Metrics[m.Name]))
				}
				a.Rows = append(a.Rows, row)
			}
		}
		return a, nil
	}
	return run, answer, nil
}

// engineSystem runs the engine directly on the columnar table the service loaded, without
// validation, citations or JSON: the service's engine work (the filter, the grouping and the
// whole-set grouping, every metric over both, and the lineage of both), or, for a records
// query, the filter and the first Limit matched rows as text.
type engineSystem struct{ svc *service.Service }

func (engineSystem) Name() string { return "engine" }

func (s engineSystem) Prepare(q Query) (func() (any, error), func(any) (Answer, error), error) {
	c, p, snap, err := validate(s.svc, q)
	if err != nil {
		return nil, nil, err
	}
	t := snap.Table
	preds := service.Predicates(c, t, p)
	if q.Records {
		return s.records(q, c, t, preds)
	}
	type result struct {
		matched, groups int
		total           columnar.Result
	}
	run := func() (any, error) {
		ev, err := service.Evaluate(c, t, p)
		if err != nil {
			return nil, err
		}
		sel, groups, first := ev.Sel, ev.Groups, ev.Metrics[0].Total
		matched := sel.Len()
		ev.Sel.Release() // as the service does once it has answered
		return result{matched: matched, groups: groups.N, total: first}, nil
	}
	answer := func(res any) (Answer, error) {
		r := res.(result)
		a := Answer{Matched: r.matched, Groups: r.groups}
		if len(r.total.Valid) > 0 && r.total.Valid[0] {
			a.Total = r.total.Values[0]
		}
		return a, nil
	}
	return run, answer, nil
}

// records is the engine path of a records query: the filter, then the first Limit matched
// rows, every field as text (as the service reads them before rendering).
func (engineSystem) records(q Query, c *capability.Capability, t *columnar.Table, preds []columnar.Predicate) (func() (any, error), func(any) (Answer, error), error) {
	for _, f := range c.Fields {
		if !t.Has(f.Name) {
			return nil, nil, fmt.Errorf("no column %s", f.Name)
		}
	}
	type result struct {
		matched int
		fields  []map[string]*string
	}
	run := func() (any, error) {
		sel := t.Filter(preds)
		rows := make([]int, min(q.Limit, sel.Len()))
		for i := range rows {
			rows[i] = sel.Row(i)
		}
		matched := sel.Len()
		sel.Release()
		out := make([]map[string]*string, len(rows))
		for i := range out {
			out[i] = make(map[string]*string, len(c.Fields))
		}
		names := make([]string, len(c.Fields))
		for fi, f := range c.Fields {
			names[fi] = f.Name
		}
		cells, valid, err := t.TextsOf(names, rows)
		if err != nil {
			return nil, err
		}
		for fi, f := range c.Fields {
			vals, ok := cells[fi], valid[fi]
			for i := range rows {
				if ok[i] {
					v := strings.Clone(vals[i]) // the result outlives the table: never keep its memory
					out[i][f.Name] = &v
				} else {
					out[i][f.Name] = nil
				}
			}
		}
		return result{matched, out}, nil
	}
	answer := func(out any) (Answer, error) {
		r := out.(result)
		a := Answer{Matched: r.matched, Groups: 1, Total: math.NaN(), Ordered: true}
		for _, rec := range r.fields {
			row := Row{Keys: []string{nullKey}}
			if v := rec[q.RecordKey]; v != nil {
				row.Keys[0] = *v
			}
			for _, col := range q.RecordValues {
				v := math.NaN()
				if s := rec[col]; s != nil {
					f, err := strconv.ParseFloat(*s, 64)
					if err != nil {
						return Answer{}, fmt.Errorf("record %s: %w", col, err)
					}
					v = f
				}
				row.Vals = append(row.Vals, v)
			}
			a.Rows = append(a.Rows, row)
		}
		return a, nil
	}
	return run, answer, nil
}

// validate resolves and validates q through the service, as a query would be.
func validate(svc *service.Service, q Query) (*capability.Capability, *service.Params, *service.Snapshot, error) {
	c := capability.ByPath(q.Path)
	if c == nil {
		return nil, nil, nil, fmt.Errorf("no capability at %s", q.Path)
	}
	req, e := service.ParseBody([]byte(q.Body))
	if e == nil {
		e = req.Err()
	}
	if e != nil {
		return nil, nil, nil, fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	p, snap, e := svc.Validate(c, req)
	if e != nil {
		return nil, nil, nil, fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	return c, p, snap, nil
}

// sameAnswer reports whether two citeq paths' answers agree: matched rows, groups, and the
// totals within tolerance where both compute one.
func sameAnswer(a, b Answer) bool {
	if a.Matched != b.Matched || a.Groups != b.Groups {
		return false
	}
	return math.IsNaN(a.Total) || math.IsNaN(b.Total) || near(a.Total, b.Total)
}

// Timing is the wall time of the measured runs of one query by one system.
type Timing struct {
	// First is the first (warm-up) run of the path: what the first asker waits, with
	// whatever the load left for a query to read (for records, the pages of the columns not
	// decoded).
	First  time.Duration
	Runs   []time.Duration
	Median time.Duration
	Min    time.Duration
	Max    time.Duration
}

func (t *Timing) summarize() {
	sorted := append([]time.Duration{}, t.Runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	n := len(sorted)
	t.Min, t.Max = sorted[0], sorted[n-1]
	t.Median = sorted[n/2]
	if n%2 == 0 {
		t.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
}

// measure runs every run warmup times untimed, then runs times timed, round-robin (one run
// of each in turn), so noise from the rest of the machine falls on all of them alike. It
// returns each one's timings and last result.
func measure(fns []func() (any, error), warmup, runs int) ([]Timing, []any, error) {
	timings, last := make([]Timing, len(fns)), make([]any, len(fns))
	for i, run := range fns {
		for w := 0; w < warmup; w++ {
			start := time.Now()
			res, err := run()
			if w == 0 {
				timings[i].First = time.Since(start)
			}
			if err != nil {
				return nil, nil, err
			}
			last[i] = res
		}
	}
	for r := 0; r < runs; r++ {
		for i, run := range fns {
			start := time.Now()
			res, err := run()
			d := time.Since(start)
			if err != nil {
				return nil, nil, err
			}
			last[i] = res
			timings[i].Runs = append(timings[i].Runs, d)
		}
	}
	for i := range timings {
		timings[i].summarize()
	}
	return timings, last, nil
}

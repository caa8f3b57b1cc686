package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/service"
)

// Query is one benchmark question, asked of every dataset by every system.
type Query struct {
	Name string `json:"name"`
	// Path is the capability path; Body the JSON params object, exactly as POST
	// /v1/<path>/query takes it.
	Path string `json:"path"`
	Body string `json:"body"`
}

// queries are the questions measured.
var queries = []Query{
	{
		Name: "operating_by_state_technology_top10",
		Path: capability.PowerCapacity.Path,
		Body: `{"filters":{"lifecycle":"operating"},"group_by":["state","technology"],"order_by":"nameplate_mw","top_n":10}`,
	},
}

// Answer is what a system's answer to a query says, used to check that every system
// answers the same question: matched rows, groups and the total of the first metric.
type Answer struct {
	Matched int
	Groups  int
	Total   float64
	Bytes   int // size of the payload, where the system produces one
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
	body := []byte(q.Body)
	run := func() (any, error) {
		out, e := s.svc.QueryJSON(q.Path, body)
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
			} `json:"summary"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			return Answer{}, fmt.Errorf("service payload: %w", err)
		}
		a := Answer{Matched: doc.Summary.Matched, Groups: doc.Summary.GroupCount, Bytes: len(out)}
		c := capability.ByPath(q.Path)
		if raw, ok := doc.Summary.Totals[c.Metrics[0].Name]; ok {
			_ = json.Unmarshal(raw, &a.Total) // null stays 0
		}
		return a, nil
	}
	return run, answer, nil
}

// engineSystem does the service's engine work directly on the columnar table the service
// loaded, without validation, citations or JSON: the filter, the grouping and the
// whole-set grouping, every metric over both, and the lineage of both.
type engineSystem struct{ svc *service.Service }

func (engineSystem) Name() string { return "engine" }

func (s engineSystem) Prepare(q Query) (func() (any, error), func(any) (Answer, error), error) {
	c, p, snap, err := validate(s.svc, q)
	if err != nil {
		return nil, nil, err
	}
	t := snap.Table
	preds := service.Predicates(c, t, p)
	type result struct {
		matched, groups int
		total           columnar.Result
	}
	run := func() (any, error) {
		sel := t.Filter(preds)
		groups := t.Group(sel, p.GroupBy)
		whole := t.Group(sel, nil)
		var first columnar.Result
		for i, m := range c.Metrics {
			service.Aggregate(t, sel, groups, m)
			total := service.Aggregate(t, sel, whole, m)
			if i == 0 {
				first = total
			}
		}
		t.Lineage(sel, groups, capability.ColSourceFile, capability.ColSheet, sampleRows)
		t.Lineage(sel, whole, capability.ColSourceFile, capability.ColSheet, sampleRows)
		return result{matched: sel.Len(), groups: groups.N, total: first}, nil
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

// sampleRows is the number of sample rows per source the service's lineage collects.
const sampleRows = 5

// validate resolves and validates q through the service, as a query would be.
func validate(svc *service.Service, q Query) (*capability.Capability, *service.Params, *service.Snapshot, error) {
	c := capability.ByPath(q.Path)
	if c == nil {
		return nil, nil, nil, fmt.Errorf("no capability at %s", q.Path)
	}
	raw, e := service.ParseBody([]byte(q.Body))
	if e != nil {
		return nil, nil, nil, fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	p, snap, e := svc.Validate(c, raw)
	if e != nil {
		return nil, nil, nil, fmt.Errorf("%s: %s", e.Code, e.Message)
	}
	return c, p, snap, nil
}

// sameAnswer reports whether two systems' answers agree (totals to 12 significant digits:
// the service writes at most 15, and summation order may differ between systems).
func sameAnswer(a, b Answer) bool {
	if a.Matched != b.Matched || a.Groups != b.Groups {
		return false
	}
	scale := math.Max(math.Abs(a.Total), math.Abs(b.Total))
	return math.Abs(a.Total-b.Total) <= 1e-12*scale
}

// Timing is the wall time of the measured runs of one query by one system.
type Timing struct {
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
			res, err := run()
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

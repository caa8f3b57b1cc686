package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// AggregateEvidencePath is the REST path of the aggregate evidence.
const AggregateEvidencePath = "/v1/evidence/aggregate"

// DefaultAggregateInFlight is how many aggregate verifications run at once (citeq serve
// --evidence-in-flight sets another); one more is refused with 503 over_capacity and a
// Retry-After of AggregateRetryAfter seconds. A verification is CPU-bound: two keep two cores
// busy. Each holds the row numbers it selects (4 bytes a cited row) and, for a median or
// percentile, the values it reads (8 bytes) and the engine's own copy for the served figure,
// so the cap bounds the memory verifications take.
const DefaultAggregateInFlight = 2

// AggregateRetryAfter is the Retry-After, in seconds, of a verification refused over capacity.
const AggregateRetryAfter = 2

// aggregateGate admits verifications up to its capacity and counts them.
type aggregateGate struct {
	slots     chan struct{}
	inFlight  atomic.Int64
	stopped   atomic.Int64 // verifications ended by their request's context
	overCap   atomic.Int64 // verifications refused over capacity
	admitted  atomic.Int64
	onAdmit   func(ctx context.Context) // tests: runs once a verification is admitted
	checkRows int                       // how many rows between two looks at the context
}

func newAggregateGate(n int) *aggregateGate {
	return &aggregateGate{slots: make(chan struct{}, max(n, 1)), checkRows: 1 << 14}
}

// SetAggregateInFlight sets how many aggregate verifications run at once (at least 1); call
// it before the service answers requests.
func (s *Service) SetAggregateInFlight(n int) {
	g := newAggregateGate(n)
	g.onAdmit = s.aggregate.onAdmit
	s.aggregate = g
}

// AggregateEvidenceStats reports the aggregate verifications in flight now, and, since the
// service started, those admitted, those refused over capacity and those stopped because
// their request ended (a client gone, an MCP call cancelled).
func (s *Service) AggregateEvidenceStats() (inFlight, admitted, overCapacity, stopped int64) {
	g := s.aggregate
	return g.inFlight.Load(), g.admitted.Load(), g.overCap.Load(), g.stopped.Load()
}

// admit takes a slot, or refuses over capacity; release gives it back.
func (g *aggregateGate) admit() (release func(), e *apierror.Error) {
	select {
	case g.slots <- struct{}{}:
	default:
		g.overCap.Add(1)
		e := apierror.New(503, apierror.CodeOverCapacity, "%d aggregate verifications are running, the most this service runs at once; send the request again in %d seconds", cap(g.slots), AggregateRetryAfter)
		e.RetryAfter = AggregateRetryAfter
		return nil, e
	}
	g.inFlight.Add(1)
	g.admitted.Add(1)
	return func() {
		g.inFlight.Add(-1)
		<-g.slots
	}, nil
}

// aggregateRequest is the body of the aggregate evidence: the capability, the metric, and
// the aggregate citation (or its lineage_filter and as_of).
type aggregateRequest struct {
	Capability    string          `json:"capability"`
	AsOf          string          `json:"as_of"`
	Metric        string          `json:"metric"`
	Citation      json.RawMessage `json:"citation"`
	LineageFilter json.RawMessage `json:"lineage_filter"`
	// Value, when given, is the figure the caller read; the answer says whether it is the one
	// recomputed. A number or its text, by the rule of every JSON body.
	Value *json.Number `json:"value"`
}

const aggregateShape = `{"capability":"power.capacity","metric":"nameplate_mw","citation":{an aggregate citation of a query answer}} (or "lineage_filter" and "as_of" instead of "citation")`

// decodeStrict decodes exactly one JSON value of body into v, refusing unknown members and
// anything after the value.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("another JSON value follows the first: send exactly one")
	}
	return nil
}

// AggregateEvidence verifies a whole aggregate. It checks the posted citation member
// by member against what the service cites for the rows its lineage_filter selects (any
// difference is a 400 naming the member), re-opens the raw file by sha256 and re-hashes it,
// reads every cited row's cells by the rules ingest read them with (the columns recorded at
// ingest, the capability's cell rules), recomputes the metric from those cells alone in one
// pass over the cited rows, and says whether it equals the figure served for those rows. A
// metric the definition declares not recomputable is refused with the reason. At most
// DefaultAggregateInFlight verifications run at once (503 over_capacity beyond); one whose
// request ends (ctx) stops.
func (s *Service) AggregateEvidence(ctx context.Context, body []byte) ([]byte, *apierror.Error) {
	if e := cancelled(ctx); e != nil {
		return nil, e
	}
	var req aggregateRequest
	if err := decodeStrict(bytes.TrimSpace(body), &req); err != nil {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the body does not parse (%v); send %s", err, aggregateShape)
	}
	c := capability.ByID(req.Capability)
	if c == nil {
		c = capability.ByPath(req.Capability)
	}
	if c == nil {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "capability %q is not defined; give the identifier of a served capability (GET /v1/capabilities lists them) and send %s", req.Capability, aggregateShape)
	}
	if len(c.Inputs) > 0 {
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "%s is computed at query time from %s, so its aggregates are not recomputed from one file: each of its citations cites rows of one input; verify them row by row with %s (a citation's verify member), or query %s and verify their own aggregates here",
			c.ID, join(c.Inputs), "/v1/evidence/source-row", join(c.Inputs))
	}
	if _, e := s.resolve(c.Path); e != nil {
		return nil, e
	}
	m, ok := c.Metric(req.Metric)
	if !ok {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "metric %q is not a metric of %s; valid: %s", req.Metric, c.ID, join(c.MetricNames()))
	}
	var given *Num
	if req.Value != nil {
		x, err := strconv.ParseFloat(strings.TrimSpace(req.Value.String()), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, apierror.New(400, apierror.CodeInvalidRequest, "value must be a number (1234.5 or \"1234.5\"), got %s", req.Value)
		}
		given = &Num{V: x, Valid: true}
	}
	if why := c.NotRecomputed(m); why != "" {
		return nil, apierror.New(400, apierror.CodeNotRecomputable, "%s of %s is not recomputed from the cells its citations cite: %s. The definition says so (GET /v1/%s/schema, the metric's not_recomputable); its cited rows can still be verified one by one with /v1/evidence/source-row (a citation's verify member)",
			m.Name, c.ID, why, c.Path)
	}
	cite, lfJSON, asOf, e := citationOf(req)
	if e != nil {
		return nil, e
	}
	lf, e := parseLineageFilter(lfJSON)
	if e != nil {
		return nil, e
	}
	release, e := s.aggregate.admit()
	if e != nil {
		return nil, e
	}
	defer release()
	if hook := s.aggregate.onAdmit; hook != nil {
		hook(ctx)
	}
	out, e := []byte(nil), cancelled(ctx)
	if e == nil {
		out, e = s.verifyAggregate(ctx, c, m, cite, lf, lfJSON, asOf, given)
	}
	if e != nil && e.Code == apierror.CodeCancelled {
		s.aggregate.stopped.Add(1)
	}
	return out, e
}

// verifyAggregate is the admitted part of AggregateEvidence.
func (s *Service) verifyAggregate(ctx context.Context, c *capability.Capability, m capability.Metric, cite *postedCitation, lf *lineageFilter, lfJSON []byte, asOf string, given *Num) ([]byte, *apierror.Error) {
	byDate, dates := s.served(c.ID)
	snap, ok := byDate[asOf]
	if !ok {
		return nil, apierror.New(400, apierror.CodeInvalidParameter, "as_of %q is not a served snapshot of %s; the citation's as_of must be one of: %s", asOf, c.ID, join(dates))
	}
	src, ok := snap.sources[lf.SourceFile]
	if !ok || src.Role != "data" || src.SHA256 != lf.SHA256 {
		return nil, apierror.New(400, apierror.CodeEvidenceLineage, "the %s snapshot as_of %s has no data file %q with sha256 %q; its data files are: %s; pass the lineage_filter exactly as the citation gives it", c.ID, asOf, lf.SourceFile, lf.SHA256, dataFiles(snap))
	}
	sel, e := s.selectCited(ctx, c, snap, lf)
	if e != nil {
		return nil, e
	}
	if cite != nil {
		if e := s.checkPosted(c, snap, src, cite, lf, sel); e != nil {
			return nil, e
		}
	}
	if e := cancelled(ctx); e != nil {
		return nil, e
	}
	wb, computed, e := s.openRaw(src)
	if e != nil {
		return nil, e
	}
	r, e := newRecompute(s, c, m, snap, src, wb)
	if e != nil {
		return nil, e
	}
	if e := r.run(ctx, sel.rows, s.aggregate.checkRows); e != nil {
		return nil, e
	}
	recomputed := r.value()
	served, err := servedValue(snap.Table, m, sel.rows)
	if err != nil {
		return nil, unreadable(snap, err)
	}
	equal := sameFigure(recomputed, served)
	out := Obj{
		{"verified", equal},
		{"equal", equal},
		{"capability", c.ID},
		{"as_of", asOf},
		{"metric", m.Name},
		{"aggregation", string(m.Agg)},
		{"unit", r.unitText()},
		{"recomputed", recomputed},
		{"served", served},
		{"rows", len(sel.rows)},
	}
	if given != nil {
		out = append(out, KV{"value_given", *given}, KV{"equal_to_value_given", sameFigure(recomputed, *given)})
	}
	out = append(out,
		KV{"source_file", src.File},
		KV{"raw_file_sha256", src.SHA256},
		KV{"computed_sha256", computed},
		KV{"cells_read", r.cellsRead},
		KV{"empty_cells", r.empty},
		KV{"non_numeric_cells", r.nonNumeric},
		KV{"non_numeric_sample", orEmpty(r.nonNumericSample)},
		KV{"columns", orEmpty(r.columnsDoc())},
		KV{"lineage_filter", rawJSON(mustCompact(lfJSON))},
		KV{"method", aggregateMethod},
	)
	return mustJSON(out), nil
}

const aggregateMethod = "The lineage filter was checked against the snapshot (every filter value one the query would accept, every excluded group one the filter selects) and the citation's other members against what the service cites for the rows it selects. " +
	"Those rows give only the cited sheets and row numbers. The raw file was found by its sha256, re-hashed now, and each cited row's cells were read by the rules ingest read them with: the column recorded at ingest for the field on that sheet (for a sheet holding one column per line or series, the column recorded for the row's line or series), the publisher's marks for no value, and the capability's cell rules (a field copied from another cell unless the row is of a kind not counted, a field joined from two cells, a cell format) (columns). " +
	"Each value is the number the cell's text spells (a blank cell is null; a cell that spells no number is null and counted in non_numeric_cells). The metric is recomputed from those values alone, in one pass over the cited rows, and compared with the figure served for the same rows (equal to 15 significant digits)."

func dataFiles(snap *Snapshot) string {
	var out []string
	for _, src := range snap.Manifest.DataSources() {
		out = append(out, src.File+" ("+src.SHA256+")")
	}
	return join(out)
}

func mustCompact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// servedValue is metric m as the service computes it over the given table rows.
func servedValue(t *columnar.Table, m capability.Metric, rows []int32) (Num, error) {
	var ops []columnar.Op
	if m.Agg == capability.Ratio {
		ops = []columnar.Op{{Agg: columnar.AggSum, Column: m.Column}, {Agg: columnar.AggSum, Column: m.Denominator}}
	} else {
		ops = []columnar.Op{opOf(m)}
	}
	var need []string
	for _, op := range ops {
		if op.Column != "" {
			need = append(need, op.Column)
		}
		if op.Unit != "" {
			need = append(need, op.Unit)
		}
	}
	if err := t.Need(need...); err != nil {
		return Num{}, err
	}
	ans := t.Compute(columnar.Selection{Idx: rows}, nil, ops, nil)
	res := ans.Totals[0]
	if m.Agg == capability.Ratio {
		res = quotient(res, ans.Totals[1])
	}
	return num(res, 0), nil
}

// sameFigure reports whether two figures are the same to the 15 significant digits answers
// are written with (both null counts as the same).
func sameFigure(a, b Num) bool {
	if !a.Valid || !b.Valid {
		return a.Valid == b.Valid
	}
	return clean(a.V) == clean(b.V)
}

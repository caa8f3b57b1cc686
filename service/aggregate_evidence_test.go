package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

// aggregateVerdict is the part of an aggregate evidence answer the tests read.
type aggregateVerdict struct {
	Verified   bool     `json:"verified"`
	Equal      bool     `json:"equal"`
	Recomputed *float64 `json:"recomputed"`
	Served     *float64 `json:"served"`
	Rows       int64    `json:"rows"`
	CellsRead  int      `json:"cells_read"`
	Computed   string   `json:"computed_sha256"`
	Unit       string   `json:"unit"`
}

// citedRow is a row of an answer as the tests read it.
type citedRow struct {
	Group   map[string]any      `json:"group"`
	Metrics map[string]*float64 `json:"metrics"`
	Notes   []struct {
		Metric string `json:"metric"`
	} `json:"notes"`
	Lineage struct {
		Ref  string   `json:"citation_ref"`
		Refs []string `json:"citation_refs"`
	} `json:"lineage"`
}

type citedAnswer struct {
	AsOf    string     `json:"as_of"`
	Rows    []citedRow `json:"rows"`
	Summary struct {
		GroupCount int                 `json:"group_count"`
		Totals     map[string]*float64 `json:"totals"`
		Refs       []string            `json:"citation_refs"`
	} `json:"summary"`
	Citations map[string]json.RawMessage `json:"citations"`
}

func verifyAggregate(t *testing.T, s *Service, body any) (aggregateVerdict, *apierror.Error) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	out, e := s.AggregateEvidence(context.Background(), b)
	if e != nil {
		return aggregateVerdict{}, e
	}
	var v aggregateVerdict
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v, nil
}

func queryAnswer(t *testing.T, s *Service, path, params string) citedAnswer {
	t.Helper()
	b, e := s.QueryJSON(context.Background(), path, []byte(params))
	if e != nil {
		t.Fatalf("%s %s: %s", path, params, e.Body())
	}
	var a citedAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// refsOf are the citations of an answer's row (one per source file).
func refsOf(r citedRow) []string {
	if len(r.Lineage.Refs) > 0 {
		return r.Lineage.Refs
	}
	if r.Lineage.Ref != "" {
		return []string{r.Lineage.Ref}
	}
	return nil
}

// TestAggregateEvidence recomputes every metric of every cited group — (other) and the
// whole matched set included — from the literal cells of the raw files, and checks that
// it equals the figure served, that the lineage filter selects exactly the cited rows, and
// that a group cited by one file has the figure its row shows.
func TestAggregateEvidence(t *testing.T) {
	s := testService(t)
	cases := []struct{ path, params string }{
		{"power/capacity", `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":3}`},
		{"power/capacity", `{"group_by":["lifecycle"]}`},
		{"power/capacity", `{"filters":{"state":["TX","RI"]},"group_by":["planned_retirement_year"],"planned_retirement_date_from":"2020"}`},
		{"natural-gas/prices", `{"group_by":["atom","year"],"filters":{"year":[2008,2009,2010],"atom":["henry_hub_daily_spot","us_electric_power_monthly"]},"order_by":"avg_price","top_n":2}`},
		{"natural-gas/prices", `{"filters":{"atom":"us_electric_power_monthly"},"observation_date_from":"2015","observation_date_to":"2016"}`},
		// One column per state series: each row's price re-read from its own column.
		{"natural-gas/prices", `{"filters":{"atom":"state_electric_power_monthly","area":["TX","CA","NY"]},"group_by":["area"],"order_by":"avg_price","top_n":1}`},
		// Medians and percentiles, recomputed from the cells of every cited group.
		{"power/price-ercot", `{"as_of":"2024-12-31","filters":{"month":"2024-07","settlement_point_type":"hub"},"group_by":["settlement_point"],"order_by":"median_price","top_n":2}`},
		{"power/interconnection-queue", `{"as_of":"2025-05-09","group_by":["status"],"order_by":"median_requested_mw","top_n":2}`},
		// A date range over instants.
		{"power/demand", `{"utc_date_from":"2022-02-01T00:00:00Z","utc_date_to":"2022-02-10T12:00:00Z"}`},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.params, func(t *testing.T) {
			c := capabilityAt(t, tc.path)
			a := queryAnswer(t, s, tc.path, tc.params)
			for id, cite := range a.Citations {
				var head struct {
					Rows int64           `json:"source_rows_count"`
					LF   json.RawMessage `json:"lineage_filter"`
					AsOf string          `json:"as_of"`
				}
				if err := json.Unmarshal(cite, &head); err != nil {
					t.Fatal(err)
				}
				for _, m := range c.MetricNames() {
					v, e := verifyAggregate(t, s, map[string]any{"capability": c.ID, "metric": m, "citation": cite})
					if e != nil {
						t.Fatalf("%s %s: %s", id, m, e.Body())
					}
					if !v.Verified || !v.Equal {
						t.Errorf("%s %s: recomputed %v, served %v", id, m, deref(v.Recomputed), deref(v.Served))
					}
					if v.Rows != head.Rows {
						t.Errorf("%s %s: the lineage filter selects %d rows, the citation cites %d", id, m, v.Rows, head.Rows)
					}
				}
				// The lineage_filter with as_of is the same request.
				v, e := verifyAggregate(t, s, map[string]any{"capability": c.Path, "metric": c.Metrics[0].Name, "lineage_filter": head.LF, "as_of": head.AsOf})
				if e != nil || v.Rows != head.Rows {
					t.Errorf("%s by lineage_filter: %v, %d rows", id, e, v.Rows)
				}
			}
			// A row cited by one file has exactly the recomputed figures.
			for _, r := range a.Rows {
				if len(r.Lineage.Refs) > 1 || r.Lineage.Ref == "" {
					continue
				}
				checkRowFigures(t, s, c, a, r, r.Lineage.Ref)
			}
		})
	}
}

// checkRowFigures checks that the figures a row shows are those recomputed from the cells of
// its one citation (a non-additive metric of (other) shows null: its groups' values do not
// add; so does a metric a note of the row says is null, a sum of rates over several months
// say, whose figure over the cited rows the verification still recomputes).
func checkRowFigures(t *testing.T, s *Service, c *capability.Capability, a citedAnswer, row citedRow, ref string) {
	t.Helper()
	group, metrics := row.Group, row.Metrics
	other := false
	for _, v := range group {
		other = other || v == OtherGroup
	}
	noted := map[string]bool{}
	for _, n := range row.Notes {
		noted[n.Metric] = true
	}
	for _, m := range c.Metrics {
		if (!m.Additive && other) || c.NotRecomputed(m) != "" || (metrics[m.Name] == nil && noted[m.Name]) {
			continue
		}
		v, e := verifyAggregate(t, s, map[string]any{"capability": c.ID, "metric": m.Name, "citation": a.Citations[ref]})
		if e != nil {
			t.Fatal(e)
		}
		want := metrics[m.Name]
		if (want == nil) != (v.Recomputed == nil) || (want != nil && !sameFigure(Num{V: *want, Valid: true}, Num{V: *v.Recomputed, Valid: true})) {
			t.Errorf("row %v %s: shows %v, recomputed %v", group, m.Name, deref(want), deref(v.Recomputed))
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// sweepCitations picks, for capability c at as_of, the citations the sweep verifies: every
// citation of the unfiltered answer (one per source file), and of an answer grouped by the
// first dimension with at least three groups, ranked by the first metric with top_n 1: the
// first group's citations (at most two) and the (other) row's (at most two). It returns them
// by kind, with the answer each comes from.
func sweepCitations(t *testing.T, s *Service, c *capability.Capability, asOf string) (map[string][]string, citedAnswer, citedAnswer) {
	t.Helper()
	whole := queryAnswer(t, s, c.Path, `{"as_of":"`+asOf+`"}`)
	out := map[string][]string{"unfiltered": whole.Summary.Refs}
	var grouped citedAnswer
	for _, d := range c.GroupByNames() {
		a := queryAnswer(t, s, c.Path, `{"as_of":"`+asOf+`","group_by":["`+d+`"]}`)
		if a.Summary.GroupCount < 3 {
			continue
		}
		grouped = queryAnswer(t, s, c.Path, fmt.Sprintf(`{"as_of":%q,"group_by":[%q],"order_by":%q,"top_n":1}`, asOf, d, c.Metrics[0].Name))
		break
	}
	if len(grouped.Rows) != 2 {
		t.Fatalf("%s as_of %s: no dimension groups the snapshot into three groups or more", c.ID, asOf)
	}
	first := refsOf(grouped.Rows[0])
	out["grouped"] = first[:min(2, len(first))]
	other := refsOf(grouped.Rows[1])
	out["(other)"] = other[:min(2, len(other))]
	return out, whole, grouped
}

// TestAggregateEvidenceEveryMetric sweeps every served capability (whatever is served: a
// capability that lands later is swept too) × every snapshot × every metric × its unfiltered
// citations, a grouped citation and an (other) citation, on the real files. Each verification must answer
// verified and equal, or, for a metric its definition declares not recomputable, 400
// metric_not_recomputable with that reason. The outcome counts are logged.
func TestAggregateEvidenceEveryMetric(t *testing.T) {
	s := testService(t)
	start := time.Now()
	counts := map[string]int{}
	perCap := map[string]map[string]int{}
	for _, c := range s.Served() {
		if len(c.Inputs) > 0 {
			continue // a derived capability's citations are its inputs'
		}
		_, dates := s.served(c.ID)
		for _, asOf := range dates {
			t.Run(c.ID+" "+asOf, func(t *testing.T) {
				kinds, whole, grouped := sweepCitations(t, s, c, asOf)
				n := map[string]int{}
				perCap[c.ID+" "+asOf] = n
				for _, kind := range []string{"unfiltered", "grouped", "(other)"} {
					refs := kinds[kind]
					if len(refs) == 0 {
						t.Fatalf("%s as_of %s: no %s citation", c.ID, asOf, kind)
					}
					for _, ref := range refs {
						raw := grouped.Citations[ref]
						if raw == nil {
							raw = whole.Citations[ref]
						}
						for _, m := range c.Metrics {
							v, e := verifyAggregate(t, s, map[string]any{"capability": c.ID, "metric": m.Name, "citation": raw})
							why := c.NotRecomputed(m)
							switch {
							case why != "" && e != nil && e.Status == 400 && e.Code == apierror.CodeNotRecomputable && strings.Contains(e.Message, why):
								n["not_recomputable"]++
								counts["declared 400 metric_not_recomputable"]++
							case why != "":
								t.Errorf("%s %s citation %s, %s (declared not recomputable): got %v, want 400 %s", kind, c.ID, ref, m.Name, e, apierror.CodeNotRecomputable)
							case e != nil:
								t.Errorf("%s %s citation %s, %s: %s", kind, c.ID, ref, m.Name, e.Body())
							case !v.Verified || !v.Equal:
								t.Errorf("%s %s citation %s, %s: recomputed %v, served %v (%d cells read)", kind, c.ID, ref, m.Name, deref(v.Recomputed), deref(v.Served), v.CellsRead)
							default:
								n["verified"]++
								counts["verified, equal"]++
							}
						}
					}
					counts[kind+" citations"] += len(refs)
				}
				// The first group's row, when one file cites it, shows the recomputed figures.
				if r := grouped.Rows[0]; r.Lineage.Ref != "" && len(r.Lineage.Refs) <= 1 {
					checkRowFigures(t, s, c, grouped, r, r.Lineage.Ref)
				}
				t.Logf("%s as_of %s: %d metrics, %d verified and equal, %d declared not recomputable", c.ID, asOf, len(c.Metrics), n["verified"], n["not_recomputable"])
			})
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	t.Logf("aggregate evidence sweep over %d snapshots in %s: %s", len(perCap), time.Since(start).Round(time.Second), strings.Join(parts, "; "))
}

// oneColumnQuery selects, per capability, rows whose values sit one column per field.
var oneColumnQuery = map[string]string{
	"power/capacity":     `{}`,
	"natural-gas/prices": `{"filters":{"atom":["henry_hub_daily_spot","us_electric_power_monthly"]}}`,
}

// TestAggregateEvidenceRefusals checks the structured errors of the aggregate evidence.
func TestAggregateEvidenceRefusals(t *testing.T) {
	s := testService(t)
	for _, path := range []string{"power/capacity", "natural-gas/prices"} {
		c := capabilityAt(t, path)
		a := queryAnswer(t, s, path, oneColumnQuery[path])
		cite := a.Citations[a.Summary.Refs[0]]
		var lf map[string]any
		var head struct {
			LF   json.RawMessage `json:"lineage_filter"`
			AsOf string          `json:"as_of"`
		}
		if err := json.Unmarshal(cite, &head); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(head.LF, &lf); err != nil {
			t.Fatal(err)
		}
		withLF := func(edit func(map[string]any)) map[string]any {
			cp := map[string]any{}
			for k, v := range lf {
				cp[k] = v
			}
			edit(cp)
			return map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "lineage_filter": cp, "as_of": head.AsOf}
		}
		cases := []struct {
			name string
			body any
			code string
		}{
			{"no citation", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name}, apierror.CodeInvalidRequest},
			{"unknown capability", map[string]any{"capability": "power.nothing", "metric": "x", "citation": cite}, apierror.CodeInvalidRequest},
			{"unknown metric", map[string]any{"capability": c.ID, "metric": "megawatts", "citation": cite}, apierror.CodeInvalidParameter},
			{"unknown member", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "citation": cite, "metrics": "x"}, apierror.CodeInvalidRequest},
			{"as_of not served", map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "lineage_filter": head.LF, "as_of": "1999-01-01"}, apierror.CodeInvalidParameter},
			{"other file", withLF(func(m map[string]any) { m["raw_file_sha256"] = strings.Repeat("0", 64) }), apierror.CodeEvidenceLineage},
			{"not a dimension", withLF(func(m map[string]any) { m["filters"] = map[string]any{"plant_name": []any{"x"}} }), apierror.CodeEvidenceLineage},
			{"not a date range", withLF(func(m map[string]any) {
				m["date_ranges"] = map[string]any{"as_of": map[string]any{"from": "", "to": ""}}
			}), apierror.CodeEvidenceLineage},
			{"unknown lineage member", withLF(func(m map[string]any) { m["sheet"] = "Operating" }), apierror.CodeEvidenceLineage},
		}
		for _, tc := range cases {
			t.Run(path+" "+tc.name, func(t *testing.T) {
				_, e := verifyAggregate(t, s, tc.body)
				if e == nil || e.Status != 400 || e.Code != tc.code {
					t.Fatalf("got %v, want a 400 %s", e, tc.code)
				}
			})
		}
	}

	// A raw file changed on disk since ingest is refused, as is a snapshot that does not
	// record its cells' columns; what the operator must do goes to the log, not to the client.
	dir := testenv.CopyDir(t, testenv.Data(t))
	broken, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"power/capacity", "natural-gas/prices"} {
		c := capabilityAt(t, path)
		a := queryAnswer(t, broken, path, oneColumnQuery[path])
		cite := a.Citations[a.Summary.Refs[0]]
		var head struct {
			SHA  string `json:"raw_file_sha256"`
			File string `json:"source_file"`
		}
		if err := json.Unmarshal(cite, &head); err != nil {
			t.Fatal(err)
		}
		// The snapshot without its cells' columns.
		snap, _ := broken.snapshot(c, "latest")
		for name, src := range snap.sources {
			src.Cells, src.CellsBy = nil, nil
			snap.sources[name] = src
		}
		_, e := verifyAggregate(t, broken, map[string]any{"capability": c.ID, "metric": c.Metrics[0].Name, "citation": cite})
		if e == nil || e.Code != apierror.CodeEvidenceCellsUnknown {
			t.Fatalf("%s: a snapshot without cells gives %v, want %s", path, e, apierror.CodeEvidenceCellsUnknown)
		}
		checkOperatorOnly(t, e)
		raw := broken.Store().Raw().Find(head.SHA)
		f, err := os.OpenFile(raw, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte{0}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		_, e = verifyAggregate(t, broken, map[string]any{"capability": c.ID, "metric": "source_record_count", "citation": cite})
		if e == nil || e.Code != apierror.CodeEvidenceHash {
			t.Fatalf("%s: a changed raw file gives %v, want %s", path, e, apierror.CodeEvidenceHash)
		}
		checkOperatorOnly(t, e)
		// The row evidence says the same, the same way.
		var verify struct {
			Verify json.RawMessage `json:"verify"`
		}
		json.Unmarshal(cite, &verify)
		if _, e := broken.Evidence(context.Background(), verify.Verify); e == nil || e.Code != apierror.CodeEvidenceHash {
			t.Fatalf("%s: row evidence of a changed file gives %v", path, e)
		} else {
			checkOperatorOnly(t, e)
		}
		if err := os.Remove(raw); err != nil {
			t.Fatal(err)
		}
		_, e = verifyAggregate(t, broken, map[string]any{"capability": c.ID, "metric": "source_record_count", "citation": cite})
		if e == nil || e.Code != apierror.CodeEvidenceUnknownFile {
			t.Fatalf("%s: a missing raw file gives %v, want %s", path, e, apierror.CodeEvidenceUnknownFile)
		}
		checkOperatorOnly(t, e)
	}
	// A capability defined but not served.
	for _, c := range capability.All() {
		if _, dates := broken.served(c.ID); len(dates) == 0 && len(c.Inputs) == 0 {
			_, e := broken.QueryJSON(context.Background(), c.Path, []byte(`{}`))
			if e == nil || e.Code != apierror.CodeNotServed {
				t.Fatalf("%s: %v", c.ID, e)
			}
			checkOperatorOnly(t, e)
			break
		}
	}
}

// checkOperatorOnly checks that a refusal tells the client nothing only the operator can do
// (rebuild a snapshot, fetch a file, run ingest), and that the operator's note does.
func checkOperatorOnly(t *testing.T, e *apierror.Error) {
	t.Helper()
	for _, word := range []string{"citeq ingest", "re-ingest", "delete", "snapshots/", "data directory", "raw store"} {
		if strings.Contains(e.Message, word) {
			t.Errorf("%s: the client's message names %q, an operator's action: %s", e.Code, word, e.Message)
		}
	}
	if e.Cause == nil || !strings.Contains(e.Cause.Error(), "citeq ingest") {
		t.Errorf("%s: the cause %v does not say what the operator is to do", e.Code, e.Cause)
	}
}

// TestAggregateEvidenceBounded: trailing JSON is refused; verifications beyond the cap are
// refused with 503 over_capacity and a Retry-After; a verification whose context ends stops
// (before it starts, and in the middle of its rows); repeated excluded groups are refused.
func TestAggregateEvidenceBounded(t *testing.T) {
	s := testService(t)
	a := queryAnswer(t, s, "power/capacity", `{"group_by":["state"],"order_by":"nameplate_mw","top_n":2}`)
	var otherRef string
	for _, r := range a.Rows {
		if r.Group["state"] == OtherGroup {
			otherRef = r.Lineage.Ref
		}
	}
	cite := a.Citations[otherRef]
	body, _ := json.Marshal(map[string]any{"capability": "power.capacity", "metric": "nameplate_mw", "citation": cite})

	t.Run("trailing JSON", func(t *testing.T) {
		for _, tail := range []string{` {}`, ` []`, `x`, ` "more"`} {
			if _, e := s.AggregateEvidence(context.Background(), append(append([]byte(nil), body...), tail...)); e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidRequest {
				t.Errorf("a body followed by %q gives %v", tail, e)
			}
		}
		if _, e := s.AggregateEvidence(context.Background(), append(append([]byte(nil), body...), " \n"...)); e != nil {
			t.Errorf("trailing white space: %v", e)
		}
	})

	t.Run("over capacity", func(t *testing.T) {
		s.SetAggregateInFlight(2)
		defer s.SetAggregateInFlight(DefaultAggregateInFlight)
		hold := make(chan struct{})
		var admitted sync.WaitGroup
		admitted.Add(2)
		s.aggregate.onAdmit = func(context.Context) { admitted.Done(); <-hold }
		var done sync.WaitGroup
		for range 2 {
			done.Add(1)
			go func() {
				defer done.Done()
				if _, e := s.AggregateEvidence(context.Background(), body); e != nil {
					t.Errorf("an admitted verification: %v", e)
				}
			}()
		}
		admitted.Wait()
		_, e := s.AggregateEvidence(context.Background(), body)
		if e == nil || e.Status != 503 || e.Code != apierror.CodeOverCapacity || e.RetryAfter != AggregateRetryAfter {
			t.Errorf("a third verification gives %+v, want 503 %s with Retry-After", e, apierror.CodeOverCapacity)
		}
		s.aggregate.onAdmit = nil
		close(hold)
		done.Wait()
		if in, _, over, _ := s.AggregateEvidenceStats(); in != 0 || over != 1 {
			t.Errorf("in flight %d, refused %d", in, over)
		}
		if _, e := s.AggregateEvidence(context.Background(), body); e != nil {
			t.Errorf("after the others ended: %v", e)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, e := s.AggregateEvidence(ctx, body); e == nil || e.Code != apierror.CodeCancelled {
			t.Errorf("a cancelled request gives %v", e)
		}
		// Cancelled while its rows are read: it stops there.
		_, _, _, before := s.AggregateEvidenceStats()
		s.aggregate.checkRows = 64
		defer func() { s.aggregate.checkRows = 1 << 14 }()
		ctx, cancel = context.WithCancel(context.Background())
		s.aggregate.onAdmit = func(context.Context) { cancel() }
		defer func() { s.aggregate.onAdmit = nil }()
		if _, e := s.AggregateEvidence(ctx, body); e == nil || e.Code != apierror.CodeCancelled {
			t.Errorf("a request cancelled once admitted gives %v", e)
		}
		if _, _, _, after := s.AggregateEvidenceStats(); after != before+1 {
			t.Errorf("stopped verifications %d, want %d", after, before+1)
		}
	})

	t.Run("repeated excluded group", func(t *testing.T) {
		var c map[string]any
		json.Unmarshal(cite, &c)
		lf := c["lineage_filter"].(map[string]any)
		ex := lf["excludes"].([]any)
		lf["excludes"] = append(ex, ex[0])
		_, e := verifyAggregate(t, s, map[string]any{"capability": "power.capacity", "metric": "nameplate_mw", "lineage_filter": lf, "as_of": c["as_of"]})
		if e == nil || e.Code != apierror.CodeEvidenceLineage || !strings.Contains(e.Message, "repeats") {
			t.Errorf("a repeated excluded group gives %v", e)
		}
	})
}

package queue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/iso/queue"
	"github.com/citeq/citeq/ingest/kit"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// answer is the part of a query answer the test reads.
type answer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Totals map[string]*float64 `json:"totals"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]string   `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Lineage struct {
			CitationRef string `json:"citation_ref"`
		} `json:"lineage"`
	} `json:"rows"`
	Citations map[string]struct {
		Verify json.RawMessage `json:"verify"`
	} `json:"citations"`
}

type evidence struct {
	Verified bool `json:"verified"`
	Cells    []struct {
		Header string `json:"header"`
		Value  string `json:"value"`
	} `json:"cells"`
}

var (
	ingestOnce sync.Once
	served     *service.Service
	ingestErr  error
)

// queues ingests every operator's files once for the package's tests and serves them.
func queues(t *testing.T) (*service.Service, map[string]*queue.Operator) {
	t.Helper()
	raw := testenv.Raw(t)
	var adapters []ingest.Adapter
	ops := map[string]*queue.Operator{}
	for _, op := range queue.Operators {
		if op.AsOf == nil { // a companion, read with its operator's files
			continue
		}
		adapters = append(adapters, queue.New(op))
		ops[op.Cap.ID] = op
	}
	ingestOnce.Do(func() {
		dir, err := os.MkdirTemp("", "queues-")
		if err != nil {
			ingestErr = err
			return
		}
		outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: dir}, adapters, io.Discard)
		if err != nil {
			ingestErr = err
			return
		}
		for _, o := range outcomes {
			if o.Status != snapshots.Promoted {
				ingestErr = fmt.Errorf("%s %s: %s %v", o.Capability, o.AsOf, o.Status, o.Reasons)
				return
			}
		}
		served, ingestErr = service.New(dir)
		dataDir = dir
	})
	if ingestErr != nil {
		t.Fatal(ingestErr)
	}
	return served, ops
}

var dataDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if dataDir != "" {
		os.RemoveAll(dataDir)
	}
	os.Exit(code)
}

// TestAcrossOperators asks each queue capability the same questions: projects and MW by
// normalized status and generation type (every group's status and type in the shared
// vocabulary, the groups adding up to the totals), and projects by raw generation type,
// where every group's citation verifies and its cited cell holds the group's value.
func TestAcrossOperators(t *testing.T) {
	svc, ops := queues(t)
	ask := func(t *testing.T, c *capability.Capability, params string) answer {
		t.Helper()
		req, e := service.ParseBody([]byte(params))
		if e != nil {
			t.Fatalf("%s: %s %s", params, e.Code, e.Message)
		}
		q, e := svc.Prepare(c.Path, req)
		if e != nil {
			t.Fatalf("%s: %s %s", params, e.Code, e.Message)
		}
		body, e := svc.Run(context.Background(), q)
		if e != nil {
			t.Fatalf("%s: %s %s", params, e.Code, e.Message)
		}
		var a answer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	if len(ops) != 8 {
		t.Fatalf("%d queue capabilities, want 8", len(ops))
	}
	for id, op := range ops {
		t.Run(id, func(t *testing.T) {
			c := capability.ByID(id)
			a := ask(t, c, `{"group_by":["status","generation_type"]}`)
			n := 0.0
			for _, r := range a.Rows {
				// A row without a normalized status is a placeholder, which is not a project.
				if s := r.Group["status"]; s == "" && *r.Metrics["project_count"] != 0 || s != "" && !slices.Contains(capability.QueueStatuses, s) {
					t.Errorf("status %q outside the vocabulary (%v projects)", s, *r.Metrics["project_count"])
				}
				if g := r.Group["generation_type"]; g != "" && !slices.Contains(capability.QueueTypes, g) {
					t.Errorf("generation type %q outside the vocabulary", g)
				}
				n += *r.Metrics["project_count"]
			}
			if total := a.Summary.Totals["project_count"]; total == nil || *total != n || n == 0 {
				t.Errorf("groups add up to %v projects, totals say %v", n, a.Summary.Totals["project_count"])
			}
			if a.Summary.Totals["requested_mw"] == nil {
				t.Error("no requested_mw total")
			}

			b := ask(t, c, `{"group_by":["generation_type_raw"]}`)
			var wants []string
			for _, o := range append([]*queue.Operator{op}, op.Companions...) {
				wants = append(wants, kit.Norm(o.Fields["generation_type_raw"][0]))
			}
			for _, r := range b.Rows {
				g, ok := r.Group["generation_type_raw"]
				if !ok || g == "" {
					continue
				}
				cit := b.Citations[r.Lineage.CitationRef]
				out, e := svc.Evidence(context.Background(), cit.Verify)
				if e != nil {
					t.Fatalf("group %q: citation does not verify: %s %s", g, e.Code, e.Message)
				}
				var ev evidence
				if err := json.Unmarshal(out, &ev); err != nil || !ev.Verified {
					t.Fatalf("group %q: %v %s", g, err, out)
				}
				found := false
				for _, cell := range ev.Cells {
					h := kit.Norm(cell.Header)
					for _, want := range wants {
						if h != "" && strings.HasPrefix(want, h) && kit.Squash(cell.Value) == g {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("group %q: the cited row has no %q cell holding it", g, wants)
				}
			}
		})
	}
}

// compareCase is one comparison of testdata/golden/compare/queues.json, computed from the
// files by testdata/golden/compute_queues.py --diff as set differences (no citeq code).
type compareCase struct {
	Capability  string         `json:"capability"`
	AsOf        string         `json:"as_of"`
	CompareAsOf string         `json:"compare_as_of"`
	Params      map[string]any `json:"params"`
	Summary     map[string]int `json:"summary"`
	Entered     []string       `json:"entered"`
	Left        []string       `json:"left"`
	NotCompared []string       `json:"not_compared"`
}

// CompareCases reads the golden comparisons.
func compareCases(t *testing.T) []compareCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "compare", "queues.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []compareCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCompareAsOf checks compare_as_of on MISO (2025-01 against 2025-05, unfiltered and under
// filters that select by either snapshot's values: a status, a project that left, rows
// without an identity, a state normalized in both) and CAISO (its three reports) against the
// set differences testdata/golden/compute_queues.py --diff computes from the files: every
// count of the summary and the queue ids that entered, left or could not be compared; and
// verifies the citations of the listed projects.
func TestCompareAsOf(t *testing.T) {
	svc, _ := queues(t)
	type change struct {
		Before, After struct {
			Citation json.RawMessage `json:"citation"`
		}
	}
	type listed struct {
		QueueID  string          `json:"queue_id"`
		Citation json.RawMessage `json:"citation"`
	}
	for _, tc := range compareCases(t) {
		t.Run(fmt.Sprintf("%s %s %s %v", tc.Capability, tc.AsOf, tc.CompareAsOf, tc.Params["filters"]), func(t *testing.T) {
			params := map[string]any{"as_of": tc.AsOf, capability.ParamCompareAsOf: tc.CompareAsOf, "group_by": []string{"status"}}
			if f, ok := tc.Params["filters"]; ok {
				params["filters"] = f
			}
			b, _ := json.Marshal(params)
			req, e := service.ParseBody(b)
			if e != nil {
				t.Fatalf("%s %s", e.Code, e.Message)
			}
			q, e := svc.Prepare(capability.ByID(tc.Capability).Path, req)
			if e != nil {
				t.Fatalf("%s %s", e.Code, e.Message)
			}
			body, e := svc.Run(context.Background(), q)
			if e != nil {
				t.Fatalf("%s %s", e.Code, e.Message)
			}
			var a struct {
				Summary       map[string]any             `json:"summary"`
				Figures       map[string]json.RawMessage `json:"figures"`
				Entered       []listed                   `json:"entered"`
				Left          []listed                   `json:"left"`
				NotCompared   []listed                   `json:"not_compared"`
				StatusChanged []change                   `json:"status_changed"`
				MWChanged     []change                   `json:"mw_changed"`
			}
			if err := json.Unmarshal(body, &a); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.Summary {
				if got, _ := a.Summary[k].(float64); int(got) != want {
					t.Errorf("%s = %v, want %d", k, a.Summary[k], want)
				}
			}
			ids := func(l []listed) []string {
				out := []string{}
				for _, p := range l {
					out = append(out, p.QueueID)
				}
				return out
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"entered", ids(a.Entered), tc.Entered}, {"left", ids(a.Left), tc.Left}, {"not_compared", ids(a.NotCompared), tc.NotCompared}} {
				if !slices.Equal(c.got, c.want) && !(len(c.got) == 0 && len(c.want) == 0) {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
			if len(a.Figures) != 2 {
				t.Errorf("figures at %d dates, want 2", len(a.Figures))
			}
			// The citations of the first listed projects of each kind (each verification
			// re-hashes the raw file).
			var cites []json.RawMessage
			for _, l := range [][]listed{a.Entered, a.Left, a.NotCompared} {
				for _, p := range l[:min(5, len(l))] {
					cites = append(cites, p.Citation)
				}
			}
			for _, c := range append(a.MWChanged[:min(3, len(a.MWChanged))], a.StatusChanged[:min(5, len(a.StatusChanged))]...) {
				cites = append(cites, c.Before.Citation, c.After.Citation)
			}
			for _, c := range cites {
				out, e := svc.Evidence(context.Background(), c)
				if e != nil {
					t.Fatalf("citation %s does not verify: %s %s", c, e.Code, e.Message)
				}
				var ev evidence
				if err := json.Unmarshal(out, &ev); err != nil || !ev.Verified {
					t.Fatalf("citation %s: %v %s", c, err, out)
				}
			}
		})
	}
}

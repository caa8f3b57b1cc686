package queue_test

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
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

// TestAcrossOperators ingests every operator's files and asks each queue capability the same
// questions: projects and MW by normalized status and generation type (every group's status
// and type in the shared vocabulary, the groups adding up to the totals), and projects by raw
// generation type, where every group's citation verifies and its cited cell holds the group's
// value.
func TestAcrossOperators(t *testing.T) {
	raw := testenv.Raw(t)
	dir := t.TempDir()
	var adapters []ingest.Adapter
	ops := map[string]*queue.Operator{}
	for _, op := range queue.Operators {
		if op.AsOf == nil { // a companion, read with its operator's files
			continue
		}
		adapters = append(adapters, queue.Adapter{Op: op})
		ops[op.Cap.ID] = op
	}
	outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: dir}, adapters, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s %s: %s %v", o.Capability, o.AsOf, o.Status, o.Reasons)
		}
	}
	svc, err := service.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(t *testing.T, c *capability.Capability, params string) answer {
		t.Helper()
		var rp service.RawParams
		if err := json.Unmarshal([]byte(params), &rp); err != nil {
			t.Fatal(err)
		}
		q, e := svc.Prepare(c.Path, rp)
		if e != nil {
			t.Fatalf("%s: %s %s", params, e.Code, e.Message)
		}
		body, e := svc.Run(q)
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
				if s := r.Group["status"]; !slices.Contains(capability.QueueStatuses, s) {
					t.Errorf("status %q outside the vocabulary", s)
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
				out, e := svc.EvidenceJSON(cit.Verify)
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

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

// queueCase is a case of testdata/golden/queues.json (compute_queues.py, from the raw files):
// the params, and the totals, groups, notes (code: count) and figures of the notes expected.
type queueCase struct {
	Name        string                        `json:"name"`
	Capability  string                        `json:"capability"`
	AsOf        string                        `json:"as_of"`
	Params      map[string]any                `json:"params"`
	Totals      map[string]float64            `json:"totals"`
	Groups      map[string]map[string]float64 `json:"groups"`
	Notes       map[string]int64              `json:"notes"`
	NoteFigures map[string]map[string]float64 `json:"note_figures"`
}

// both asks capability c the same question over REST and over MCP, checks that the two
// payloads are the same bytes (or the same error) and returns the REST status and body.
func both(t *testing.T, srvURL string, cs *sdk.ClientSession, c *capability.Capability, args []byte) (int, []byte) {
	t.Helper()
	status, body := rest(t, "POST", srvURL+"/v1/"+c.Path+"/query", string(args))
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "query_" + c.ToolName() + "_v1", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	compare(t, res, body, status != 200)
	return status, body
}

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestQueueSemantics asks, over REST and MCP, the questions whose answers kept apart or named
// nothing before: requests of different kinds (ISO-NE's ETU and TS, PJM's Merchant
// Transmission, NYISO's transmission and load, MISO's HVDC lines) grouped and filtered by
// request_kind, ISO-NE's type as a dimension, ISO-NE's inferred statuses named with their
// count, MW and past in-service dates, PJM's serial projects moved to the cycle queue named
// and filtered out, MISO's placeholder kept out of project_count, its project without an id
// named, and its states written otherwise normalized (15, not 17). Each figure is the one
// compute_queues.py computes from the raw files.
func TestQueueSemantics(t *testing.T) {
	srv, cs := session(t)
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "queues.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []queueCase
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, gc := range all {
		if !slices.ContainsFunc([]string{"isone ", "pjm ", "nyiso ", "miso "}, func(p string) bool { return strings.HasPrefix(gc.Name, p) }) {
			continue
		}
		n++
		t.Run(gc.Name, func(t *testing.T) {
			c := capability.ByID(gc.Capability)
			params := map[string]any{"as_of": gc.AsOf}
			for k, v := range gc.Params {
				params[k] = v
			}
			args, _ := json.Marshal(params)
			status, body := both(t, srv.URL, cs, c, args)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var r struct {
				Summary struct {
					GroupCount int                 `json:"group_count"`
					Totals     map[string]*float64 `json:"totals"`
					Notes      []map[string]any    `json:"notes"`
				} `json:"summary"`
				Rows []struct {
					Group   map[string]any      `json:"group"`
					Metrics map[string]*float64 `json:"metrics"`
				} `json:"rows"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			for m, want := range gc.Totals {
				if got := r.Summary.Totals[m]; got == nil || !nearly(*got, want) {
					t.Errorf("totals.%s = %v, want %v", m, got, want)
				}
			}
			for m, byGroup := range gc.Groups {
				if r.Summary.GroupCount != len(byGroup) {
					t.Errorf("group_count %d, want %d", r.Summary.GroupCount, len(byGroup))
				}
				for _, row := range r.Rows {
					g := row.Group[gc.Params["group_by"].([]any)[0].(string)]
					if g == nil {
						g = "null"
					}
					want, ok := byGroup[fmt.Sprint(g)]
					if got := row.Metrics[m]; !ok || got == nil || !nearly(*got, want) {
						t.Errorf("%s[%v] = %v, want %v (%v)", m, g, got, want, ok)
					}
				}
			}
			for code, want := range gc.Notes {
				var found map[string]any
				for _, note := range r.Summary.Notes {
					if note["code"] == code {
						found = note
					}
				}
				if found == nil {
					t.Errorf("no %s note among %v", code, r.Summary.Notes)
					continue
				}
				if got, _ := found["count"].(float64); int64(got) != want {
					t.Errorf("note %s count %v, want %d", code, found["count"], want)
				}
				for k, want := range gc.NoteFigures[code] {
					if got, ok := found[k].(float64); !ok || !nearly(got, want) {
						t.Errorf("note %s %s = %v, want %v", code, k, found[k], want)
					}
				}
				if msg, _ := found["message"].(string); !strings.Contains(msg, "filter "+found["field"].(string)) {
					t.Errorf("note %s does not say how to filter the rows: %s", code, msg)
				}
			}
		})
	}
	if n < 15 {
		t.Fatalf("%d queue semantics cases in queues.json, want at least 15", n)
	}
}

// TestQueueCompareOverBoth asks every golden comparison (compute_queues.py --diff, set
// differences of the files) over REST and MCP: the same bytes, and the summary's counts the
// set differences give, under filters that select by either snapshot's values; a
// malformed compare_as_of and a value neither snapshot holds are refused saying so.
func TestQueueCompareOverBoth(t *testing.T) {
	srv, cs := session(t)
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "compare", "queues.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Capability  string         `json:"capability"`
		AsOf        string         `json:"as_of"`
		CompareAsOf string         `json:"compare_as_of"`
		Params      map[string]any `json:"params"`
		Summary     map[string]int `json:"summary"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %s %s %v", tc.Capability, tc.AsOf, tc.CompareAsOf, tc.Params["filters"]), func(t *testing.T) {
			params := map[string]any{"as_of": tc.AsOf, "compare_as_of": tc.CompareAsOf}
			for k, v := range tc.Params {
				params[k] = v
			}
			args, _ := json.Marshal(params)
			status, body := both(t, srv.URL, cs, capability.ByID(tc.Capability), args)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var r struct {
				Summary map[string]any `json:"summary"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			for k, want := range tc.Summary {
				if got, _ := r.Summary[k].(float64); int(got) != want {
					t.Errorf("%s = %v, want %d", k, r.Summary[k], want)
				}
			}
		})
	}
	miso := capability.QueueMISO
	for _, tc := range []struct {
		name, args, code, says string
	}{
		{"compare_as_of not a date", `{"compare_as_of":"last year"}`, "invalid_parameter", `compare_as_of must be latest or a snapshot date YYYY-MM-DD, got "last year"`},
		{"compare_as_of not served", `{"compare_as_of":"2024-02-30"}`, "invalid_parameter", `compare_as_of "2024-02-30" is not a served snapshot`},
		{"compare_as_of not a string", `{"compare_as_of":20250117}`, "invalid_parameter", "compare_as_of must be a snapshot date"},
		{"a value neither snapshot holds", `{"as_of":"2025-05-09","compare_as_of":"2025-01-17","filters":{"queue_id":"J0000"}}`, "invalid_filter",
			`"J0000" is not a value of filter queue_id in power.interconnection_queue as_of 2025-05-09 nor as_of 2025-01-17`},
		{"a value neither holds, at the top level", `{"as_of":"2025-05-09","compare_as_of":"2025-01-17","queue_id":["J0000"]}`, "invalid_filter",
			`"J0000" is not a value of filter queue_id in power.interconnection_queue as_of 2025-05-09 nor as_of 2025-01-17`},
		{"a value neither holds, as_of on a date in filters", `{"compare_as_of":"2025-01-17","filters":{"as_of":"on:2025-05-09","queue_id":"J0000"}}`, "invalid_filter",
			`"J0000" is not a value of filter queue_id in power.interconnection_queue as_of 2025-05-09 nor as_of 2025-01-17`},
		{"filter both at the top level and in filters", `{"compare_as_of":"2025-01-17","state":"TX","filters":{"state":"TX"}}`, "invalid_filter",
			"filter state is given both at the top level and inside filters; give it once"},
		{"as_of twice with compare_as_of", `{"as_of":"2025-05-09","compare_as_of":"2025-01-17","filters":{"as_of":"2025-05-09"}}`, "invalid_parameter", "as_of is given twice; give it once"},
		{"filters not an object with compare_as_of", `{"compare_as_of":"2025-01-17","filters":["queue_id"]}`, "invalid_filter", "filters must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := both(t, srv.URL, cs, miso, []byte(tc.args))
			var e struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			json.Unmarshal(body, &e)
			if status != 400 || e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.says) {
				t.Errorf("%d %s %q, want 400 %s saying %q", status, e.Error.Code, e.Error.Message, tc.code, tc.says)
			}
		})
	}
}

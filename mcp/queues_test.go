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

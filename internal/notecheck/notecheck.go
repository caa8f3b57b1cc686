// Package notecheck reads the expected notes of testdata/golden/notes/notes.json (written by
// testdata/golden/compute_notes.py from the raw files) and checks an answer against them, so
// that the REST and MCP tests check the same answers the same way.
package notecheck

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Case is one expected answer: the query, the totals (null_totals must be null), the summary
// notes (each by its code, with the members to compare; absent: codes it must not carry) and
// the rows (by the value of the
// first group_by dimension, "null" for a null group), each with metrics and notes.
type Case struct {
	Name       string                     `json:"name"`
	Capability string                     `json:"capability"`
	AsOf       string                     `json:"as_of"`
	Params     map[string]any             `json:"params"`
	Totals     map[string]float64         `json:"totals"`
	NullTotals []string                   `json:"null_totals"`
	Notes      []map[string]any           `json:"notes"`
	Absent     []string                   `json:"absent"`
	Rows       map[string]json.RawMessage `json:"rows"`
}

// Load reads the cases of testdata/golden/notes/notes.json under the repository root.
func Load(t testing.TB, root string) []Case {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "testdata", "golden", "notes", "notes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("notes.json: %v", err)
	}
	return cases
}

// Body is the case's query as a params object (its as_of pinned).
func (c Case) Body() []byte {
	p := map[string]any{"as_of": c.AsOf}
	for k, v := range c.Params {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	return b
}

// answer is the part of a query payload checked.
type answer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Totals map[string]*float64 `json:"totals"`
		Notes  []map[string]any    `json:"notes"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Notes   []map[string]any    `json:"notes"`
	} `json:"rows"`
}

// Check compares the answer body with the case.
func Check(t *testing.T, c Case, body []byte) {
	t.Helper()
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%v: %.300s", err, body)
	}
	if a.AsOf != c.AsOf {
		t.Errorf("as_of %s, want %s", a.AsOf, c.AsOf)
	}
	for m, want := range c.Totals {
		if got := a.Summary.Totals[m]; got == nil || !near(*got, want) {
			t.Errorf("totals.%s = %v, want %v", m, show(got), want)
		}
	}
	for _, m := range c.NullTotals {
		if got := a.Summary.Totals[m]; got != nil {
			t.Errorf("totals.%s = %v, want null", m, *got)
		}
	}
	checkNotes(t, "summary", c.Notes, a.Summary.Notes)
	for _, code := range c.Absent {
		for _, n := range a.Summary.Notes {
			if n["code"] == code {
				t.Errorf("summary: note %s, which this answer must not carry: %v", code, n["message"])
			}
		}
	}
	if len(c.Rows) == 0 {
		return
	}
	dim, _ := c.Params["group_by"].([]any)
	if len(dim) == 0 {
		t.Fatalf("the case expects rows but groups by nothing")
	}
	byKey := map[string]int{}
	for i, r := range a.Rows {
		v := r.Group[dim[0].(string)]
		key := "null"
		if v != nil {
			key = fmt.Sprint(v)
		}
		byKey[key] = i
	}
	for key, raw := range c.Rows {
		var want struct {
			Metrics map[string]float64 `json:"metrics"`
			Notes   []map[string]any   `json:"notes"`
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		i, ok := byKey[key]
		if !ok {
			t.Errorf("no row %s=%s", dim[0], key)
			continue
		}
		for m, w := range want.Metrics {
			if got := a.Rows[i].Metrics[m]; got == nil || !near(*got, w) {
				t.Errorf("row %s: %s = %v, want %v", key, m, show(got), w)
			}
		}
		checkNotes(t, "row "+key, want.Notes, a.Rows[i].Notes)
	}
}

// checkNotes finds each expected note by its code (and metric, when given) among got and
// compares its members: numbers and strings equal, a list of strings equal, "says" a part of
// the message, "values" the rows of the named values.
func checkNotes(t *testing.T, where string, want, got []map[string]any) {
	t.Helper()
	for _, w := range want {
		var found map[string]any
		for _, g := range got {
			if g["code"] == w["code"] && (w["metric"] == nil || g["metric"] == w["metric"]) && (w["dimension"] == nil || g["dimension"] == w["dimension"]) {
				found = g
				break
			}
		}
		if found == nil {
			t.Errorf("%s: no note %v (notes: %v)", where, w["code"], codes(got))
			continue
		}
		for k, v := range w {
			switch k {
			case "says":
				if msg, _ := found["message"].(string); !strings.Contains(msg, v.(string)) {
					t.Errorf("%s: note %v does not say %q: %s", where, w["code"], v, msg)
				}
			case "values":
				rows := map[string]float64{}
				list, _ := found["values"].([]any)
				for _, item := range list {
					if o, ok := item.(map[string]any); ok {
						rows[fmt.Sprint(o["value"])], _ = o["rows"].(float64)
					}
				}
				for name, n := range v.(map[string]any) {
					if rows[name] != n.(float64) {
						t.Errorf("%s: note %v: %s has %v rows, want %v", where, w["code"], name, rows[name], n)
					}
				}
			default:
				if fmt.Sprint(found[k]) != fmt.Sprint(v) {
					t.Errorf("%s: note %v: %s = %v, want %v", where, w["code"], k, found[k], v)
				}
			}
		}
	}
}

func codes(notes []map[string]any) []any {
	var out []any
	for _, n := range notes {
		out = append(out, n["code"])
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b), 1) }

func show(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

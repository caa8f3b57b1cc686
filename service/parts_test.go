package service

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// partsGolden is testdata/golden/eia_parts.json: retail sales lines of one state by part,
// computed from the workbook's XML by compute_eia_parts.py, not by this code.
type partsGolden struct {
	Name      string `json:"name"`
	Totals    map[string]float64
	Groups    map[string]map[string]float64
	Published float64 `json:"published_sales_mwh"`
}

func readPartsGolden(t *testing.T) map[string]partsGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "eia_parts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []partsGolden
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]partsGolden{}
	for _, g := range list {
		out[g.Name] = g
	}
	return out
}

// TestRetailPartsNote checks the note on retail sales answers whose lines span Part C
// (delivery only) and other parts: the published Part C sales repeat Part B's, so adding them
// would count a sale twice; the answer says so, names the metrics that leave Part C out and
// how to split, and its sales total is Parts A, B and D only. A metric null because only Part
// C lines match says not_counted, not not_published.
func TestRetailPartsNote(t *testing.T) {
	s := testService(t)
	g := readPartsGolden(t)
	byPart := g["retail sales CA by part"].Groups["source_record_count"]
	if len(byPart) != 3 {
		t.Fatalf("golden parts of CA: %v", byPart)
	}

	t.Run("a state's lines span parts A, B and C", func(t *testing.T) {
		a, body := ask(t, s, "power/retail-sales", `{"filters":{"state":"CA"}}`)
		notes := notesWith(a.Summary.Notes, NoteMixedPartition)
		if len(notes) != 1 || notes[0].Dimension != "part" {
			t.Fatalf("mixed_partition notes %+v, want one on part", notes)
		}
		n := notes[0]
		for _, v := range n.Values {
			if want := byPart[v.Value.(string)]; float64(v.Rows) != want {
				t.Errorf("part %v: %d rows, golden %v", v.Value, v.Rows, want)
			}
		}
		for _, want := range []string{"count a sale twice", "C", "B", "group_by", "filter part", "sales_mwh", "customers"} {
			if !strings.Contains(n.Message, want) {
				t.Errorf("the note does not say %q: %s", want, n.Message)
			}
		}
		var raw struct {
			Summary struct {
				Notes []struct {
					Repeating struct {
						Values    []string `json:"values"`
						Of        []string `json:"of"`
						LeftOutOf []string `json:"left_out_of"`
					} `json:"repeating"`
				} `json:"notes"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatal(err)
		}
		var rep = raw.Summary.Notes[slices.IndexFunc(a.Summary.Notes, func(n answerNote) bool { return n.Code == NoteMixedPartition })].Repeating
		if !slices.Equal(rep.Values, []string{"C"}) || !slices.Equal(rep.Of, []string{"B"}) ||
			!slices.Contains(rep.LeftOutOf, "sales_mwh") || !slices.Contains(rep.LeftOutOf, "residential_customers") || slices.Contains(rep.LeftOutOf, "revenue_kusd") {
			t.Errorf("repeating member %+v", rep)
		}
		// The total counts each sale once: Parts A and B published sales, not Part C's copy.
		once := g["retail sales CA part A, published sales"].Published + g["retail sales CA part B, published sales"].Published
		twice := once + g["retail sales CA part C, published sales"].Published
		if got := a.Summary.Totals["sales_mwh"]; got == nil || math.Abs(*got-once) > 1e-6 || *got == twice {
			t.Errorf("sales_mwh %v, want %v (with Part C it would be %v)", got, once, twice)
		}
	})

	for _, tc := range []struct{ name, params string }{
		{"a state without Part C lines", `{"filters":{"state":"TX"}}`},
		{"grouped by part", `{"filters":{"state":"CA"},"group_by":["part"]}`},
		{"filtered to part B", `{"filters":{"state":"CA","part":"B"}}`},
		{"parts A and B only", `{"filters":{"state":"CA","part":["A","B"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := ask(t, s, "power/retail-sales", tc.params)
			for _, n := range notesWith(a.Summary.Notes, NoteMixedPartition) {
				if n.Dimension == "part" {
					t.Errorf("unexpected note on part: %s", n.Message)
				}
			}
		})
	}

	t.Run("part C alone: not counted", func(t *testing.T) {
		a, _ := ask(t, s, "power/retail-sales", `{"filters":{"state":"CA","part":"C"}}`)
		if a.Summary.Totals["sales_mwh"] != nil {
			t.Fatalf("sales_mwh over Part C lines is %v, want null", *a.Summary.Totals["sales_mwh"])
		}
		got := notesWith(a.Summary.Notes, NoteNotCounted)
		metrics := map[string]bool{}
		for _, n := range got {
			metrics[n.Metric] = true
		}
		if !metrics["sales_mwh"] || !metrics["customers"] || !metrics["average_price_usd_per_kwh"] || metrics["revenue_kusd"] {
			t.Errorf("not_counted notes on %v", metrics)
		}
		if len(notesWith(a.Summary.Notes, "not_published")) > 0 {
			t.Errorf("Part C sales are published, yet a not_published note: %+v", notesWith(a.Summary.Notes, "not_published"))
		}
	})

	t.Run("grouped by part: the C row", func(t *testing.T) {
		a, _ := ask(t, s, "power/retail-sales", `{"filters":{"state":"CA"},"group_by":["part"]}`)
		for _, r := range a.Rows {
			notes := notesWith(r.Notes, NoteNotCounted)
			if r.Group["part"] == "C" {
				if r.Metrics["sales_mwh"] != nil || len(notes) == 0 || !strings.Contains(notes[0].Message, "include_records") {
					t.Errorf("row C: sales_mwh %v, notes %+v", r.Metrics["sales_mwh"], r.Notes)
				}
			} else if len(notes) > 0 {
				t.Errorf("row %v: %+v", r.Group["part"], notes)
			}
		}
	})
}

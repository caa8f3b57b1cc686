package service

import (
	"encoding/json"
	"strings"
	"testing"
)

// answerNote is a note of an answer as the tests read it.
type answerNote struct {
	Code      string `json:"code"`
	Metric    string `json:"metric"`
	Dimension string `json:"dimension"`
	Values    []struct {
		Value any   `json:"value"`
		Rows  int64 `json:"rows"`
	} `json:"values"`
	DateRange string `json:"date_range"`
	Count     int64  `json:"count"`
	YearFilter string `json:"year_filter"`
	Message   string `json:"message"`
}

// answer is the part of a query payload these tests read.
type answer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Matched int                 `json:"matched_source_rows"`
		Totals  map[string]*float64 `json:"totals"`
		Units   map[string]string   `json:"units"`
		Notes   []answerNote        `json:"notes"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Notes   []answerNote        `json:"notes"`
	} `json:"rows"`
	Citations map[string]json.RawMessage `json:"citations"`
}

func ask(t *testing.T, s *Service, path, params string) (answer, []byte) {
	t.Helper()
	b, e := s.QueryJSON(path, []byte(params))
	if e != nil {
		t.Fatalf("%s %s: %s", path, params, e.Body())
	}
	var a answer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func notesWith(notes []answerNote, code string) []answerNote {
	var out []answerNote
	for _, n := range notes {
		if n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// TestPartitionNotes checks that an answer spanning several values of a declared partition
// dimension says so, naming the dimension, its values and how to split, and that an answer
// filtered to one value or grouped by it does not.
func TestPartitionNotes(t *testing.T) {
	s := openAPIService(t)
	cases := []struct {
		name, path, params string
		want               map[string][]string // dimension → values named
	}{
		{"capacity of a state, every lifecycle", "power/capacity", `{"filters":{"state":"TX"}}`,
			map[string][]string{"lifecycle": {"canceled_or_postponed", "operating", "planned", "retired"}}},
		{"capacity, two lifecycles", "power/capacity", `{"filters":{"state":"TX","lifecycle":["operating","planned"]}}`,
			map[string][]string{"lifecycle": {"operating", "planned"}}},
		{"capacity, one lifecycle", "power/capacity", `{"filters":{"state":"TX","lifecycle":"operating"}}`, nil},
		{"capacity grouped by lifecycle", "power/capacity", `{"filters":{"state":"TX"},"group_by":["lifecycle"]}`, nil},
		{"gas prices, every atom", "natural-gas/prices", `{}`,
			map[string][]string{"atom": {"henry_hub_daily_spot", "us_electric_power_monthly"}, "unit": {"USD/MMBtu", "USD/Mcf"}}},
		{"gas prices grouped by atom", "natural-gas/prices", `{"group_by":["atom"]}`,
			map[string][]string{"unit": {"USD/MMBtu", "USD/Mcf"}}},
		{"gas prices, one atom", "natural-gas/prices", `{"filters":{"atom":"henry_hub_daily_spot"}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := ask(t, s, tc.path, tc.params)
			got := notesWith(a.Summary.Notes, NoteMixedPartition)
			if len(got) != len(tc.want) {
				t.Fatalf("%d mixed_partition notes, want %d: %+v", len(got), len(tc.want), got)
			}
			for _, n := range got {
				want, ok := tc.want[n.Dimension]
				if !ok {
					t.Fatalf("note on %s, want none", n.Dimension)
				}
				var rows int64
				var names []string
				for _, v := range n.Values {
					names = append(names, v.Value.(string))
					rows += v.Rows
				}
				if strings.Join(names, ",") != strings.Join(want, ",") {
					t.Errorf("%s values %v, want %v", n.Dimension, names, want)
				}
				if rows != int64(a.Summary.Matched) {
					t.Errorf("%s values cover %d rows, %d matched", n.Dimension, rows, a.Summary.Matched)
				}
				if !strings.Contains(n.Message, "filter "+n.Dimension) || !strings.Contains(n.Message, "group_by") {
					t.Errorf("the message does not say how to split: %s", n.Message)
				}
			}
		})
	}
}

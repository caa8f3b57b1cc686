package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestOneTypeRule: one rule for JSON bodies, over two capabilities — a value is read by the
// type its member takes, from its JSON value or from its text, exactly as GET pairs are read —
// for query params, integer filters, date ranges, evidence and aggregate evidence. A value and
// its text give the same answer byte for byte; a value that is not of the type (in either
// form) is a 400 that names the type.
func TestOneTypeRule(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	const pc, ng = "/v1/power/capacity/query", "/v1/natural-gas/prices/query"
	_, body := post(t, srv, ng, `{"group_by":["atom"]}`)
	var ans struct {
		Citations map[string]struct {
			Verify map[string]any `json:"verify"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(body, &ans); err != nil || len(ans.Citations) == 0 {
		t.Fatalf("no citations: %s", body)
	}
	var verify map[string]any
	for _, c := range ans.Citations {
		verify = c.Verify
		break
	}
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for key, val := range verify {
			out[key] = val
		}
		out[k] = v
		return out
	}
	rowText := toJSON(t, verify["source_row"]) // "22" for 22

	same := []struct {
		name, path  string
		typed, text any
	}{
		{"top_n", pc, `{"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`, `{"group_by":["state"],"order_by":"nameplate_mw","top_n":"5"}`},
		{"limit and include_records", ng, `{"include_records":true,"limit":3}`, `{"include_records":"true","limit":"3"}`},
		{"integer filter", pc, `{"filters":{"operating_year":2010},"group_by":["state"]}`, `{"filters":{"operating_year":"2010"},"group_by":["state"]}`},
		{"integer filter at the top level", pc, `{"operating_year":2010}`, `{"operating_year":"2010"}`},
		{"integer filter list", ng, `{"filters":{"year":[2020,2021]},"group_by":["atom"]}`, `{"filters":{"year":["2020",2021]},"group_by":["atom"]}`},
		{"date range", ng, `{"observation_date_from":"2020"}`, `{"observation_date_from":2020}`},
		{"evidence source_row", "/v1/evidence/source-row", verify, with("source_row", rowText)},
	}
	for _, tc := range same {
		t.Run("same answer: "+tc.name, func(t *testing.T) {
			s1, b1 := post(t, srv, tc.path, tc.typed)
			s2, b2 := post(t, srv, tc.path, tc.text)
			if s1 != 200 || s2 != 200 || string(b1) != string(b2) {
				t.Fatalf("typed %d, text %d; bodies equal %v: %.300s | %.300s", s1, s2, string(b1) == string(b2), b1, b2)
			}
		})
	}
	t.Run("same answer: GET pairs", func(t *testing.T) {
		s1, b1 := get(t, srv, pc+"?operating_year=2010&group_by=state")
		_, b2 := post(t, srv, pc, `{"filters":{"operating_year":2010},"group_by":["state"]}`)
		if s1 != 200 || string(b1) != string(b2) {
			t.Fatalf("GET %d: %.300s", s1, b1)
		}
	})

	refused := []struct {
		name, path string
		body       any
		hint       string // a piece of the message naming the type expected
	}{
		{"top_n not an integer", pc, `{"group_by":["state"],"order_by":"nameplate_mw","top_n":"five"}`, `integer (5 or \"5\")`},
		{"top_n a boolean", pc, `{"group_by":["state"],"order_by":"nameplate_mw","top_n":true}`, `integer (5 or \"5\")`},
		{"limit a fraction", ng, `{"include_records":true,"limit":2.5}`, `integer (5 or \"5\")`},
		{"boolean not a boolean", ng, `{"include_records":"maybe"}`, "true or false"},
		{"integer filter not an integer", pc, `{"filters":{"operating_year":"twenty"}}`, "takes integers"},
		{"integer filter a fraction", ng, `{"filters":{"year":2020.5}}`, "takes integers"},
		{"evidence source_row not an integer", "/v1/evidence/source-row", with("source_row", "x"), `integer (22 or \"22\")`},
		{"evidence source_row a fraction", "/v1/evidence/source-row", with("source_row", 2.5), `integer (22 or \"22\")`},
		{"aggregate evidence value not a number", "/v1/evidence/aggregate", `{"capability":"natural_gas.prices","metric":"avg_price","lineage_filter":{},"as_of":"latest","value":"abc"}`, "number"},
	}
	for _, tc := range refused {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			status, b := post(t, srv, tc.path, tc.body)
			if status != 400 {
				t.Fatalf("status %d: %.300s", status, b)
			}
			if !strings.Contains(string(b), tc.hint) {
				t.Errorf("message does not say %s: %s", tc.hint, b)
			}
		})
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package ferc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/ferc"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// expected is testdata/golden/fixtures/ferc1_402.json, read from the fixtures by
// compute_ferc1_402.py with the standard library's XML reader.
type expected struct {
	AsOf  string `json:"as_of"`
	Facts map[string]struct {
		SourceFile string   `json:"source_file"`
		Row        int      `json:"source_row_number"`
		Concept    string   `json:"concept"`
		Value      *float64 `json:"value"`
		ValueText  *string  `json:"value_text"`
		Unit       *string  `json:"unit"`
		IsNil      bool     `json:"is_nil"`
	} `json:"facts"`
	ValueSum  map[string]float64 `json:"value_sum"`
	FactCount map[string]int     `json:"fact_count"`
}

func fixtures(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", "ferc", "form1")
}

// copyFixtures copies the fixture filings into a raw directory, editing each file's text.
func copyFixtures(t *testing.T, edit func(name, text string) string) string {
	t.Helper()
	dir := t.TempDir()
	dst := filepath.Join(dir, "ferc", "form1")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(fixtures(t), "*.xml"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if edit != nil {
			text = edit(filepath.Base(p), text)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func ingestDir(t *testing.T, raw, data string) ingest.Outcome {
	t.Helper()
	outcomes, err := ingest.Run(raw, &snapshots.Store{Dir: data}, []ingest.Adapter{ferc.Form1{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) != 1 {
		t.Fatalf("outcomes %+v", outcomes)
	}
	return outcomes[0]
}

// TestFixtureFacts ingests the fixture filings and compares every served fact, and the value
// sums by concept and unit, with the values read from the same files by another reader.
func TestFixtureFacts(t *testing.T) {
	var want expected
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "fixtures", "ferc1_402.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	o := ingestDir(t, copyFixtures(t, nil), data)
	if o.Status != snapshots.Promoted || o.AsOf != want.AsOf || o.Rows != len(want.Facts) {
		t.Fatalf("%s as_of %s, %d rows; want promoted %s, %d rows; reasons %v", o.Status, o.AsOf, o.Rows, want.AsOf, len(want.Facts), o.Reasons)
	}
	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("every fact", func(t *testing.T) {
		// Every record, page after page (the records page by size).
		var r struct {
			Records []map[string]any `json:"records"`
		}
		for _, page := range testenv.Pages(t, `{"include_records":true,"limit":5000}`, func(params string) []byte {
			out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(params))
			if e != nil {
				t.Fatal(e.Message)
			}
			return out
		}) {
			var p struct {
				Records []map[string]any `json:"records"`
			}
			if err := json.Unmarshal(page, &p); err != nil {
				t.Fatal(err)
			}
			r.Records = append(r.Records, p.Records...)
		}
		if len(r.Records) != len(want.Facts) {
			t.Fatalf("%d records, want %d", len(r.Records), len(want.Facts))
		}
		str := func(v any) string {
			if v == nil {
				return ""
			}
			return fmt.Sprint(v)
		}
		for _, rec := range r.Records {
			key := strings.Join([]string{str(rec["respondent_id"]), str(rec["report_year"]), str(rec["plant_name"]), str(rec["fuel_kind"]), str(rec["concept"])}, "|")
			w, ok := want.Facts[key]
			if !ok {
				t.Errorf("record %s is not a served fact", key)
				continue
			}
			cit, _ := rec["citation"].(map[string]any)
			if cit["source_file"] != w.SourceFile || rec["source_row_number"] != float64(w.Row) {
				t.Errorf("%s cites %v row %v, want %s row %d", key, cit["source_file"], rec["source_row_number"], w.SourceFile, w.Row)
			}
			if got, ok := rec["value"].(float64); (w.Value == nil) != (rec["value"] == nil) || ok && got != *w.Value {
				t.Errorf("%s value %v, want %v", key, rec["value"], deref(w.Value))
			}
			if w.ValueText != nil && rec["value_text"] != *w.ValueText {
				t.Errorf("%s value_text %v, want %q", key, rec["value_text"], *w.ValueText)
			}
			if w.Unit != nil && rec["unit"] != *w.Unit || w.Unit == nil && rec["unit"] != nil {
				t.Errorf("%s unit %v, want %v", key, rec["unit"], w.Unit)
			}
			if rec["is_nil"] != w.IsNil {
				t.Errorf("%s is_nil %v, want %v", key, rec["is_nil"], w.IsNil)
			}
		}
	})

	t.Run("value sums by concept and unit", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(`{"group_by":["concept","unit"]}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Rows []struct {
				Group   map[string]any      `json:"group"`
				Metrics map[string]*float64 `json:"metrics"`
			} `json:"rows"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, row := range r.Rows {
			if row.Group["unit"] == nil {
				continue
			}
			k := fmt.Sprint(row.Group["concept"], "|", row.Group["unit"])
			w, ok := want.ValueSum[k]
			if !ok {
				t.Errorf("group %s has no expected sum", k)
				continue
			}
			if got := row.Metrics["value_sum"]; got == nil || math.Abs(*got-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("%s value_sum %v, want %v", k, deref(got), w)
			}
			if got := row.Metrics["numeric_fact_count"]; got == nil || int(*got) != want.FactCount[k] {
				t.Errorf("%s numeric_fact_count %v, want %d", k, deref(got), want.FactCount[k])
			}
			checked++
		}
		if checked != len(want.ValueSum) {
			t.Errorf("%d groups with a unit, want %d", checked, len(want.ValueSum))
		}
	})

	t.Run("every cited aggregate recomputes from its cells", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(`{"filters":{"unit":"USD"},"group_by":["respondent_id","concept"]}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Citations) < 20 {
			t.Fatalf("%d citations", len(r.Citations))
		}
		for ref, cit := range r.Citations {
			body := fmt.Sprintf(`{"capability":"power.plant_costs","metric":"value_sum","citation":%s}`, cit)
			ev, e := svc.AggregateEvidence(context.Background(), []byte(body))
			if e != nil {
				t.Fatalf("%s: %s", ref, e.Message)
			}
			var v struct {
				Equal      bool     `json:"equal"`
				Recomputed *float64 `json:"recomputed"`
				Served     *float64 `json:"served"`
			}
			if err := json.Unmarshal(ev, &v); err != nil || !v.Equal {
				t.Errorf("%s: recomputed %v, served %v (%v)", ref, deref(v.Recomputed), deref(v.Served), err)
			}
		}
	})

	t.Run("net generation asked by concept", func(t *testing.T) {
		out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(`{"filters":{"concept":"NetGenerationExcludingPlantUse"}}`))
		if e != nil {
			t.Fatal(e.Message)
		}
		var r struct {
			Summary struct {
				Totals map[string]*float64 `json:"totals"`
				Units  map[string]string   `json:"units"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		w := want.ValueSum["NetGenerationExcludingPlantUse|kWh"]
		if got := r.Summary.Totals["value_sum"]; got == nil || *got != w {
			t.Errorf("net generation %v kWh, want %v", deref(got), w)
		}
	})
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestGates: filings damaged in ways the generic conformance suite does not try are
// rejected for their own gate, and nothing else fails.
func TestGates(t *testing.T) {
	const original, resubmission = "245982-wk-20231231.xml", "258652-wk-20231231.xml"
	cases := []struct {
		name string
		edit func(name, text string) string
		want string
	}{
		{"a repeated fact with another value", func(n, text string) string {
			if n != "232550-wk-20231231.xml" {
				return text
			}
			// the filer's repeat of Fixture Unit 2's net generation now disagrees with the first
			i := strings.LastIndex(text, `2987320500</ferc:NetGenerationExcludingPlantUse>`)
			return text[:i] + `2987320501</ferc:NetGenerationExcludingPlantUse>` + text[i+len(`2987320500</ferc:NetGenerationExcludingPlantUse>`):]
		}, "duplicate_facts_consistent"},
		{"a concept that is no line of the schedule", func(n, text string) string {
			if n != resubmission {
				return text
			}
			// the first PlantConstructionType element, its start and end tags
			return strings.Replace(text, "PlantConstructionType", "PlantConstructionMethod", 2)
		}, "headers_present"},
		{"a fuel line filed without a fuel kind", func(n, text string) string {
			if n != resubmission {
				return text
			}
			i := strings.Index(text, "<ferc:PlantKind ")
			return text[:i] + `<ferc:FuelUnit id="f-999" contextRef="c-2">Mcf</ferc:FuelUnit>` + "\n  " + text[i:]
		}, "facts_placed"},
		{"two filings that cannot be told apart", func(n, text string) string {
			if n != original {
				return text
			}
			text = strings.ReplaceAll(text, "2024-04-18", "2024-05-28")
			return strings.Replace(text, `>O</ferc:SubmissionType>`, `>R</ferc:SubmissionType>`, 1)
		}, "filings_superseded"},
		{"another form", func(n, text string) string {
			if n != resubmission {
				return text
			}
			return strings.Replace(text, `>1</ferc:FormType>`, `>1-F</ferc:FormType>`, 1)
		}, "filings_identified"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ingestDir(t, copyFixtures(t, tc.edit), t.TempDir())
			if o.Status != snapshots.Rejected {
				t.Fatalf("%s: %v", o.Status, o.Reasons)
			}
			var failed []string
			for _, g := range o.Manifest.Gates {
				if !g.Passed {
					failed = append(failed, g.Name)
				}
			}
			if !slices.Equal(failed, []string{tc.want}) {
				t.Errorf("failed gates %v, want [%s]; reasons %v", failed, tc.want, o.Reasons)
			}
		})
	}
}

// TestSupersededFiling: the respondent's original filing is not served once its
// resubmission is here, and the gate names it; without the resubmission it is served.
func TestSupersededFiling(t *testing.T) {
	query := `{"filters":{"respondent_id":"C999002","concept":"NetGenerationExcludingPlantUse"}}`
	cases := []struct {
		name    string
		drop    string
		wantGen float64
		wantSub string
	}{
		{"with the resubmission", "", 1512345000, "R"},
		{"original alone", "258652-wk-20231231.xml", 1500000000, "O"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := copyFixtures(t, nil)
			if tc.drop != "" {
				if err := os.Remove(filepath.Join(raw, "ferc", "form1", tc.drop)); err != nil {
					t.Fatal(err)
				}
			}
			data := t.TempDir()
			o := ingestDir(t, raw, data)
			if o.Status != snapshots.Promoted {
				t.Fatalf("%s: %v", o.Status, o.Reasons)
			}
			for _, g := range o.Manifest.Gates {
				if g.Name == "filings_superseded" && (tc.drop == "") != strings.Contains(g.Detail, "245982-wk-20231231.xml (O, attested 2024-04-18) by 258652-wk-20231231.xml") {
					t.Errorf("filings_superseded: %s", g.Detail)
				}
			}
			svc, err := service.New(data)
			if err != nil {
				t.Fatal(err)
			}
			out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(query))
			if e != nil {
				t.Fatal(e.Message)
			}
			var r struct {
				Summary struct {
					Totals map[string]*float64 `json:"totals"`
				} `json:"summary"`
				Records []map[string]any `json:"records"`
			}
			json.Unmarshal(out, &r)
			if got := r.Summary.Totals["value_sum"]; got == nil || *got != tc.wantGen {
				t.Errorf("net generation %v, want %v", deref(got), tc.wantGen)
			}
			out, _ = svc.QueryJSON(context.Background(), "power/plant-costs", []byte(`{"filters":{"respondent_id":"C999002"},"group_by":["submission_type"]}`))
			if !strings.Contains(string(out), `"submission_type":"`+tc.wantSub+`"`) || strings.Contains(string(out), `"submission_type":"`+map[string]string{"R": "O", "O": "R"}[tc.wantSub]+`"`) {
				t.Errorf("submission types served: %s", out)
			}
		})
	}
}

package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// docsetCase is a case of testdata/golden/docsets.json (compute_docsets.py, the standard
// library over the raw files): its totals, and what the partial_period notes must say it
// covers.
type docsetCase struct {
	Name     string             `json:"name"`
	AsOf     string             `json:"as_of"`
	Params   map[string]any     `json:"params"`
	Totals   map[string]float64 `json:"totals"`
	Coverage []string           `json:"coverage"`
}

func docsetCases(t *testing.T) map[string]docsetCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", "docsets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []docsetCase
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]docsetCase{}
	for _, c := range list {
		out[c.Name] = c
	}
	return out
}

// docNote is a note on a snapshot's documents, as an answer gives it.
type docNote struct {
	Code       string `json:"code"`
	Metric     string `json:"metric"`
	Period     string `json:"period"`
	SourceFile string `json:"source_file"`
	Covered    string `json:"covered"`
	Complete   string `json:"complete"`
	Message    string `json:"message"`
	HeldBy     []struct {
		AsOf string `json:"as_of"`
		Rows int    `json:"rows"`
	} `json:"held_by"`
	Covers *struct {
		Rows   int                          `json:"rows"`
		Ranges map[string]map[string]string `json:"ranges"`
	} `json:"covers"`
	Revisions []struct {
		Key    string `json:"source_record_key"`
		Values []struct {
			Field   string  `json:"field"`
			Served  float64 `json:"served"`
			Earlier float64 `json:"earlier"`
		} `json:"values"`
		ServedRelease  string          `json:"served_release"`
		EarlierRelease string          `json:"earlier_release"`
		Earlier        json.RawMessage `json:"earlier"`
	} `json:"revisions"`
}

type docAnswer struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		Totals map[string]*float64 `json:"totals"`
		Notes  []docNote           `json:"notes"`
	} `json:"summary"`
	Records []map[string]any `json:"records"`
}

func notesOf(a docAnswer, code string) []docNote {
	var out []docNote
	for _, n := range a.Summary.Notes {
		if n.Code == code {
			out = append(out, n)
		}
	}
	return out
}

// TestDocumentSets asks, over REST, the questions whose answers depend on how a capability's
// documents make its snapshots: the latest ERCOT snapshot answers for 2024 and 2025 together;
// 2025 carries a partial_period note; a year no file has says so, and which as_of was asked;
// N3045US3 is each month's newest release, with the earlier release cited where it differs;
// the EIA-930 day cut short says how many hours it has. Figures and coverage come from
// testdata/golden/docsets.json.
func TestDocumentSets(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	golden := docsetCases(t)
	ask := func(t *testing.T, path, query string) docAnswer {
		t.Helper()
		status, body := get(t, srv, path+"?"+query)
		if status != 200 {
			t.Fatalf("%s?%s: %d %s", path, query, status, body)
		}
		if strings.Contains(string(body), "widen the filters") {
			t.Errorf("the answer still says \"widen the filters\": %s", body)
		}
		return decode[docAnswer](t, body)
	}
	totals := func(t *testing.T, a docAnswer, name string) {
		t.Helper()
		gc, ok := golden[name]
		if !ok {
			t.Fatalf("no golden case %q", name)
		}
		if a.AsOf != gc.AsOf {
			t.Errorf("as_of %s, want %s", a.AsOf, gc.AsOf)
		}
		for m, want := range gc.Totals {
			got := a.Summary.Totals[m]
			if got == nil || math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s = %v, want %v", m, deref(got), want)
			}
		}
	}
	covered := func(t *testing.T, a docAnswer, name string) {
		t.Helper()
		notes := notesOf(a, "partial_period")
		for _, want := range golden[name].Coverage {
			found := false
			for _, n := range notes {
				found = found || strings.HasPrefix(n.Covered, want) && n.Complete != "" && strings.Contains(n.Message, n.Complete)
			}
			if !found {
				t.Errorf("no partial_period note covering %q among %+v", want, notes)
			}
		}
	}

	t.Run("ercot 2024 from the latest snapshot", func(t *testing.T) {
		a := ask(t, "/v1/power/price-ercot/query", "settlement_point=HB_NORTH&year=2024")
		totals(t, a, "ercot latest HB_NORTH 2024")
		if n := len(a.Summary.Notes); n != 0 {
			t.Errorf("notes on a complete year: %+v", a.Summary.Notes)
		}
	})
	t.Run("ercot 2025 is covered in part", func(t *testing.T) {
		a := ask(t, "/v1/power/price-ercot/query", "settlement_point=HB_NORTH&year=2025")
		totals(t, a, "ercot latest HB_NORTH 2025")
		covered(t, a, "ercot latest 2025 (year to date)")
		if n := notesOf(a, "partial_period"); len(n) != 2 || n[0].SourceFile != "DAMLZHBSPP_2025_partial.xlsx" || !strings.Contains(n[0].Complete, "No published file here has the rest") {
			t.Errorf("partial_period notes %+v", n)
		}
	})
	t.Run("ercot both years grouped by year", func(t *testing.T) {
		a := ask(t, "/v1/power/price-ercot/query", "settlement_point=HB_NORTH")
		totals(t, a, "ercot latest HB_NORTH both years")
		if len(notesOf(a, "partial_period")) != 2 {
			t.Errorf("notes %+v", a.Summary.Notes)
		}
	})
	t.Run("ercot a year no file has", func(t *testing.T) {
		a := ask(t, "/v1/power/price-ercot/query", "settlement_point=HB_NORTH&year=2023")
		n := notesOf(a, "no_rows")
		if len(n) == 0 || !strings.Contains(n[0].Message, "no file published by 2025-05-17 that is served here has such rows") ||
			n[0].Covers == nil || n[0].Covers.Ranges["delivery_date"]["from"] != "2024-01-01" || n[0].Covers.Ranges["delivery_date"]["to"] != "2025-05-17" {
			t.Errorf("no_rows notes %+v", n)
		}
	})
	t.Run("ercot 2025 asked of the 2024 snapshot", func(t *testing.T) {
		a := ask(t, "/v1/power/price-ercot/query", "settlement_point=HB_NORTH&year=2025&as_of=2024-12-31")
		n := notesOf(a, "no_rows")
		if len(n) == 0 || !strings.Contains(n[0].Message, "no file published by 2024-12-31") || !strings.Contains(n[0].Message, "a later as_of") {
			t.Errorf("no_rows notes %+v", n)
		}
	})
	t.Run("N3045US3 from the newest release", func(t *testing.T) {
		for _, m := range []string{"2020-05", "2020-06", "2020-07", "2020-08", "2020-10", "2020-11", "2022-01"} {
			name := "N3045US3 " + m + " revised, as of "
			a := ask(t, "/v1/natural-gas/prices/query", "series_id=N3045US3&month="+m+"&include_records=true")
			totals(t, a, name+"2024-07-10")
			earlier := golden[name+"2022-04-29"].Totals["avg_price"]
			rv := notesOf(a, "release_revised")
			if len(rv) != 1 || len(rv[0].Revisions) != 1 || rv[0].Revisions[0].Values[0].Earlier != earlier ||
				rv[0].Revisions[0].EarlierRelease != "2022-04-29" || rv[0].Revisions[0].ServedRelease != "2023-02-28" {
				t.Fatalf("%s: release_revised notes %+v", m, rv)
			}
			if a.Records[0]["source_record_key"] != "N3045US3:"+m || a.Records[0]["release_date"] != "2023-02-28" {
				t.Errorf("%s: record %v", m, a.Records[0])
			}
			// The earlier release is cited as of its own date, and the evidence verifies it.
			status, body := post(t, srv, "/v1/evidence/source-row", rv[0].Revisions[0].Earlier)
			ev := decode[evidence](t, body)
			if status != 200 || !ev.Verified {
				t.Fatalf("%s: the earlier release's citation does not verify: %d %s", m, status, body)
			}
			if v, _ := ev.cell("U.S. Natural Gas Electric Power Price (Dollars per Thousand Cubic Feet)"); v != fmt.Sprint(earlier) {
				t.Errorf("%s: the earlier release's cell reads %q, want %v", m, v, earlier)
			}
			// Pinned to the U.S. summary's own release, the month is its value, unrevised.
			totals(t, ask(t, "/v1/natural-gas/prices/query", "series_id=N3045US3&month="+m+"&as_of=2022-04-29"), name+"2022-04-29")
		}
		for _, y := range []string{"2022", "2021", "2010s", "all months"} {
			name := "us electric power monthly " + y + " as of 2024-07-10"
			gc := golden[name]
			q := url.Values{"atom": {"us_electric_power_monthly"}}
			if v, ok := gc.Params["observation_date_from"]; ok {
				q.Set("observation_date_from", v.(string))
				q.Set("observation_date_to", gc.Params["observation_date_to"].(string))
			}
			totals(t, ask(t, "/v1/natural-gas/prices/query", q.Encode()), name)
		}
		a := ask(t, "/v1/natural-gas/prices/query", "atom=us_electric_power_monthly&year=2022&as_of=2022-04-29")
		totals(t, a, "us electric power monthly 2022 from the U.S. summary alone")
		covered(t, a, "us electric power monthly 2022 from the U.S. summary alone")
	})
	t.Run("N3045US3 after the last release", func(t *testing.T) {
		a := ask(t, "/v1/natural-gas/prices/query", "atom=us_electric_power_monthly&observation_date_from=2023-01&observation_date_to=2023-06")
		n := notesOf(a, "no_rows")
		if len(n) == 0 || n[0].Covers == nil || n[0].Covers.Ranges["observation_date"]["to"] != "2022-12-01" {
			t.Errorf("no_rows notes %+v", n)
		}
	})
	t.Run("periods cut short", func(t *testing.T) {
		for _, tc := range []struct{ path, query, name string }{
			{"/v1/power/demand/query", "local_date_from=2022-02-19&local_date_to=2022-02-19", "demand local day 2022-02-19 (partial)"},
			{"/v1/power/demand/query", "utc_date_from=2022-02-19&utc_date_to=2022-02-19", "demand UTC day 2022-02-19 (partial)"},
			{"/v1/power/demand/query", "utc_date_from=2015-07-01&utc_date_to=2015-07-01", "demand UTC day 2015-07-01 (partial)"},
			{"/v1/power/demand/query", "utc_year=2015", "demand UTC year 2015 (partial)"},
			{"/v1/power/demand-rollup/query", "rollup_basis=day+America%2FLos_Angeles&period=2022-02-19", "rollup local day 2022-02-19 (partial)"},
			{"/v1/power/generation/query", "year=2022&level=plant_total", "generation year 2022 (partial)"},
		} {
			a := ask(t, tc.path, tc.query)
			totals(t, a, tc.name)
			covered(t, a, tc.name)
		}
	})
	t.Run("an earlier as_of holds it", func(t *testing.T) {
		// A MISO request active in the January export and withdrawn in May's: asked as active of
		// the latest export, no row matches, and the answer names the export that has it.
		status, body := get(t, srv, "/v1/power/interconnection-queue/query?compare_as_of=2025-01-17")
		if status != 200 {
			t.Fatalf("%d %s", status, body)
		}
		var cmp struct {
			Changed []struct {
				QueueID string         `json:"queue_id"`
				Before  map[string]any `json:"before"`
				After   map[string]any `json:"after"`
			} `json:"status_changed"`
		}
		if err := json.Unmarshal(body, &cmp); err != nil {
			t.Fatal(err)
		}
		id := ""
		for _, c := range cmp.Changed {
			if c.Before["status"] == "active" && c.After["status"] == "withdrawn" && !strings.Contains(c.QueueID, "#") {
				id = c.QueueID
				break
			}
		}
		if id == "" {
			t.Fatal("no request went from active to withdrawn between the MISO exports")
		}
		a := ask(t, "/v1/power/interconnection-queue/query", "status=active&queue_id="+url.QueryEscape(id))
		n := notesOf(a, "no_rows")
		if len(n) == 0 || len(n[0].HeldBy) != 1 || n[0].HeldBy[0].AsOf != "2025-01-17" || n[0].HeldBy[0].Rows < 1 ||
			!strings.Contains(n[0].Message, "ask with as_of=2025-01-17") {
			t.Errorf("%s: no_rows notes %+v", id, n)
		}
	})
}

// TestDocumentsInSchema: every schema states how its capability's documents relate; a
// snapshot of complementing documents lists the documents it holds and the periods one
// covers in part.
func TestDocumentsInSchema(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	for _, tc := range []struct {
		path, relation string
		held           []string
	}{
		{"power/price-ercot", "complement", []string{"DAMLZHBSPP_2024", "DAMLZHBSPP_2025"}},
		{"natural-gas/prices", "complement", []string{"NG_PRI_SUM_DCU_NUS_M.xls", "NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls", "RNGWHHDd.xls"}},
		{"power/demand", "complement", []string{"Demand_for_California_(region)_hourly_-_UTC_time.csv"}},
		{"power/capacity", "restate", nil},
		{"power/interconnection-queue", "restate", nil},
	} {
		status, body := get(t, srv, "/v1/"+tc.path+"/schema")
		if status != 200 {
			t.Fatalf("%s: %d", tc.path, status)
		}
		var s struct {
			Documents struct {
				Relation string `json:"relation"`
				Document string `json:"document"`
				Rule     string `json:"rule"`
				Held     []struct {
					Document string `json:"document"`
				} `json:"in_snapshot"`
			} `json:"documents"`
		}
		if err := json.Unmarshal(body, &s); err != nil {
			t.Fatal(err)
		}
		var held []string
		for _, h := range s.Documents.Held {
			held = append(held, h.Document)
		}
		if s.Documents.Relation != tc.relation || s.Documents.Document == "" || s.Documents.Rule == "" || strings.Join(held, ",") != strings.Join(tc.held, ",") {
			t.Errorf("%s: documents %+v", tc.path, s.Documents)
		}
	}
}

// TestDocumentSetsAggregateEvidence: every citation of an answer over several documents of one
// snapshot names its own file in its lineage filter, and POST /v1/evidence/aggregate recomputes
// its figure from that file's cells: ERCOT's two years, N3045US3 from the state workbook (a
// price per series in the series' own column, read again by series_id), and a state's series.
func TestDocumentSetsAggregateEvidence(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	for _, tc := range []struct {
		path, capID, params string
		files               []string
	}{
		{"power/price-ercot", "power.price_ercot", `{"filters":{"settlement_point":"HB_NORTH"},"group_by":["year"]}`,
			[]string{"DAMLZHBSPP_2024.xlsx", "DAMLZHBSPP_2025_partial.xlsx"}},
		{"natural-gas/prices", "natural_gas.prices", `{"filters":{"atom":"us_electric_power_monthly"},"group_by":["year"],"observation_date_from":"2020","observation_date_to":"2022"}`,
			[]string{"NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"}},
		{"natural-gas/prices", "natural_gas.prices", `{"filters":{"atom":"state_electric_power_monthly","area":["TX","WY"]},"group_by":["area"]}`,
			[]string{"NG_PRI_SUM_A_EPG0_PEU_DMCF_M.xls"}},
	} {
		t.Run(tc.path+" "+tc.params, func(t *testing.T) {
			status, body := post(t, srv, "/v1/"+tc.path+"/query", tc.params)
			if status != 200 {
				t.Fatalf("%d %s", status, body)
			}
			var a struct {
				Citations map[string]json.RawMessage `json:"citations"`
			}
			if err := json.Unmarshal(body, &a); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for ref, cite := range a.Citations {
				var head struct {
					File string `json:"source_file"`
					Rows int    `json:"source_rows_count"`
					LF   struct {
						File string `json:"source_file"`
					} `json:"lineage_filter"`
				}
				if err := json.Unmarshal(cite, &head); err != nil {
					t.Fatal(err)
				}
				seen[head.File] = true
				if head.LF.File != head.File {
					t.Errorf("%s: the lineage filter names %q, the citation %q", ref, head.LF.File, head.File)
				}
				for _, metric := range []string{"avg_price", "max_price"} {
					status, out := post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": tc.capID, "metric": metric, "citation": cite})
					var v struct {
						Equal bool `json:"equal"`
						Rows  int  `json:"rows"`
					}
					if err := json.Unmarshal(out, &v); status != 200 || err != nil || !v.Equal || v.Rows != head.Rows {
						t.Errorf("%s %s (%s): %d %s", ref, metric, head.File, status, out)
					}
				}
			}
			for _, f := range tc.files {
				if !seen[f] {
					t.Errorf("no citation of %s among %v", f, seen)
				}
			}
		})
	}
}

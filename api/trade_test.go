package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/internal/testenv"
)

// tradeCitation is the part of an aggregate citation the trade tests read.
type tradeCitation struct {
	SourceFile  string          `json:"source_file"`
	Rows        int64           `json:"source_rows_count"`
	Derived     bool            `json:"derived"`
	OriginalURL string          `json:"original_url"`
	Verify      json.RawMessage `json:"verify"`
}

// TestTradeEvidence verifies every citation of answers over the USA Trade Online export and the
// transcription of API answers through both evidence endpoints: the verify member row by row
// (POST /v1/evidence/source-row), and every metric of every citation as a whole aggregate
// recomputed from the literal cells (POST /v1/evidence/aggregate), the export's values with
// their thousands separators included. Every record's citation verifies too, and its cited
// row holds the record's value as published; the transcription's citations say derived.
func TestTradeEvidence(t *testing.T) {
	srv := newServer(t, ingestData(t, census.ChipTrade(), census.EquipmentTrade()))
	cases := []struct {
		cap     *capability.Capability
		params  string
		file    string
		derived bool
	}{
		{capability.AIInfrastructureTrade, `{"as_of":"2026-05-31","group_by":["commodity"],"include_records":true,"limit":60}`, "usatradeonline_imports_hs4_china_2024-01_2026-03.csv", false},
		{capability.AIInfrastructureTrade, `{"as_of":"2026-05-31","filters":{"commodity":"8542","year":2024},"group_by":["period"],"order_by":"general_imports_usd","top_n":4}`, "usatradeonline_imports_hs4_china_2024-01_2026-03.csv", false},
		{capability.AIInfrastructureEquipmentTrade, `{"as_of":"2026-05-31","group_by":["year"],"include_records":true,"limit":30}`, "usatradeonline_imports_hs4_china_2024-01_2026-03.csv", false},
		{capability.AIInfrastructureTrade, `{"as_of":"2026-06-01","filters":{"source_form":"api_excerpt"},"group_by":["country_kind","period"],"include_records":true,"limit":200}`, "census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv", true},
		{capability.AIInfrastructureTrade, `{"as_of":"2026-06-01","filters":{"source_form":"api_excerpt","country_kind":"country"},"group_by":["country_name"],"order_by":"general_imports_usd","top_n":5}`, "census_api_imports_hs854232_gen_val_mo_by_country_2026-04_2026-06_EXCERPT.csv", true},
	}
	for _, tc := range cases {
		t.Run(tc.cap.ID+" "+tc.params, func(t *testing.T) {
			status, body := post(t, srv, "/v1/"+tc.cap.Path+"/query", tc.params)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var r struct {
				Citations map[string]tradeCitation `json:"citations"`
				Records   []struct {
					Value    *float64 `json:"general_imports_usd"`
					Citation struct {
						File        string `json:"source_file"`
						Derived     bool   `json:"derived"`
						OriginalURL string `json:"original_url"`
					} `json:"citation"`
				} `json:"records"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Citations map[string]json.RawMessage `json:"citations"`
				Records   []map[string]json.RawMessage
			}
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			if len(r.Citations) == 0 {
				t.Fatal("no citations")
			}
			for ref, c := range r.Citations {
				if c.SourceFile != tc.file || c.Derived != tc.derived || (tc.derived != strings.HasPrefix(c.OriginalURL, "https://api.census.gov/")) {
					t.Errorf("citation %s: file %s, derived %v, original_url %q", ref, c.SourceFile, c.Derived, c.OriginalURL)
				}
				st, eb := post(t, srv, "/v1/evidence/source-row", []byte(c.Verify))
				if st != 200 || !decode[evidence](t, eb).Verified {
					t.Fatalf("citation %s: source-row evidence %d: %s", ref, st, eb)
				}
				for _, m := range tc.cap.MetricNames() {
					st, eb := post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": tc.cap.ID, "metric": m, "citation": raw.Citations[ref]})
					if st != 200 {
						t.Fatalf("citation %s %s: aggregate evidence %d: %s", ref, m, st, eb)
					}
					v := decode[struct {
						Verified, Equal bool
						Rows            int64    `json:"rows"`
						Recomputed      *float64 `json:"recomputed"`
						Served          *float64 `json:"served"`
					}](t, eb)
					if !v.Verified || !v.Equal || v.Rows != c.Rows {
						t.Errorf("citation %s %s: verified %v, equal %v, recomputed %v, served %v, %d rows of %d", ref, m, v.Verified, v.Equal, deref(v.Recomputed), deref(v.Served), v.Rows, c.Rows)
					}
				}
			}
			for i, rec := range r.Records {
				if rec.Citation.File != tc.file || rec.Citation.Derived != tc.derived || (tc.derived && !strings.HasPrefix(rec.Citation.OriginalURL, "https://api.census.gov/")) {
					t.Errorf("record %d citation: %+v", i, rec.Citation)
				}
				st, eb := post(t, srv, "/v1/evidence/source-row", []byte(raw.Records[i]["citation"]))
				if st != 200 {
					t.Fatalf("record %d: source-row evidence %d: %s", i, st, eb)
				}
				ev := decode[evidence](t, eb)
				header := map[bool]string{false: "Customs Value (Gen) ($US)", true: "value"}[tc.derived]
				got, ok := ev.cell(header)
				if !ev.Verified || !ok || rec.Value == nil || strings.ReplaceAll(got, ",", "") != trimFloat(*rec.Value) {
					t.Errorf("record %d: value %v, cited cell %s %q (verified %v)", i, deref(rec.Value), header, got, ev.Verified)
				}
			}
		})
	}
}

func trimFloat(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// TestTradeQuantitiesNotPublished: the export and the transcription carry no quantity and no
// imports for consumption, so those metrics are null with a not_published note, and the
// schema says the fields are not published.
func TestTradeQuantitiesNotPublished(t *testing.T) {
	srv := newServer(t, ingestData(t, census.ChipTrade(), census.EquipmentTrade()))
	// Each form is asked of the snapshot of its own date (a later snapshot holds the earlier
	// document too: the documents complement each other).
	for _, tc := range []struct{ path, asOf, form string }{
		{"ai-infrastructure/equipment-trade", "2026-05-31", "usa_trade_online_export"},
		{"ai-infrastructure/trade", "2026-05-31", "usa_trade_online_export"},
		{"ai-infrastructure/trade", "2026-06-01", "api_excerpt"},
	} {
		status, body := post(t, srv, "/v1/"+tc.path+"/query", `{"as_of":"`+tc.asOf+`","filters":{"country_kind":"country","source_form":"`+tc.form+`"}}`)
		if status != 200 {
			t.Fatalf("%s: status %d: %s", tc.path, status, body)
		}
		r := decode[response](t, body)
		if r.Summary.Totals["general_imports_usd"] == nil {
			t.Errorf("%s %s: no general imports", tc.path, tc.asOf)
		}
		for _, m := range []string{"general_quantity", "consumption_quantity", "consumption_imports_usd"} {
			if r.Summary.Totals[m] != nil {
				t.Errorf("%s %s: %s = %v, want null", tc.path, tc.asOf, m, *r.Summary.Totals[m])
			}
			if !slices.ContainsFunc(r.Summary.Notes, func(n note) bool { return n.Code == "not_published" && n.Metric == m }) {
				t.Errorf("%s %s: no not_published note for %s: %v", tc.path, tc.asOf, m, r.Summary.Notes)
			}
		}
		_, sb := get(t, srv, "/v1/"+tc.path+"/schema")
		if !strings.Contains(string(sb), `"name":"general_quantity","type":"number"`) || !strings.Contains(string(sb), `"published":false`) {
			t.Errorf("%s schema does not say the quantities are not published: %.400s", tc.path, sb)
		}
	}
}

// mergedTrade is the chip adapter with all its documents in one snapshot, as a document set of
// complementing documents holds them: an HS4 heading and an HS6 subheading then meet in one
// answer.
type mergedTrade struct{ census.Trade }

func (m mergedTrade) Plan(f *ingest.Finder) ([]ingest.Plan, error) {
	plans, err := m.Trade.Plan(f)
	if err != nil || len(plans) < 2 {
		return plans, err
	}
	one := ingest.Plan{}
	for _, p := range plans {
		one.Files = append(one.Files, p.Files...)
	}
	return []ingest.Plan{one}, nil
}

// TestTradeLevelsNeverAdded: where the export's HS4 headings and the transcription's HS6
// subheading are in one snapshot, a value over both levels is null with a mixed_units note
// (854232 is part of 8542), a filter or group on commodity_level answers each level, and an
// answer spanning forms and country aggregates says so; its citations still verify.
func TestTradeLevelsNeverAdded(t *testing.T) {
	srv := newServer(t, ingestData(t, mergedTrade{census.ChipTrade()}))
	path := "/v1/ai-infrastructure/trade/query"
	status, body := post(t, srv, path, `{}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	r := decode[response](t, body)
	if r.AsOf != "2026-06-01" {
		t.Errorf("as_of %s", r.AsOf)
	}
	if v := r.Summary.Totals["general_imports_usd"]; v != nil {
		t.Errorf("general_imports_usd over HS4 and HS6 = %v, want null", *v)
	}
	codes := map[string]bool{}
	for _, n := range r.Summary.Notes {
		codes[n.Code+" "+n.Metric] = true
	}
	if !codes["mixed_units general_imports_usd"] || !codes["mixed_partition "] {
		t.Errorf("notes %v: want mixed_units for general_imports_usd and mixed_partition", r.Summary.Notes)
	}
	if !strings.Contains(string(body), `"dimension":"source_form"`) || !strings.Contains(string(body), `"dimension":"country_kind"`) {
		t.Errorf("no mixed_partition note on source_form and country_kind: %.600s", body)
	}

	// Each level alone adds up: HS4 = the export's two headings, HS6 = the transcription's.
	want := map[string]float64{"HS4": goldenTotal(t, "export chips by commodity"),
		"HS6": goldenTotal(t, "transcription 854232 countries 2026-04") + goldenTotal(t, "transcription 854232 countries 2026-06")}
	status, body = post(t, srv, path, `{"filters":{"country_kind":"country"},"group_by":["commodity_level"]}`)
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	r = decode[response](t, body)
	for _, row := range r.Rows {
		l := row.Group["commodity_level"].(string)
		if v := row.Metrics["general_imports_usd"]; v == nil || !near(*v, want[l]) {
			t.Errorf("%s: %v, want %v", l, deref(v), want[l])
		}
	}
	if len(r.Rows) != 2 || r.Summary.Totals["general_imports_usd"] != nil {
		t.Errorf("%d rows, total %v (want 2 rows, null total)", len(r.Rows), deref(r.Summary.Totals["general_imports_usd"]))
	}
	cites := decode[struct {
		Citations map[string]json.RawMessage `json:"citations"`
	}](t, body).Citations
	files := map[string]bool{}
	for _, c := range cites {
		files[decode[tradeCitation](t, c).SourceFile] = true
	}
	if len(files) != 2 {
		t.Errorf("citations of %v, want both files", files)
	}
	for ref, c := range cites {
		for _, m := range []string{"general_imports_usd", "source_record_count"} {
			st, eb := post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": "ai_infrastructure.trade", "metric": m, "citation": c})
			v := decode[struct{ Verified, Equal bool }](t, eb)
			if st != 200 || !v.Verified || !v.Equal {
				t.Errorf("citation %s %s: %d %s", ref, m, st, eb)
			}
		}
	}
	status, body = post(t, srv, path, `{"filters":{"commodity_level":"HS6","country_kind":"country","period":"2026-04"}}`)
	if r := decode[response](t, body); status != 200 || r.Summary.Totals["general_imports_usd"] == nil || !near(*r.Summary.Totals["general_imports_usd"], 622497725) {
		t.Errorf("HS6 countries 2026-04: %d %.300s", status, body)
	}
}

// readGolden reads the cases of one file of testdata/golden.
func readGolden(t *testing.T, name string) []goldenCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	return decode[[]goldenCase](t, b)
}

// goldenTotal is general_imports_usd of a case of testdata/golden/trade.json.
func goldenTotal(t *testing.T, name string) float64 {
	t.Helper()
	for _, c := range readGolden(t, "trade.json") {
		if c.Name == name {
			return c.Totals["general_imports_usd"]
		}
	}
	t.Fatalf("no golden case %q", name)
	return 0
}

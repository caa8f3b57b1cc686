package service

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

// cfPlants are the plants kept on the EIA-860M sheets of the capacity fixture, with the
// nameplate each has in may_generator2016.xlsx (read from the workbook): Peetz Table 56563
// GE 199.5 MW; Pawnee 6248 unit 1 552.3; Cherokee 469 units 4, 5, 6, 7 (380.8 + 185.3 +
// 185.3 + 255 = 1,006.4) on the Operating sheet and units 1 and 3 on the Retired sheet (not
// operating: left out); Fruita 471 26.6; Logan Wind 56613 201 (no generation row: left out of
// the join). City of Boulder WWTP 57681 has generation in the fixture and no generator kept.
var cfPlants = map[string]bool{"56563": true, "6248": true, "469": true, "471": true, "56613": true}

// cfFixtureService ingests a small capacity snapshot and a small generation snapshot and
// serves them: the generation fixture testdata/fixtures/eia/eia923_api/eia923_2022.json
// (an API v2 response in the agency's layout, invented values for October and November
// 2022), and an EIA-860M inventory for October 2022 made at test time from the real May 2016
// workbook: its titles re-dated, only the rows of cfPlants kept (with the first row of the
// Planned and Canceled sheets and every NOTES footnote).
func cfFixtureService(t *testing.T) *Service {
	t.Helper()
	raw := testenv.Raw(t)
	dir := t.TempDir()
	rawDir := filepath.Join(dir, "raw")
	for _, d := range []string{"eia/eia923_api", "eia/eia860m", "eia/eia860", "eia/eia861"} {
		if err := os.MkdirAll(filepath.Join(rawDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(filepath.Join(testenv.RepoRoot(t), "testdata", "fixtures", "eia", "eia923_api", "eia923_2022.json"), filepath.Join(rawDir, "eia", "eia923_api", "eia923_2022.json"))
	copyFile(filepath.Join(raw, "eia", "eia860", "LayoutY2024.xlsx"), filepath.Join(rawDir, "eia", "eia860", "LayoutY2024.xlsx"))
	copyFile(filepath.Join(raw, "eia", "eia861", "Balancing_Authority_2018.xlsx"), filepath.Join(rawDir, "eia", "eia861", "Balancing_Authority_2018.xlsx"))
	retitle := testenv.Retitle("May 2016", "October 2022")
	testenv.RebuildWorkbook(t, filepath.Join(raw, "eia", "eia860m", "may_generator2016.xlsx"), filepath.Join(rawDir, "eia", "eia860m", "october_generator2022.xlsx"),
		func(sheet string, rows [][]string) [][]string {
			out := [][]string{rows[0], rows[1]}
			for i, r := range rows[2 : len(rows)-1] {
				keep := len(r) > 2 && cfPlants[r[2]] && (sheet == "Operating" || sheet == "Retired")
				if keep || (i == 0 && (sheet == "Planned" || sheet == "Canceled or Postponed")) {
					out = append(out, r)
				}
			}
			return retitle(sheet, append(out, rows[len(rows)-1]))
		})
	data := filepath.Join(dir, "var")
	outcomes, err := ingest.Run(rawDir, &snapshots.Store{Dir: data}, []ingest.Adapter{eia.EIA860M, eia.Generation{}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s %s: %s %v", o.Capability, o.AsOf, o.Status, o.Reasons)
		}
	}
	s, err := New(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCapacityFactorFixtures computes power.capacity_factor from the two fixture snapshots
// and checks it against figures worked out by hand from the fixture files (October 2022 has
// 31 × 24 = 744 hours).
func TestCapacityFactorFixtures(t *testing.T) {
	s := cfFixtureService(t)
	oct := `"period_date_from":"2022-10","period_date_to":"2022-10"`
	cases := []struct {
		name, params string
		totals       map[string]float64
		groups       map[string]float64 // capacity_factor by eia_plant_id
	}{
		{"Colorado, October 2022", `{` + oct + `}`, map[string]float64{
			// 37,107 + 205,455.6 + (80,000 + 40,000 + 29,752.32) − 489.02
			"net_generation_mwh": 391825.9,
			// 744 × (199.5 + 552.3 + 1,006.4 + 26.6) = 744 × 1,784.8
			"available_mwh":   1327891.2,
			"capacity_factor": 391825.9 / 1327891.2,
			"plant_count":     4, "plant_month_count": 4, "generator_month_count": 7, "source_record_count": 11,
		}, nil},
		{"by plant", `{"filters":{"month":"2022-10"},"group_by":["eia_plant_id"]}`, nil, map[string]float64{
			"56563": 37107.0 / (199.5 * 744),    // 0.25
			"6248":  205455.6 / (552.3 * 744),   // 0.5
			"469":   149752.32 / (1006.4 * 744), // 0.2
			"471":   -489.02 / (26.6 * 744),     // −0.0247…
		}},
		{"one plant", `{` + oct + `,"filters":{"eia_plant_id":469}}`, map[string]float64{
			"capacity_factor": 0.2, "net_generation_mwh": 149752.32, "available_mwh": 748761.6, "generator_month_count": 4}, nil},
		{"the state filter", `{"filters":{"state":"CO","year":2022,"month":"2022-10"}}`, map[string]float64{"capacity_factor": 391825.9 / 1327891.2}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, body := ask(t, s, "power/capacity-factor", tc.params)
			if a.AsOf != "2022-11-30" {
				t.Errorf("as_of %s, want 2022-11-30 (the later input)", a.AsOf)
			}
			for m, want := range tc.totals {
				if got := a.Summary.Totals[m]; got == nil || math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s = %v, want %v", m, deref(got), want)
				}
			}
			if tc.groups != nil {
				if len(a.Rows) != len(tc.groups) {
					t.Fatalf("%d rows, want %d: %.400s", len(a.Rows), len(tc.groups), body)
				}
				for _, r := range a.Rows {
					key := jsonText(r.Group["eia_plant_id"])
					want, ok := tc.groups[key]
					got := r.Metrics["capacity_factor"]
					if !ok || got == nil || math.Abs(*got-want) > 1e-12 {
						t.Errorf("plant %s: %v, want %v", key, deref(got), want)
					}
				}
			}
		})
	}

	t.Run("unmatched plants are named, citations of both sides verify", func(t *testing.T) {
		_, body := ask(t, s, "power/capacity-factor", `{`+oct+`,"include_records":true,"limit":50}`)
		var doc struct {
			Summary struct {
				Notes []struct {
					Code  string `json:"code"`
					Sides []struct {
						Side    string   `json:"side"`
						Plants  int      `json:"plants"`
						Net     *float64 `json:"net_generation_mwh"`
						MW      *float64 `json:"nameplate_mw"`
						PlantsF []string `json:"plants_first"`
					} `json:"sides"`
				} `json:"notes"`
			} `json:"summary"`
			Records []struct {
				Side     string          `json:"side"`
				AsOf     string          `json:"as_of"`
				Citation json.RawMessage `json:"citation"`
			} `json:"records"`
			Citations map[string]struct {
				SourceFile string `json:"source_file"`
				AsOf       string `json:"as_of"`
			} `json:"citations"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		var sides []string
		for _, n := range doc.Summary.Notes {
			if n.Code != NoteJoinUnmatched {
				continue
			}
			for _, sd := range n.Sides {
				sides = append(sides, sd.Side)
				switch sd.Side {
				case "generation":
					if sd.Plants != 1 || sd.Net == nil || *sd.Net != 32.04 || !slices.Equal(sd.PlantsF, []string{"57681"}) {
						t.Errorf("generation left out: %+v", sd)
					}
				case "capacity":
					if sd.Plants != 1 || sd.MW == nil || *sd.MW != 201 || !slices.Equal(sd.PlantsF, []string{"56613"}) {
						t.Errorf("capacity left out: %+v", sd)
					}
				}
			}
		}
		if !slices.Equal(sides, []string{"generation", "capacity"}) {
			t.Errorf("join_unmatched sides %v", sides)
		}
		files := map[string]string{}
		for _, c := range doc.Citations {
			files[c.SourceFile] = c.AsOf
		}
		if files["eia923_2022.json"] != "2022-11-30" || files["october_generator2022.xlsx"] != "2022-10-31" {
			t.Errorf("citations by file and as_of: %v", files)
		}
		if len(doc.Records) != 11 {
			t.Fatalf("%d records", len(doc.Records))
		}
		verified := map[string]int{}
		for _, r := range doc.Records {
			out, e := s.Evidence(context.Background(), r.Citation)
			if e != nil {
				t.Fatalf("%s record %s: %s", r.Side, r.Citation, e.Body())
			}
			var v struct {
				Verified bool `json:"verified"`
			}
			json.Unmarshal(out, &v)
			if v.Verified {
				verified[r.Side]++
			}
		}
		if verified["generation"] != 4 || verified["capacity"] != 7 {
			t.Errorf("verified records by side: %v", verified)
		}
	})

	t.Run("as_of on a date", func(t *testing.T) {
		a, _ := ask(t, s, "power/capacity-factor", `{"as_of":"on:2999-12-31",`+oct+`}`)
		if a.AsOf != "2022-11-30" {
			t.Errorf("as_of %s", a.AsOf)
		}
		if _, e := s.QueryJSON(context.Background(), "power/capacity-factor", []byte(`{"as_of":"on:2022-11-01",`+oct+`}`)); e == nil || !strings.Contains(e.Message, "before every snapshot") {
			t.Errorf("a date before both inputs: %v", e)
		}
		q, e := s.Prepare("power/capacity-factor", mustRaw(t, `{"as_of":"2022-11-30",`+oct+`}`))
		if e != nil || q.Pinned() {
			t.Errorf("a derived answer is never pinned (ingest may add an input dated earlier): %v %v", e, q)
		}
	})

	refusals := []struct{ name, params string }{
		{"no period: November has no inventory", `{}`},
		{"a month only generation has", `{"filters":{"month":"2022-11"}}`},
		{"a state neither side has", `{` + oct + `,"filters":{"state":"TX"}}`},
		{"a plant only generation has", `{` + oct + `,"filters":{"eia_plant_id":57681}}`},
		{"a year", `{"filters":{"year":2022}}`},
	}
	for _, tc := range refusals {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			_, e := s.QueryJSON(context.Background(), "power/capacity-factor", []byte(tc.params))
			if e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidParameter {
				t.Fatalf("got %v, want 400 invalid_parameter", e)
			}
			for _, want := range []string{"power.generation has 2022-10..2022-11", "power.capacity has 2022-10", "Months on both sides: 2022-10"} {
				if !strings.Contains(e.Message, want) {
					t.Errorf("the refusal does not say %q: %s", want, e.Message)
				}
			}
			if !strings.Contains(e.Message, "has no row") {
				t.Errorf("the refusal does not name the side that lacks: %s", e.Message)
			}
		})
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// TestCapacityFactorRealFiles: on the files served here the two inputs share no month
// (power.capacity: the May 2016 inventory; power.generation: Colorado, 2022-08 to 2022-12),
// so every query is refused with what each side has.
func TestCapacityFactorRealFiles(t *testing.T) {
	s := testService(t)
	for _, params := range []string{`{}`, `{"period_date_from":"2022-08","period_date_to":"2022-12"}`, `{"period_date_from":"2016-05","period_date_to":"2016-05","filters":{"state":"CO"}}`} {
		_, e := s.QueryJSON(context.Background(), "power/capacity-factor", []byte(params))
		if e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidParameter {
			t.Fatalf("%s: got %v, want 400 invalid_parameter", params, e)
		}
		for _, want := range []string{"power.capacity has 2016-05 (as_of 2016-05-31", "power.generation has 2022-08..2022-12 (as_of 2022-12-31; state CO)", "No month is on both sides"} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("%s: the refusal does not say %q: %s", params, want, e.Message)
			}
		}
	}
	_, e := s.QueryJSON(context.Background(), "power/capacity-factor", []byte(`{"period_date_from":"2022-08","period_date_to":"2022-12"}`))
	if !strings.Contains(e.Message, "power.capacity (operating nameplate) has no row for 2022-08..2022-12") || strings.Contains(e.Message, "power.generation (net generation (plant totals)) has no row") {
		t.Errorf("the refusal names the wrong side: %s", e.Message)
	}
	b, se := s.Schema("power/capacity-factor")
	if se != nil {
		t.Fatal(se.Body())
	}
	var doc struct {
		Served bool     `json:"served"`
		AsOf   []string `json:"as_of_available"`
	}
	json.Unmarshal(b, &doc)
	if !doc.Served || !slices.Equal(doc.AsOf, []string{"2022-12-31"}) {
		t.Errorf("schema served %v, as_of_available %v", doc.Served, doc.AsOf)
	}
}

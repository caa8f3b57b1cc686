package ferc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/ferc"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

// manifestEntry is a line of ferc/MANIFEST.tsv: the official address and hash of a filing.
type manifestEntry struct{ url, sha256 string }

// readManifest gives ferc/MANIFEST.tsv's entries by the file's base name.
func readManifest(t *testing.T, raw string) map[string]manifestEntry {
	t.Helper()
	out := map[string]manifestEntry{}
	for _, m := range testenv.Manifest(t, raw, "ferc") {
		out[filepath.Base(m.RelativePath)] = manifestEntry{m.OfficialURL, m.SHA256}
	}
	return out
}

// TestRealFilings ingests the four filings in ferc/form1_xbrl: SIGECO's refiling supersedes
// its original (net generation of F.B. Culley Station 2,118,170,000 kWh, not 12,063,170,000),
// the gate names the original, both files stay in the raw store and cite as themselves at
// their eForms addresses, and every citation of the answers verifies through the source-row
// and aggregate evidence code paths.
func TestRealFilings(t *testing.T) {
	raw := testenv.Raw(t)
	manifest := readManifest(t, raw)
	const (
		original = "Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1650316090.xbrl"
		refiling = "Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1666384204.xbrl"
	)
	data := t.TempDir()
	o := ingestDir(t, raw, data)
	if o.Status != snapshots.Promoted {
		t.Fatalf("%s: %v", o.Status, o.Reasons)
	}

	t.Run("the original is named superseded", func(t *testing.T) {
		for _, g := range o.Manifest.Gates {
			if g.Name == "filings_superseded" && (!g.Passed || !strings.Contains(g.Detail, original+" (O, attested 2022-04-15) by "+refiling)) {
				t.Errorf("filings_superseded: %v %s", g.Passed, g.Detail)
			}
		}
	})

	t.Run("every filing stays in the raw store and cites as itself", func(t *testing.T) {
		if len(o.Manifest.Sources) != len(manifest) {
			t.Errorf("%d sources, the MANIFEST lists %d files", len(o.Manifest.Sources), len(manifest))
		}
		for _, s := range o.Manifest.Sources {
			m, ok := manifest[s.File]
			if !ok {
				t.Errorf("source %s is not in the MANIFEST", s.File)
				continue
			}
			if s.URL != m.url || s.SHA256 != m.sha256 {
				t.Errorf("%s cited at %s (sha256 %s), the MANIFEST says %s (%s)", s.File, s.URL, s.SHA256, m.url, m.sha256)
			}
			if (&snapshots.Store{Dir: data}).Raw().Find(s.SHA256) == "" {
				t.Errorf("%s is not in the raw store", s.File)
			}
		}
	})

	svc, err := service.New(data)
	if err != nil {
		t.Fatal(err)
	}
	query := func(t *testing.T, body string) []byte {
		t.Helper()
		out, e := svc.QueryJSON(context.Background(), "power/plant-costs", []byte(body))
		if e != nil {
			t.Fatalf("%s: %s", body, e.Message)
		}
		return out
	}

	t.Run("the refiling's figure is served", func(t *testing.T) {
		var r struct {
			Summary struct {
				Totals map[string]*float64 `json:"totals"`
			} `json:"summary"`
			Records []struct {
				SubmissionType string `json:"submission_type"`
				Citation       struct {
					File string `json:"source_file"`
				} `json:"citation"`
			} `json:"records"`
		}
		out := query(t, `{"filters":{"respondent_id":"C001009","plant_name":"F.B. Culley Station","concept":"NetGenerationExcludingPlantUse"},"include_records":true}`)
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Summary.Totals["value_sum"]; got == nil || *got != 2118170000 {
			t.Errorf("F.B. Culley Station net generation %v kWh, want 2118170000", deref(got))
		}
		if len(r.Records) != 1 || r.Records[0].SubmissionType != "R" || r.Records[0].Citation.File != refiling {
			t.Errorf("records %+v, want the refiling's one fact", r.Records)
		}
	})

	t.Run("every record's citation verifies", func(t *testing.T) {
		var r struct {
			Records []struct {
				Citation json.RawMessage `json:"citation"`
			} `json:"records"`
		}
		// Every record, page after page (the records page by size).
		for _, page := range testenv.Pages(t, `{"include_records":true,"limit":5000}`, func(params string) []byte { return query(t, params) }) {
			var p struct {
				Records []struct {
					Citation json.RawMessage `json:"citation"`
				} `json:"records"`
			}
			if err := json.Unmarshal(page, &p); err != nil {
				t.Fatal(err)
			}
			r.Records = append(r.Records, p.Records...)
		}
		if len(r.Records) != o.Rows {
			t.Fatalf("%d records, the snapshot has %d rows", len(r.Records), o.Rows)
		}
		for _, rec := range r.Records {
			out, e := svc.Evidence(context.Background(), rec.Citation)
			if e != nil {
				t.Fatalf("%s: %s %s", rec.Citation, e.Code, e.Message)
			}
			var ev struct {
				Verified bool `json:"verified"`
			}
			if err := json.Unmarshal(out, &ev); err != nil || !ev.Verified {
				t.Fatalf("%s: not verified: %s", rec.Citation, out)
			}
		}
	})

	t.Run("every aggregate citation recomputes", func(t *testing.T) {
		var r struct {
			Citations map[string]json.RawMessage `json:"citations"`
		}
		if err := json.Unmarshal(query(t, `{"filters":{"plant_entry":"plant"},"group_by":["respondent_id","concept","unit"]}`), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Citations) < 50 {
			t.Fatalf("%d citations", len(r.Citations))
		}
		for ref, cit := range r.Citations {
			for _, metric := range []string{"value_sum", "fact_count"} {
				ev, e := svc.AggregateEvidence(context.Background(), []byte(fmt.Sprintf(`{"capability":"power.plant_costs","metric":%q,"citation":%s}`, metric, cit)))
				if e != nil {
					t.Fatalf("%s %s: %s", ref, metric, e.Message)
				}
				var v struct {
					Equal bool `json:"equal"`
				}
				if err := json.Unmarshal(ev, &v); err != nil || !v.Equal {
					t.Errorf("%s %s: %s", ref, metric, ev)
				}
			}
		}
	})

	t.Run("the original is in the raw store but nothing of it is cited", func(t *testing.T) {
		var sha string
		for _, s := range o.Manifest.Sources {
			if s.File == original {
				sha = s.SHA256
			}
		}
		body, _ := json.Marshal(service.Citation{SourceID: "ferc1", SourceURL: manifest[original].url, File: original,
			Sheet: "facts", Row: 2, SHA256: sha, AsOf: o.AsOf})
		_, e := svc.Evidence(context.Background(), body)
		// The file is known by its hash (not evidence_file_unknown), but serves nothing.
		if e == nil || e.Code != "evidence_sheet_not_cited" {
			t.Errorf("evidence for a fact of the superseded filing: %+v", e)
		}
	})

	t.Run("an answer adding plants and the filers' totals says so", func(t *testing.T) {
		out := query(t, `{"filters":{"respondent_id":"C003184","concept":"NetGenerationExcludingPlantUse"}}`)
		if !strings.Contains(string(out), `"code":"mixed_partition","dimension":"plant_entry"`) {
			t.Errorf("no mixed_partition note on plant_entry: %s", out)
		}
	})
}

// TestFoldersAndKnown: the adapter reads both folders, and every filing ingest --fetch
// downloads is stored under the name, and cited at the address, the MANIFEST gives it.
func TestFoldersAndKnown(t *testing.T) {
	raw := testenv.Raw(t)
	manifest := readManifest(t, raw)
	a := ferc.Form1{}
	plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
	if err != nil || len(plans) != 1 || len(plans[0].Files) != len(manifest) {
		t.Fatalf("plans %+v, %v; want one plan of the %d filings", plans, err, len(manifest))
	}
	for _, f := range plans[0].Files {
		if m := manifest[filepath.Base(f.Path)]; f.URL != m.url {
			t.Errorf("%s planned with address %s, the MANIFEST says %s", f.Path, f.URL, m.url)
		}
	}
	known := a.Known()
	if len(known) != len(manifest) {
		t.Errorf("%d known downloads, the MANIFEST lists %d files", len(known), len(manifest))
	}
	for _, k := range known {
		m, ok := manifest[filepath.Base(k.Dest)]
		if !ok || k.URL != m.url || !strings.HasPrefix(k.Dest, "ferc/form1_xbrl/") {
			t.Errorf("download %s to %s: the MANIFEST says %+v", k.URL, k.Dest, m)
		}
	}
}

// TestEachFilingDamaged damages each of the four filings in turn, in a copy of the raw
// folder: text in place of a schedule 402 number fails cells_parse when the filing is served,
// and changes nothing served when it is the superseded original; a document cut short fails
// source_parses, whichever it is. Nothing is promoted from a damaged served filing.
func TestEachFilingDamaged(t *testing.T) {
	raw := testenv.Raw(t)
	src := filepath.Join(raw, "ferc", "form1_xbrl")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	netGen := regexp.MustCompile(`(<ferc:NetGenerationExcludingPlantUse [^>]*>)[0-9.]+(</ferc:NetGenerationExcludingPlantUse>)`)
	for _, damaged := range entries {
		for _, tc := range []struct {
			name string
			edit func(string) string
		}{
			{"text in a number", func(s string) string { return netGen.ReplaceAllString(s, "${1}n/a${2}") }},
			{"cut short", func(s string) string { return s[:len(s)/2] }},
		} {
			t.Run(damaged.Name()+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				dst := filepath.Join(dir, "ferc", "form1_xbrl")
				if err := os.MkdirAll(dst, 0o755); err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					b, err := os.ReadFile(filepath.Join(src, e.Name()))
					if err != nil {
						t.Fatal(err)
					}
					if e.Name() == damaged.Name() {
						edited := tc.edit(string(b))
						if edited == string(b) {
							t.Fatal("the damage changed nothing")
						}
						b = []byte(edited)
					}
					if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				outcomes, err := ingest.Run(dir, &snapshots.Store{Dir: t.TempDir()}, []ingest.Adapter{ferc.Form1{}}, io.Discard)
				if err != nil || len(outcomes) != 1 || outcomes[0].Manifest == nil {
					t.Fatalf("%+v %v", outcomes, err)
				}
				o := outcomes[0]
				var failed []string
				for _, g := range o.Manifest.Gates {
					if !g.Passed {
						failed = append(failed, g.Name)
					}
				}
				if tc.name == "cut short" {
					if o.Status != snapshots.Rejected || !slices.Equal(failed, []string{"source_parses"}) {
						t.Errorf("a filing cut short: %s, failed gates %v", o.Status, failed)
					}
					return
				}
				if damaged.Name() == "Southern_Indiana_Gas_and_Electric_Company_Inc_form1_Q4_2021_1650316090.xbrl" {
					if o.Status != snapshots.Promoted || o.Rows != 966 {
						t.Errorf("the superseded original damaged: %s, %d rows, failed %v", o.Status, o.Rows, failed)
					}
					return
				}
				if o.Status != snapshots.Rejected || !slices.Equal(failed, []string{"cells_parse"}) {
					t.Errorf("%s, failed gates %v, want cells_parse alone; reasons %v", o.Status, failed, o.Reasons)
				}
			})
		}
	}
}

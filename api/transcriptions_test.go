package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

// TestTranscriptionsServedDerived checks the two capacity-market capabilities served from a
// third party's transcriptions (MISO's auction results and CONE, PJM's ELCC class ratings) on
// the real files: both are listed and served; every aggregate citation is marked derived with
// the publisher's address, its verify member verifies through /v1/evidence/source-row and
// every metric recomputes through /v1/evidence/aggregate; every record's citation verifies,
// and the cells of the cited row name the publisher's document and page the record gives.
func TestTranscriptionsServedDerived(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	_, body := get(t, srv, "/v1/capabilities")
	var list struct {
		Capabilities []struct {
			ID     string `json:"capability"`
			Latest string `json:"as_of_latest"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	latest := map[string]string{}
	for _, c := range list.Capabilities {
		latest[c.ID] = c.Latest
	}
	for _, tc := range []struct {
		c        *capability.Capability
		asOf     string
		params   string
		original string
	}{
		{capability.PowerCapacityMarketMISO, "2025-10-15", `{"group_by":["atom_type","planning_year"],"include_records":true,"limit":500}`,
			"https://www.misoenergy.org/planning/resource-adequacy/"},
		{capability.PowerCapacityMarketMISO, "2025-10-15", `{"filters":{"atom_type":"acp"},"group_by":["season"],"order_by":"avg_acp_usd_mw_day","top_n":2}`,
			"https://www.misoenergy.org/planning/resource-adequacy/"},
		{capability.PowerCapacityAccreditationPJM, "2025-12-31", `{"group_by":["auction","delivery_year"],"include_records":true,"limit":500}`,
			"https://www.pjm.com/planning/resource-adequacy-planning/effective-load-carrying-capability"},
	} {
		t.Run(tc.c.ID+" "+tc.params, func(t *testing.T) {
			if latest[tc.c.ID] != tc.asOf {
				t.Fatalf("/v1/capabilities: %s latest %q, want %s", tc.c.ID, latest[tc.c.ID], tc.asOf)
			}
			var params map[string]any
			if err := json.Unmarshal([]byte(tc.params), &params); err != nil {
				t.Fatal(err)
			}
			params["as_of"] = tc.asOf
			status, body := post(t, srv, "/v1/"+tc.c.Path+"/query", params)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var r struct {
				Citations map[string]struct {
					Derived     bool            `json:"derived"`
					OriginalURL string          `json:"original_url"`
					File        string          `json:"source_file"`
					Verify      json.RawMessage `json:"verify"`
				} `json:"citations"`
				Records []map[string]any `json:"records"`
			}
			var whole struct {
				Citations map[string]json.RawMessage `json:"citations"`
			}
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(body, &whole); err != nil {
				t.Fatal(err)
			}
			raw := whole.Citations
			if len(r.Citations) == 0 {
				t.Fatal("no citations")
			}
			verified := 0
			for ref, c := range r.Citations {
				if !c.Derived || c.OriginalURL != tc.original {
					t.Errorf("%s (%s): derived %v, original_url %q", ref, c.File, c.Derived, c.OriginalURL)
				}
				st, eb := post(t, srv, "/v1/evidence/source-row", []byte(c.Verify))
				if ev := decode[evidence](t, eb); st != 200 || !ev.Verified {
					t.Errorf("%s: source-row evidence %d %s", ref, st, eb)
				}
				for _, m := range tc.c.MetricNames() {
					st, ab := post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": tc.c.ID, "metric": m, "citation": raw[ref]})
					var v struct {
						Verified bool `json:"verified"`
						Equal    bool `json:"equal"`
					}
					if err := json.Unmarshal(ab, &v); err != nil || st != 200 || !v.Verified || !v.Equal {
						t.Errorf("%s %s: aggregate evidence %d %s", ref, m, st, ab)
					}
					verified++
				}
			}
			for i, rec := range r.Records {
				cb, _ := json.Marshal(rec["citation"])
				st, eb := post(t, srv, "/v1/evidence/source-row", cb)
				ev := decode[evidence](t, eb)
				if st != 200 || !ev.Verified {
					t.Fatalf("record %d: %d %s", i, st, eb)
				}
				if doc, _ := ev.cell("source_doc"); doc == "" || doc != rec["original_document_url"] {
					t.Errorf("record %d: original_document_url %v, the cited row's source_doc %q", i, rec["original_document_url"], doc)
				}
				if page, _ := ev.cell("source_page"); page == "" || page != rec["original_page"] {
					t.Errorf("record %d: original_page %v, the cited row's source_page %q", i, rec["original_page"], page)
				}
			}
			t.Logf("%d citations, %d metric recomputations, %d records verified", len(r.Citations), verified, len(r.Records))
		})
	}
	_, body = get(t, srv, "/v1/power/capacity-market-miso/schema")
	for _, want := range []string{`"served":true`, `"derived":true`, "IMM conduct thresholds are served from MISO's own posting only"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the schema lacks %s", want)
		}
	}
	_, body = get(t, srv, "/v1/power/capacity-accreditation-miso/schema")
	if !strings.Contains(string(body), `"served":false`) || !strings.Contains(string(body), "wind and solar capacity credit reports") {
		t.Errorf("power.capacity_accreditation_miso: %s", fmt.Sprint(string(body[:min(len(body), 400)])))
	}
}

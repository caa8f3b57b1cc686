package api_test

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/census"
	"github.com/citeq/citeq/ingest/iso/market"
	"github.com/citeq/citeq/internal/testenv"
)

// transcribedOriginal is what one line of a transcription names as its original: the
// publisher's document and page (its source_doc and source_page cells).
type transcribedOriginal struct{ doc, page string }

// transcribedOriginals reads, with encoding/csv over the raw file and nothing of ingest, the
// document and page each line of a transcription names, by its line number (the CSV line, the
// header being line 1).
func transcribedOriginals(t *testing.T, path string) map[int]transcribedOriginal {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	out := map[int]transcribedOriginal{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		line, _ := r.FieldPos(0)
		out[line] = transcribedOriginal{rec[col["source_doc"]], rec[col["source_page"]]}
	}
	return out
}

// rowCitation is a record citation as the answers give it.
type rowCitation struct {
	SourceFile   string `json:"source_file"`
	SourceRow    int    `json:"source_row"`
	Derived      bool   `json:"derived"`
	OriginalURL  string `json:"original_url"`
	OriginalPage string `json:"original_page"`
}

// TestTranscriptionCitationsNameTheirPosting checks that every citation of a row of the MISO
// and PJM transcriptions names, as its original, the publisher's document and page that row
// was copied from: each record's citation, each aggregate citation's verify member and sample
// rows give the row's source_doc as original_url and its source_page as original_page, as
// encoding/csv reads them from the raw file. The evidence endpoints verify them as given and
// refuse a citation whose page, document or derived mark is forged.
func TestTranscriptionCitationsNameTheirPosting(t *testing.T) {
	raw := testenv.Raw(t)
	srv := newServer(t, ingestData(t, market.MISOAuctionTranscribed, market.PJMAccreditationTranscribed, census.ChipTrade()))
	cases := []struct {
		cap    *capability.Capability
		params string
		file   string
	}{
		{capability.PowerCapacityMarketMISO, `{"include_records":true,"limit":500,"group_by":["atom_type","planning_year"]}`, "iso/miso/pra_derived/miso_pra_auction_clearing_prices_transcribed.csv"},
		{capability.PowerCapacityMarketMISO, `{"include_records":true,"limit":500,"filters":{"atom_type":"cone_annual"},"group_by":["zone"]}`, "iso/miso/pra_derived/miso_pra_cone_prm_rbdc_transcribed_EXCERPT.csv"},
		{capability.PowerCapacityAccreditationPJM, `{"include_records":true,"limit":500,"group_by":["delivery_year"]}`, "iso/pjm/elcc_derived/pjm_elcc_class_ratings_DY2025-2028_transcribed_EXCERPT.csv"},
	}
	checked := 0
	var forged json.RawMessage
	for _, tc := range cases {
		want := transcribedOriginals(t, filepath.Join(raw, tc.file))
		name := filepath.Base(tc.file)
		original := func(where string, c rowCitation) {
			t.Helper()
			if c.SourceFile != name {
				return
			}
			w, ok := want[c.SourceRow]
			if !ok || !c.Derived || c.OriginalURL != w.doc || c.OriginalPage != w.page {
				t.Errorf("%s: row %d of %s cited with derived %v, original_url %q, original_page %q; the row names %q, %q", where, c.SourceRow, name, c.Derived, c.OriginalURL, c.OriginalPage, w.doc, w.page)
			}
			checked++
		}
		status, body := post(t, srv, "/v1/"+tc.cap.Path+"/query", tc.params)
		if status != 200 {
			t.Fatalf("%s: status %d: %s", tc.params, status, body)
		}
		var r struct {
			Citations map[string]struct {
				SourceFile string        `json:"source_file"`
				Sample     []rowCitation `json:"source_rows_sample"`
				Verify     rowCitation   `json:"verify"`
			} `json:"citations"`
			Records []struct {
				Citation rowCitation `json:"citation"`
			} `json:"records"`
		}
		var rawBody struct {
			Citations map[string]json.RawMessage `json:"citations"`
			Records   []map[string]json.RawMessage
		}
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(body, &rawBody); err != nil {
			t.Fatal(err)
		}
		for i, rec := range r.Records {
			original("record "+strconv.Itoa(i), rec.Citation)
			if rec.Citation.SourceFile != name {
				continue
			}
			st, eb := post(t, srv, "/v1/evidence/source-row", []byte(rawBody.Records[i]["citation"]))
			var ev struct {
				Verified bool        `json:"verified"`
				Citation rowCitation `json:"citation"`
			}
			if err := json.Unmarshal(eb, &ev); st != 200 || err != nil || !ev.Verified {
				t.Fatalf("record %d: evidence %d: %s", i, st, eb)
			}
			original("the evidence of record "+strconv.Itoa(i), ev.Citation)
			forged = rawBody.Records[i]["citation"]
		}
		for ref, c := range r.Citations {
			if c.SourceFile != name {
				continue
			}
			original(ref+" verify", c.Verify)
			for _, s := range c.Sample {
				s.SourceFile, s.Derived = name, true
				original(ref+" sample", s)
			}
			st, eb := post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": tc.cap.ID, "metric": tc.cap.MetricNames()[len(tc.cap.MetricNames())-1], "citation": rawBody.Citations[ref]})
			if st != 200 || !decode[struct{ Verified, Equal bool }](t, eb).Verified {
				t.Fatalf("%s: aggregate evidence %d: %s", ref, st, eb)
			}
			// A sample row whose page is forged is refused.
			var m map[string]any
			if err := json.Unmarshal(rawBody.Citations[ref], &m); err != nil {
				t.Fatal(err)
			}
			m["source_rows_sample"].([]any)[0].(map[string]any)["original_page"] = "p.99"
			st, eb = post(t, srv, "/v1/evidence/aggregate", map[string]any{"capability": tc.cap.ID, "metric": tc.cap.MetricNames()[0], "citation": m})
			if st != 400 || decode[errorBody](t, eb).Error.Code != apierror.CodeEvidenceRowsSample {
				t.Errorf("%s with a forged sample page: %d %s", ref, st, eb)
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d citations of transcribed rows checked", checked)
	}

	// The record citations the evidence endpoint refuses: each forged member of a transcribed
	// row's citation, and a derived mark on the citation of a publisher's own file.
	var good map[string]any
	if err := json.Unmarshal(forged, &good); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) map[string]any {
		c := map[string]any{}
		for k, v := range good {
			c[k] = v
		}
		f(c)
		return c
	}
	status, body := post(t, srv, "/v1/"+capability.AIInfrastructureTrade.Path+"/query", `{"include_records":true,"limit":1}`)
	if status != 200 {
		t.Fatalf("trade: %d %s", status, body)
	}
	own := decode[struct {
		Records []struct {
			Citation map[string]any `json:"citation"`
		} `json:"records"`
	}](t, body).Records[0].Citation
	own["derived"], own["original_url"] = true, "https://example.org/"
	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"a forged page", edit(func(c map[string]any) { c["original_page"] = "p.99" })},
		{"another document", edit(func(c map[string]any) { c["original_url"] = "https://cdn.misoenergy.org/another.pdf" })},
		{"the file's original in place of the row's", edit(func(c map[string]any) {
			delete(c, "original_page")
			c["original_url"] = "https://www.misoenergy.org/planning/resource-adequacy/"
		})},
		{"derived left out", edit(func(c map[string]any) { delete(c, "derived") })},
		{"a publisher's own file marked derived", own},
	} {
		st, eb := post(t, srv, "/v1/evidence/source-row", tc.body)
		if st != 400 || decode[errorBody](t, eb).Error.Code != apierror.CodeEvidenceDerived {
			t.Errorf("%s: %d %s", tc.name, st, eb)
		}
	}
	// Left out, the page and the document are not compared.
	st, eb := post(t, srv, "/v1/evidence/source-row", edit(func(c map[string]any) { delete(c, "original_page"); delete(c, "original_url") }))
	if st != 200 {
		t.Errorf("without original_url and original_page: %d %s", st, eb)
	}
}

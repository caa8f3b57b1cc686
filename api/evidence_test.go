package api_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestEveryCitationVerifies posts every citation of grouped responses to the evidence
// endpoint and checks the literal cells of the cited row against the group it stands for.
func TestEveryCitationVerifies(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	cases := []struct {
		path   string
		params map[string]any
		// header is the source column whose literal value must equal the group's dimension.
		dim, header string
	}{
		{"/v1/power/capacity/query", map[string]any{"filters": map[string]any{"lifecycle": "operating"}, "group_by": []string{"state"}, "order_by": "nameplate_mw", "top_n": 8}, "state", "Plant State"},
		{"/v1/power/capacity/query", map[string]any{"group_by": []string{"lifecycle", "technology"}}, "technology", "Technology"},
		{"/v1/power/capacity/query", map[string]any{"filters": map[string]any{"technology": "Batteries"}, "group_by": []string{"prime_mover_code"}}, "prime_mover_code", "Prime Mover Code"},
		{"/v1/natural-gas/prices/query", map[string]any{"group_by": []string{"atom", "year"}, "observation_date_from": "2019", "observation_date_to": "2021"}, "", ""},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			status, body := post(t, srv, tc.path, tc.params)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			r := decode[response](t, body)
			if len(r.Citations) == 0 {
				t.Fatal("no citations")
			}
			for ref, c := range r.Citations {
				st, eb := post(t, srv, "/v1/evidence/source-row", []byte(c.Verify))
				if st != 200 {
					t.Fatalf("citation %s: evidence status %d: %s", ref, st, eb)
				}
				ev := decode[evidence](t, eb)
				if !ev.Verified || len(ev.Cells) == 0 {
					t.Fatalf("citation %s not verified: %s", ref, eb)
				}
			}
			// Each non-(other) row's verify row holds the group's value in the source column.
			for _, row := range r.Rows {
				if tc.dim == "" || row.Group[tc.dim] == "(other)" {
					continue
				}
				c := r.Citations[row.Lineage.Ref]
				_, eb := post(t, srv, "/v1/evidence/source-row", []byte(c.Verify))
				ev := decode[evidence](t, eb)
				got, ok := ev.cell(tc.header)
				want := ""
				if v := row.Group[tc.dim]; v != nil {
					want = fmt.Sprint(v)
				}
				if !ok || strings.TrimSpace(got) != want {
					t.Errorf("group %v: cited row's %q is %q", row.Group, tc.header, got)
				}
			}
		})
	}
}

func TestEvidenceLiteralCells(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	// Henry Hub, 1997-01-07: sheet Data 1 row 4 holds the Excel serial date and 3.82.
	status, body := post(t, srv, "/v1/natural-gas/prices/query", map[string]any{
		"filters": map[string]any{"atom": "henry_hub_daily_spot"}, "observation_date_from": "1997-01-07", "observation_date_to": "1997-01-07", "include_records": true})
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	r := decode[response](t, body)
	if len(r.Records) != 1 || r.Records[0]["price"] != 3.82 {
		t.Fatalf("records: %v", r.Records)
	}
	cit, _ := json.Marshal(r.Records[0]["citation"])
	st, eb := post(t, srv, "/v1/evidence/source-row", cit)
	if st != 200 {
		t.Fatalf("evidence %d: %s", st, eb)
	}
	ev := decode[evidence](t, eb)
	d, _ := ev.cell("Date")
	p, _ := ev.cell("Henry Hub Natural Gas Spot Price (Dollars per Million Btu)")
	if d != "35437" || p != "3.82" {
		t.Errorf("cells Date=%q price=%q, want 35437 and 3.82: %s", d, p, eb)
	}
}

func TestEvidenceRefusals(t *testing.T) {
	data := testenv.CopyDir(t, testenv.Data(t))
	srv := newServer(t, data)
	status, body := post(t, srv, "/v1/power/capacity/query", map[string]any{"filters": map[string]any{"state": "RI"}})
	if status != 200 {
		t.Fatal(string(body))
	}
	r := decode[response](t, body)
	var good map[string]any
	if err := json.Unmarshal(r.Citations[r.Summary.CitationRefs[0]].Verify, &good); err != nil {
		t.Fatal(err)
	}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for kk, vv := range good {
			c[kk] = vv
		}
		c[k] = v
		return c
	}
	sha := good["raw_file_sha256"].(string)
	tampered := sha[:10] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", sha[10])+1)%16]) + sha[11:]
	cases := []struct {
		name string
		body any
		code string
	}{
		{"tampered hash", with("raw_file_sha256", tampered), "evidence_file_unknown"},
		{"not a hash", with("raw_file_sha256", "abc"), "evidence_file_unknown"},
		{"row out of range", with("source_row", 999999), "evidence_row_out_of_range"},
		{"row zero", with("source_row", 0), "invalid_citation"},
		{"unknown sheet", with("sheet", "Nope"), "evidence_sheet_unknown"},
		{"wrong file name", with("source_file", "other.xlsx"), "evidence_file_name_mismatch"},
		{"row as text", with("source_row", "seven"), "invalid_citation"},
		{"invented source_id", with("source_id", "made_up_agency"), "evidence_source_id_mismatch"},
		{"invented source_url", with("source_url", "https://example.org/fake.xlsx"), "evidence_source_url_mismatch"},
		{"invented as_of", with("as_of", "2099-12-31"), "evidence_as_of_mismatch"},
		{"title row", with("source_row", 1), "evidence_row_not_cited"},
		{"header row", with("source_row", 2), "evidence_row_not_cited"},
		{"malformed JSON", "{not json", "invalid_request"},
		{"not an object", "[1,2]", "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, eb := post(t, srv, "/v1/evidence/source-row", tc.body)
			e := decode[errorBody](t, eb)
			if st != 400 || e.Error.Code != tc.code || e.Error.Message == "" {
				t.Errorf("status %d code %q, want 400 %q: %s", st, e.Error.Code, tc.code, eb)
			}
		})
	}
	t.Run("sheet nobody cites", func(t *testing.T) {
		_, body := post(t, srv, "/v1/natural-gas/prices/query", map[string]any{})
		r := decode[response](t, body)
		var ng map[string]any
		if err := json.Unmarshal(r.Citations[r.Summary.CitationRefs[0]].Verify, &ng); err != nil {
			t.Fatal(err)
		}
		ng["sheet"], ng["source_row"] = "Contents", 1
		st, eb := post(t, srv, "/v1/evidence/source-row", ng)
		if e := decode[errorBody](t, eb); st != 400 || e.Error.Code != "evidence_sheet_not_cited" {
			t.Errorf("status %d code %q: %s", st, e.Error.Code, eb)
		}
	})
	t.Run("members left out are not compared", func(t *testing.T) {
		c := map[string]any{"source_file": good["source_file"], "sheet": good["sheet"], "source_row": good["source_row"], "raw_file_sha256": sha}
		if st, eb := post(t, srv, "/v1/evidence/source-row", c); st != 200 {
			t.Errorf("status %d: %s", st, eb)
		}
	})
	t.Run("codebook rows verify", func(t *testing.T) {
		_, body := get(t, srv, "/v1/power/capacity/schema")
		var schema struct {
			Codebooks map[string]struct {
				Codes []struct {
					Source map[string]any `json:"source"`
				} `json:"codes"`
			} `json:"codebooks"`
		}
		if err := json.Unmarshal(body, &schema); err != nil {
			t.Fatal(err)
		}
		n := 0
		for name, cb := range schema.Codebooks {
			for _, code := range cb.Codes {
				if code.Source == nil || n > 40 {
					continue
				}
				n++
				if st, eb := post(t, srv, "/v1/evidence/source-row", code.Source); st != 200 {
					t.Errorf("codebook %s: %v: status %d: %s", name, code.Source, st, eb)
				}
			}
		}
		if n == 0 {
			t.Fatal("no codebook code cites its table row")
		}
	})
	t.Run("modified raw file", func(t *testing.T) {
		path := filepath.Join(data, "raw", sha, good["source_file"].(string))
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		st, eb := post(t, srv, "/v1/evidence/source-row", good)
		e := decode[errorBody](t, eb)
		if st != 400 || e.Error.Code != "evidence_hash_mismatch" {
			t.Errorf("status %d code %q: %s", st, e.Error.Code, eb)
		}
	})
}

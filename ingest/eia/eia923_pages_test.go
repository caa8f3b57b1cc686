package eia_test

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/eia"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

const pagesKey = "0123456789abcdefKEY"

// TestGenerationFetchesPages: ingest --fetch's walk of the EIA API (offset and length, the
// key from configuration) gives one file per page, which the adapter reads as one snapshot:
// every month whole when the pages hold the request's total, the oldest month cut when they
// do not; the key is in no file and no citation.
func TestGenerationFetchesPages(t *testing.T) {
	p := eia.Generation{}.Paged()[0]
	if !strings.HasPrefix(p.URL, "https://api.eia.gov/v2/electricity/facility-fuel/data/?") || p.KeyEnv != "CITEQ_EIA_API_KEY" || p.Length != 5000 {
		t.Fatalf("paged request %+v", p)
	}
	p.Length = 10 // the fixture's 36 rows in four pages
	cases := []struct {
		name   string
		drop   []string // pages removed after the walk
		months string   // months served
		cut    string
		asOf   string
	}{
		{"every page", nil, "2022-10 18 rows, 2022-11 18 rows", "", "2022-11-30"},
		{"the last two pages missing", []string{"eia923_2022_20.json", "eia923_2022_30.json"}, "2022-11 18 rows", "2022-10 (2 rows) not served: the response holds 20 of the query's 36 rows", "2022-11-30"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := testenv.NewEIAAPI(t, "testdata/fixtures/eia/eia923_api/eia923_2022.json", pagesKey, 5000)
			srv := httptest.NewServer(api)
			defer srv.Close()
			raw := t.TempDir()
			res, err := fetch.FetchPages(context.Background(), raw, p, pagesKey, fetch.Options{Mirror: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(api.Asked(), " "); got != "0+10 10+10 20+10 30+10" || len(res) != 4 {
				t.Fatalf("pages asked %q, %d stored", got, len(res))
			}
			dir := filepath.Join(raw, "eia", "eia923_api")
			for _, name := range tc.drop {
				os.Remove(filepath.Join(dir, name))
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				if strings.Contains(string(b), pagesKey) {
					t.Errorf("%s holds the key", e.Name())
				}
			}
			store := &snapshots.Store{Dir: t.TempDir()}
			outcomes, err := ingest.Run(raw, store, []ingest.Adapter{eia.Generation{}}, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if len(outcomes) != 1 || outcomes[0].Status != snapshots.Promoted {
				t.Fatalf("outcomes %+v", outcomes)
			}
			m := outcomes[0].Manifest
			if m.AsOf != tc.asOf {
				t.Errorf("as_of %s", m.AsOf)
			}
			var coverage string
			for _, g := range m.Gates {
				if !g.Passed {
					t.Errorf("gate %s failed: %s", g.Name, g.Detail)
				}
				if g.Name == "page_coverage" {
					coverage = g.Detail
				}
			}
			if !strings.Contains(coverage, "served "+tc.months) || tc.cut != "" && !strings.Contains(coverage, tc.cut) {
				t.Errorf("page_coverage: %s", coverage)
			}
			if len(tc.drop) == 0 && (!strings.Contains(coverage, "36 rows of the request's 36") || m.Rows != 36) {
				t.Errorf("%d rows; page_coverage: %s", m.Rows, coverage)
			}
			for _, src := range m.Sources {
				if strings.Contains(src.URL, pagesKey) || !strings.Contains(src.URL, "(api_key omitted)") || !strings.Contains(src.URL, "offset=") {
					t.Errorf("source %s cited as %s", src.File, src.URL)
				}
			}
		})
	}
}

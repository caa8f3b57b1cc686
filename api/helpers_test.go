package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/snapshots"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// newServer serves the data directory dir over a loopback test server.
func newServer(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	svc, err := service.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(svc, zerolog.Nop()))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, b := testenv.Do(t, method, url, "", string(body))
	return resp.StatusCode, b
}

func post(t *testing.T, srv *httptest.Server, path string, body any) (int, []byte) {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	return do(t, http.MethodPost, srv.URL+path, b)
}

func get(t *testing.T, srv *httptest.Server, pathAndQuery string) (int, []byte) {
	t.Helper()
	return do(t, http.MethodGet, srv.URL+pathAndQuery, nil)
}

// response is the part of a query payload the tests read.
type response struct {
	AsOf    string `json:"as_of"`
	Summary struct {
		GroupCount   int                 `json:"group_count"`
		Totals       map[string]*float64 `json:"totals"`
		Notes        []note              `json:"notes"`
		CitationRefs []string            `json:"citation_refs"`
		Truncated    bool                `json:"records_truncated"`
	} `json:"summary"`
	Rows []struct {
		Group   map[string]any      `json:"group"`
		Metrics map[string]*float64 `json:"metrics"`
		Lineage struct {
			Ref string `json:"citation_ref"`
		} `json:"lineage"`
	} `json:"rows"`
	Citations map[string]struct {
		SourceRowsCount int64           `json:"source_rows_count"`
		Verify          json.RawMessage `json:"verify"`
		Evidence        *evidence       `json:"evidence"`
	} `json:"citations"`
	Records []map[string]any `json:"records"`
}

type note struct {
	Code   string `json:"code"`
	Metric string `json:"metric"`
	Count  int64  `json:"count"`
}

type evidence struct {
	Verified bool `json:"verified"`
	Cells    []struct {
		Column string `json:"column"`
		Header string `json:"header"`
		Value  string `json:"value"`
	} `json:"cells"`
	Computed string `json:"computed_sha256"`
}

// cell returns the value of the cell under header h.
func (e *evidence) cell(h string) (string, bool) {
	for _, c := range e.Cells {
		if c.Header == h {
			return c.Value, true
		}
	}
	return "", false
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b[:min(len(b), 300)], err)
	}
	return v
}

func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := max(abs(a), abs(b), 1)
	return d <= 1e-9*m
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// ingestData ingests the files under CITEQ_RAW the given adapters read into a data directory
// of the test's own, every snapshot promoted.
func ingestData(t *testing.T, as ...ingest.Adapter) string {
	t.Helper()
	dir := t.TempDir()
	outcomes, err := ingest.Run(testenv.Raw(t), &snapshots.Store{Dir: dir}, as, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(outcomes) == 0 {
		t.Fatal("no file found")
	}
	for _, o := range outcomes {
		if o.Status != snapshots.Promoted {
			t.Fatalf("%s %s not promoted: %v", o.Capability, o.AsOf, o.Reasons)
		}
	}
	return dir
}

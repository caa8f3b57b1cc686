package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/snapshots"
)

func TestETagAndCacheControl(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	cases := []struct {
		name, method, path, body string
		cache                    string
	}{
		{"pinned POST", "POST", "/v1/power/capacity/query", `{"as_of":"2016-05-31","group_by":["state"]}`, "immutable"},
		{"pinned GET", "GET", "/v1/power/capacity/query?as_of=2016-05-31&group_by=state", "", "immutable"},
		{"latest", "POST", "/v1/power/capacity/query", `{"group_by":["state"]}`, "max-age=60"},
		{"pinned with evidence", "POST", "/v1/power/capacity/query", `{"as_of":"2016-05-31","group_by":["state"],"include_evidence":true}`, "no-cache"},
		{"pinned GET with evidence", "GET", "/v1/power/capacity/query?as_of=2016-05-31&group_by=state&include_evidence=true", "", "no-cache"},
		{"schema", "GET", "/v1/natural-gas/prices/schema", "", "max-age=60"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || etag == "" || !strings.Contains(resp.Header.Get("Cache-Control"), tc.cache) {
				t.Fatalf("status %d etag %q cache-control %q", resp.StatusCode, etag, resp.Header.Get("Cache-Control"))
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Error("no request id")
			}
			for _, inm := range []string{etag, `"nope", ` + etag, "W/" + etag, "*"} {
				req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
				req.Header.Set("If-None-Match", inm)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotModified || resp.Header.Get("ETag") != etag {
					t.Errorf("If-None-Match %s: status %d", inm, resp.StatusCode)
				}
			}
			req, _ = http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("If-None-Match", `"other"`)
			resp, _ = http.DefaultClient.Do(req)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("a stale ETag got %d", resp.StatusCode)
			}
		})
	}
	// A caller's request id is echoed.
	req, _ := http.NewRequest("GET", srv.URL+"/v1/health", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "abc-123" {
		t.Errorf("request id %q", resp.Header.Get("X-Request-Id"))
	}
}

func TestMetricsScrape(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	post(t, srv, "/v1/power/capacity/query", `{"group_by":["state"]}`)
	post(t, srv, "/v1/power/capacity/query", `{"filters":{"state":"ZZ"}}`)
	get(t, srv, "/v1/natural-gas/prices/schema")
	st, body := get(t, srv, "/metrics")
	if st != 200 {
		t.Fatal(st)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	find := func(family string, want map[string]string) float64 {
		f := families[family]
		if f == nil {
			t.Fatalf("no family %s", family)
		}
		for _, m := range f.GetMetric() {
			ok := true
			for k, v := range want {
				found := false
				for _, l := range m.GetLabel() {
					if l.GetName() == k && l.GetValue() == v {
						found = true
					}
				}
				ok = ok && found
			}
			if ok {
				switch {
				case m.GetCounter() != nil:
					return m.GetCounter().GetValue()
				case m.GetGauge() != nil:
					return m.GetGauge().GetValue()
				case m.GetHistogram() != nil:
					return float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
		return -1
	}
	q := "/v1/power/capacity/query"
	if v := find("citeq_http_requests_total", map[string]string{"route": q, "status": "200", "capability": "power.capacity"}); v != 1 {
		t.Errorf("requests 200 = %v", v)
	}
	if v := find("citeq_http_errors_total", map[string]string{"route": q, "capability": "power.capacity", "code": "invalid_filter"}); v != 1 {
		t.Errorf("errors invalid_filter = %v", v)
	}
	if v := find("citeq_http_request_duration_seconds", map[string]string{"route": q, "capability": "power.capacity"}); v != 2 {
		t.Errorf("latency samples = %v", v)
	}
	if v := find("citeq_snapshot_rows", map[string]string{"capability": "power.capacity", "as_of": "2016-05-31"}); v != 25320 {
		t.Errorf("snapshot rows = %v", v)
	}
	// Every promoted snapshot of the catalog is served.
	cat, err := (&snapshots.Store{Dir: testenv.Data(t)}).ReadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	promoted := 0
	for _, dates := range cat.Promoted {
		promoted += len(dates)
	}
	if v := find("citeq_snapshots_served", nil); v != float64(promoted) || promoted < 2 {
		t.Errorf("snapshots served = %v, %d promoted", v, promoted)
	}
	// The query decoded power.capacity's columns, charged to the tables' memory budget.
	if v := find("citeq_tables_memory_bytes", nil); v <= 0 {
		t.Errorf("tables memory = %v", v)
	}
	if v := find("citeq_tables_loads_total", nil); v <= 0 {
		t.Errorf("tables loads = %v", v)
	}
	if v := find("citeq_tables_memory_limit_bytes", nil); v < 0 {
		t.Errorf("tables memory limit = %v", v)
	}
}

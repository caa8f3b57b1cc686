package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestBadInput: every bad input gets the contract's status and code and a message that says
// what to do next; the server keeps answering afterwards.
func TestBadInput(t *testing.T) {
	srv := newServer(t, testenv.Data(t))
	const q = "/v1/power/capacity/query"
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
		hint                     string // a piece of the message that tells the caller what to do
	}{
		{"unknown filter", "POST", q, `{"filters":{"colour":"red"}}`, 400, "invalid_filter", "/v1/power/capacity/schema"},
		{"unknown top-level key", "POST", q, `{"colour":"red"}`, 400, "invalid_filter", "filters:"},
		{"unknown filter value", "POST", q, `{"filters":{"state":"ZZ"}}`, 400, "invalid_filter", "TX"},
		{"unknown enum value", "POST", q, `{"filters":{"lifecycle":"proposed"}}`, 400, "invalid_filter", `"operating", "planned", "retired"`},
		{"unknown codebook value", "POST", q, `{"filters":{"energy_source_code":"XYZ"}}`, 400, "invalid_filter", "codebook"},
		{"non-integer plant id", "POST", q, `{"filters":{"eia_plant_id":"abc"}}`, 400, "invalid_filter", "integers"},
		{"filter not an object", "POST", q, `{"filters":["state"]}`, 400, "invalid_filter", "object"},
		{"empty filter list", "POST", q, `{"filters":{"state":[]}}`, 400, "invalid_filter", "non-empty"},
		{"unknown filter value at the top level", "POST", q, `{"state":"ZZ"}`, 400, "invalid_filter", `"ZZ" is not a value of filter state`},
		{"unknown filter value in GET", "GET", q + "?state=ZZ&group_by=state", "", 400, "invalid_filter", `"ZZ" is not a value of filter state`},
		{"unknown filter value in q", "GET", q + "?q=" + url.QueryEscape(`{"filters":{"state":["TX","ZZ"]}}`), "", 400, "invalid_filter", `"ZZ" is not a value of filter state`},
		{"filter both at the top level and in filters", "POST", q, `{"state":"TX","filters":{"state":"CA"}}`, 400, "invalid_filter", "filter state is given both at the top level and inside filters; give it once"},
		{"filters null", "POST", q, `{"filters":null}`, 400, "invalid_filter", "filters must be an object"},
		{"as_of on a date with an unknown filter value", "POST", q, `{"as_of":"on:2017-01-01","filters":{"state":"ZZ"}}`, 400, "invalid_filter", `"ZZ" is not a value of filter state`},
		{"as_of on a date in filters with an unknown filter value", "POST", q, `{"filters":{"as_of":"on:2017-01-01","state":" ZZ"}}`, 400, "invalid_filter", `" ZZ" is not a value of filter state`},
		{"as_of on a date in filters before every snapshot", "POST", q, `{"filters":{"as_of":"on:2010-01-01","state":"TX"}}`, 400, "invalid_parameter", "as_of on:2010-01-01 is before every snapshot of power.capacity"},
		{"as_of on a date in GET", "GET", q + "?as_of=on:2017-02-30&state=TX", "", 400, "invalid_parameter", `as_of "on:2017-02-30" is not on:YYYY-MM-DD`},
		{"as_of twice, one on a date", "POST", q, `{"as_of":"2016-05-31","filters":{"as_of":"on:2017-01-01"}}`, 400, "invalid_parameter", "as_of is given twice; give it once"},
		{"as_of not a string", "POST", q, `{"as_of":20160531}`, 400, "invalid_parameter", "as_of must be latest or a snapshot date YYYY-MM-DD"},
		{"order_by a dimension", "POST", q, `{"group_by":["state"],"order_by":"state"}`, 400, "invalid_parameter", "never by a dimension"},
		{"order_by unknown", "POST", q, `{"group_by":["state"],"order_by":"mw"}`, 400, "invalid_parameter", "nameplate_mw"},
		{"order_by without group_by", "POST", q, `{"order_by":"nameplate_mw"}`, 400, "invalid_parameter", "group_by"},
		{"bad order", "POST", q, `{"group_by":["state"],"order_by":"nameplate_mw","order":"up"}`, 400, "invalid_parameter", "asc or desc"},
		{"top_n zero", "POST", q, `{"group_by":["state"],"order_by":"nameplate_mw","top_n":0}`, 400, "invalid_parameter", "positive"},
		{"top_n without order_by", "POST", q, `{"group_by":["state"],"top_n":3}`, 400, "invalid_parameter", "order_by"},
		{"top_n not integer", "GET", q + "?group_by=state&order_by=nameplate_mw&top_n=three", "", 400, "invalid_parameter", "integer"},
		{"limit zero", "POST", q, `{"include_records":true,"limit":0}`, 400, "invalid_parameter", "between 1 and"},
		{"limit too big", "POST", q, `{"include_records":true,"limit":1000000}`, 400, "invalid_parameter", "between 1 and"},
		{"limit not integer", "GET", q + "?limit=ten", "", 400, "invalid_parameter", "integer"},
		{"unknown as_of", "POST", q, `{"as_of":"1999-01-31"}`, 400, "invalid_parameter", "2016-05-31"},
		{"malformed as_of", "POST", q, `{"as_of":"May 2016"}`, 400, "invalid_parameter", "YYYY-MM-DD"},
		{"bad date format", "POST", q, `{"operating_date_from":"05/2016"}`, 400, "invalid_parameter", "YYYY-MM-DD, YYYY-MM or YYYY"},
		{"impossible date", "POST", q, `{"operating_date_to":"2016-02-30"}`, 400, "invalid_parameter", "YYYY-MM-DD"},
		{"reversed range", "POST", q, `{"operating_date_from":"2016","operating_date_to":"2015"}`, 400, "invalid_parameter", "after"},
		{"unknown group_by", "POST", q, `{"group_by":["colour"]}`, 400, "invalid_parameter", "lifecycle"},
		{"group_by a non-dimension", "POST", q, `{"group_by":["plant_name"]}`, 400, "invalid_parameter", "group_by dimension"},
		{"bool not bool", "POST", q, `{"include_records":"maybe"}`, 400, "invalid_parameter", "true or false"},
		{"malformed JSON", "POST", q, `{"filters":`, 400, "invalid_request", "params object"},
		{"JSON array", "POST", q, `[1]`, 400, "invalid_request", "params object"},
		{"two JSON values", "POST", q, `{} {}`, 400, "invalid_request", "one params object"},
		{"malformed q", "GET", q + "?q=" + url.QueryEscape("{oops"), "", 400, "invalid_request", "params object"},
		{"malformed percent escape", "GET", q + "?state=%ZZ&group_by=state", "", 400, "invalid_parameter", "percent-encode"},
		{"semicolon separator", "GET", q + "?state=TX;state=CA", "", 400, "invalid_parameter", "with & (not ;)"},
		{"malformed escape with q", "GET", q + "?q=%7B%7D%G0", "", 400, "invalid_parameter", "percent-encode"},
		{"trailing slash on query", "GET", q + "/", "", 404, "capability_not_found", "without the trailing slash"},
		{"trailing slash on schema", "GET", "/v1/power/capacity/schema/", "", 404, "capability_not_found", "without the trailing slash"},
		{"trailing slash on POST", "POST", q + "/", `{}`, 404, "capability_not_found", "without the trailing slash"},
		{"doubled slash", "GET", "/v1//power/capacity/schema", "", 404, "capability_not_found", "/v1/capabilities"},
		{"q with pairs", "GET", q + "?q=%7B%7D&state=TX", "", 400, "invalid_request", "do not combine"},
		{"unknown capability", "POST", "/v1/power/nothing/query", `{}`, 404, "capability_not_found", "/v1/capabilities"},
		{"unknown capability schema", "GET", "/v1/space/rockets/schema", "", 404, "capability_not_found", "/v1/capabilities"},
		{"defined but not served", "POST", "/v1/space/satellite-filings/query", `{}`, 404, "capability_not_served", "/v1/space/satellite-filings/schema) says why"},
		{"derived, inputs share no month", "POST", "/v1/power/capacity-factor/query", `{}`, 400, "invalid_parameter", "No month is on both sides"},
		{"wrong method", "DELETE", q, "", 405, "method_not_allowed", "POST or GET"},
		{"prices unknown atom", "POST", "/v1/natural-gas/prices/query", `{"filters":{"atom":"brent"}}`, 400, "invalid_filter", "henry_hub_daily_spot"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var st int
			var b []byte
			if tc.method == "POST" {
				st, b = post(t, srv, tc.path, tc.body)
			} else {
				st, b = do(t, tc.method, srv.URL+tc.path, nil)
			}
			e := decode[errorBody](t, b)
			if st != tc.status || e.Error.Code != tc.code {
				t.Fatalf("got %d %q, want %d %q: %s", st, e.Error.Code, tc.status, tc.code, b)
			}
			if !strings.Contains(e.Error.Message, tc.hint) {
				t.Errorf("message %q does not say %q", e.Error.Message, tc.hint)
			}
		})
	}
	if st, _ := get(t, srv, "/v1/health"); st != 200 {
		t.Fatalf("health after bad input: %d", st)
	}
}

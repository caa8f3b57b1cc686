package service

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/citeq/citeq/apierror"
)

// TestInstantBoundsAreStrictRFC3339: a timestamp bound is read by RFC 3339's grammar, not by
// what time.Parse also takes: an offset beyond 23:59 and a fraction after a comma are a 400
// invalid_parameter saying which, in a POST body and in GET pairs alike (a + lost to URL
// decoding included), while the extremes RFC 3339 allows are read. Before,
// 2021-01-01T00:00:00+24:00 was echoed as 2020-12-31T00:00:00Z, and +05:60 and ,5Z were read.
func TestInstantBoundsAreStrictRFC3339(t *testing.T) {
	s := testService(t)
	for _, tc := range []struct{ bound, want string }{
		{"2021-01-01T00:00:00+24:00", "offset 24:00 is out of range"},
		{"2021-01-01T00:00:00-24:00", "offset 24:00 is out of range"},
		{"2021-01-01T00:00:00+05:60", "offset 05:60 is out of range"},
		{"2021-01-01T00:00:00+99:99", "offset 99:99 is out of range"},
		{"2021-01-01T00:00:00,5Z", `follow a "."`},
		{"2021-01-01T00:00,5Z", `follow a "."`},
		{"2021-01-01T00:00.5Z", "not an RFC 3339 timestamp"},
		{"2021-01-01T00:00:00+0800", "not an RFC 3339 timestamp"},
		{"2021-01-01T00:00:00+8:00", "not an RFC 3339 timestamp"},
	} {
		body, _ := json.Marshal(map[string]string{"utc_date_from": tc.bound})
		forms := map[string]func() ([]byte, *apierror.Error){
			"POST": func() ([]byte, *apierror.Error) { return s.QueryJSON(context.Background(), "power/demand", body) },
			"GET": func() ([]byte, *apierror.Error) {
				raw, e := ParseRawQuery(url.Values{"utc_date_from": {tc.bound}}.Encode())
				if e != nil {
					return nil, e
				}
				return s.QueryRequest(context.Background(), "power/demand", raw)
			},
			"GET with a bare +": func() ([]byte, *apierror.Error) {
				raw, e := ParseRawQuery("utc_date_from=" + tc.bound)
				if e != nil {
					return nil, e
				}
				return s.QueryRequest(context.Background(), "power/demand", raw)
			},
		}
		for form, ask := range forms {
			b, e := ask()
			if e == nil || e.Status != 400 || e.Code != apierror.CodeInvalidParameter || !strings.Contains(e.Message, tc.want) {
				t.Errorf("%s %s: %.100s %v, want a 400 invalid_parameter saying %q", form, tc.bound, b, e, tc.want)
			}
		}
	}
	for bound, echo := range map[string]string{
		"2022-02-19T10:00:00+23:59": "2022-02-18T10:01:00Z",
		"2022-02-18T10:00:00-23:59": "2022-02-19T09:59:00Z",
		"2022-02-19T10:00:00.5Z":    "2022-02-19T10:00:01Z",
		"2022-02-19T10:00+00:00":    "2022-02-19T10:00:00Z",
	} {
		_, b := ask(t, s, "power/demand", `{"utc_date_from":"`+bound+`"}`)
		var e struct {
			Query map[string]any `json:"query"`
		}
		if err := json.Unmarshal(b, &e); err != nil || e.Query["utc_date_from"] != echo {
			t.Errorf("%s: echoed %v, want %s", bound, e.Query["utc_date_from"], echo)
		}
	}
}

package service

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

var (
	fuzzOnce sync.Once
	fuzzSvc  *Service
	fuzzErr  error
)

func fuzzService(f *testing.F) *Service {
	dir := testenv.Data(f)
	fuzzOnce.Do(func() { fuzzSvc, fuzzErr = New(dir) })
	if fuzzErr != nil {
		f.Fatal(fuzzErr)
	}
	return fuzzSvc
}

// FuzzQueryJSON: no params object, however malformed, crashes a query or yields anything but
// a payload or a structured 4xx error.
func FuzzQueryJSON(f *testing.F) {
	svc := fuzzService(f)
	for _, seed := range []string{
		`{}`, `{"filters":{"lifecycle":"operating"},"group_by":["state"],"order_by":"nameplate_mw","top_n":5}`,
		`{"group_by":"state,technology","include_records":true,"limit":"3"}`, `{"operating_date_from":"2015-13","as_of":"latest"}`,
		`{"filters":{"eia_plant_id":[1,2,"x"]}}`, `{"filters":null}`, `[]`, `null`, `{"top_n":-1}`, `{"filters":{"state":[[]]}}`,
		`{"group_by":["state","state"]}`, `{"limit":1e99}`, "\x00", `{"as_of":"2016-05-31","rollup_other":false,"group_by":["fuel_group"],"order_by":"generator_count","top_n":1}`,
	} {
		f.Add("power/capacity", seed)
		f.Add("natural-gas/prices", seed)
	}
	f.Fuzz(func(t *testing.T, path, body string) {
		out, e := svc.QueryJSON(context.Background(), path, []byte(body))
		if e != nil {
			if e.Status < 400 || e.Status > 499 || e.Code == "" || e.Message == "" {
				t.Fatalf("error %+v for %q", e, body)
			}
			return
		}
		if len(out) == 0 || out[0] != '{' {
			t.Fatalf("payload %q", out)
		}
	})
}

// FuzzQueryPairs: the GET query string (pairs or q=), likewise; one that does not parse is
// refused, never read as fewer parameters.
func FuzzQueryPairs(f *testing.F) {
	svc := fuzzService(f)
	for _, seed := range []string{"lifecycle=operating&group_by=state&order_by=nameplate_mw&top_n=5", "q=%7B%7D", "q=%7B&x=1",
		"limit=ten", "group_by=,,", "state=TX&state=CA", "include_records=1&limit=2", "operating_date_to=2016-02-30"} {
		f.Add(seed)
	}
	for _, seed := range []string{"state=%ZZ&group_by=state", "state=TX;state=CA", "q=" + url.QueryEscape(`{"group_by":["state"]}`), "q=%7B%7D%G0"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		raw, e := ParseRawQuery(query)
		if _, err := url.ParseQuery(query); err != nil && e == nil {
			t.Fatalf("a query string that does not parse was read as %v: %q", raw, query)
		}
		if e == nil {
			_, e = svc.QueryRequest(context.Background(), "power/capacity", raw)
		}
		if e != nil && (e.Status < 400 || e.Status > 499 || e.Code == "") {
			t.Fatalf("error %+v for %q", e, query)
		}
	})
}

// FuzzEvidenceJSON: no citation, however malformed, crashes the evidence endpoint.
func FuzzEvidenceJSON(f *testing.F) {
	svc := fuzzService(f)
	for _, seed := range []string{
		`{"source_file":"may_generator2016.xlsx","sheet":"Operating","source_row":22,"raw_file_sha256":"b196f74ef36c02c34e956ffaed9fc2d996abb1319b87e7a0f77d3d9f3ff18fe5"}`,
		`{"verify":{"source_file":"RNGWHHDd.xls","sheet":"Data 1","source_row":4,"raw_file_sha256":"bde4dd13601b3b3efcccfa0f1ebd1af2dc08d25e1540c28d63663f84438663a6"}}`,
		`{"source_row":-1}`, `{"raw_file_sha256":"../../etc/passwd","source_file":"passwd","sheet":"x","source_row":1}`, `{}`, `[]`, `"x"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		_, e := svc.Evidence(context.Background(), []byte(body))
		if e != nil && (e.Status != 400 || e.Code == "") {
			t.Fatalf("error %+v for %q", e, body)
		}
	})
}

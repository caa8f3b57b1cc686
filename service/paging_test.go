package service

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/internal/testenv"
)

// pages follows next_cursor from the first page of params and returns every page.
func pages(t *testing.T, s *Service, path, params string) [][]byte {
	t.Helper()
	return testenv.Pages(t, params, func(p string) []byte {
		b, e := s.QueryJSON(context.Background(), path, []byte(p))
		if e != nil {
			t.Fatalf("%s: %s", p, e.Body())
		}
		return b
	})
}

// TestComparisonPages: the MISO comparison of 2025-05-09 with 2025-01-17 (438 KB whole before
// it paged) pages within PageBytes; its pages hold each project once, as many as the first
// page's summary counts (ingest/iso/queue's golden test checks those counts against the
// files); every list is a list on every page; the figures come with the first page; a page
// asked again is the same bytes; a cursor of another query or a made-up one is refused.
func TestComparisonPages(t *testing.T) {
	s, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	const params = `{"as_of":"2025-05-09","compare_as_of":"2025-01-17"}`
	ps := pages(t, s, "power/interconnection-queue", params)
	if len(ps) < 2 {
		t.Fatalf("%d page(s): the comparison does not page", len(ps))
	}
	seen := map[string]int{}
	var head struct {
		Summary map[string]any `json:"summary"`
	}
	json.Unmarshal(ps[0], &head)
	want := map[string]int{}
	for _, list := range []string{"entered", "left", "status_changed", "mw_changed", "not_compared"} {
		n, _ := head.Summary[list].(float64)
		want[list] = int(n)
	}
	if want["status_changed"] < 400 {
		t.Errorf("summary %v: the comparison is smaller than the test is for", head.Summary)
	}
	for i, b := range ps {
		if len(b) > PageBytes+64<<10 {
			t.Errorf("page %d is %d bytes", i+1, len(b))
		}
		var a map[string]json.RawMessage
		json.Unmarshal(b, &a)
		if _, ok := a["figures"]; ok != (i == 0) {
			t.Errorf("page %d: figures %v", i+1, ok)
		}
		for list := range want {
			var items []json.RawMessage
			if !bytes.HasPrefix(a[list], []byte("[")) {
				t.Errorf("page %d: %s is %.20s, not a list", i+1, list, a[list])
			}
			json.Unmarshal(a[list], &items)
			for _, it := range items {
				seen[list+string(it)]++
			}
			want[list] -= len(items)
		}
	}
	for list, left := range want {
		if left != 0 {
			t.Errorf("%s: %d items more (or fewer) than the summary counts", list, -left)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("an item is on %d pages: %.120s", n, k)
		}
	}
	again := pages(t, s, "power/interconnection-queue", params)
	for i := range ps {
		if !bytes.Equal(ps[i], again[i]) {
			t.Errorf("page %d differs when asked again", i+1)
		}
	}
	var first struct {
		Summary struct {
			Next string `json:"next_cursor"`
		} `json:"summary"`
	}
	json.Unmarshal(ps[0], &first)
	for _, bad := range []string{
		`{"as_of":"2025-05-09","compare_as_of":"2025-01-17","group_by":["status"],"cursor":"` + first.Summary.Next + `"}`,
		`{"as_of":"2025-05-09","compare_as_of":"2025-01-17","cursor":"3.abc"}`,
		`{"as_of":"2025-05-09","cursor":"` + first.Summary.Next + `"}`,
	} {
		if _, e := s.QueryJSON(context.Background(), "power/interconnection-queue", []byte(bad)); e == nil || e.Code != apierror.CodeInvalidParameter {
			t.Errorf("%s: %v", bad, e)
		}
	}
}

// TestRecordPages: records beyond a page follow by cursor, in source order, each once, as
// many as matched; the answer's figures are the same on every page.
func TestRecordPages(t *testing.T) {
	s, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	ps := pages(t, s, "power/capacity", `{"as_of":"2016-05-31","filters":{"state":"CA"},"include_records":true,"limit":5000}`)
	if len(ps) < 2 {
		t.Fatalf("%d page(s)", len(ps))
	}
	var rows []string
	matched := 0
	var totals json.RawMessage
	for i, b := range ps {
		var a struct {
			Summary struct {
				Matched int             `json:"matched_source_rows"`
				Totals  json.RawMessage `json:"totals"`
			} `json:"summary"`
			Records []struct {
				Key string `json:"source_record_key"`
			} `json:"records"`
		}
		json.Unmarshal(b, &a)
		if i == 0 {
			matched, totals = a.Summary.Matched, a.Summary.Totals
		} else if !bytes.Equal(totals, a.Summary.Totals) {
			t.Errorf("page %d: other totals", i+1)
		}
		for _, r := range a.Records {
			rows = append(rows, r.Key)
		}
	}
	if len(rows) != matched {
		t.Errorf("%d records over %d pages, %d matched", len(rows), len(ps), matched)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r] {
			t.Errorf("record %s twice", r)
		}
		seen[r] = true
	}
}

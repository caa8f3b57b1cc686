package service

import (
	"bytes"
	"context"
	"testing"

	"github.com/citeq/citeq/internal/testenv"
)

// TestAnswerSpeaksOfOneCatalog: a query prepared before a reload promotes another snapshot
// citing the same raw file is answered as the catalog it was prepared in says, whole: its
// evidence's cited_by does not list the snapshot promoted since, and the latest is still the
// snapshot it resolved. Prepared again after the reload, the same query lists it.
func TestAnswerSpeaksOfOneCatalog(t *testing.T) {
	const later = "2024-07-10" // cites the raw files of 2023-02-28 again
	w := testenv.Withhold(t, testenv.Data(t), func(p map[string]map[string]string) {
		if p["natural_gas.prices"][later] == "" || p["natural_gas.prices"]["2023-02-28"] == "" {
			t.Skipf("natural_gas.prices 2023-02-28 and %s are not both served here", later)
		}
		delete(p["natural_gas.prices"], later)
	})
	svc, err := New(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	svc.SetCacheBytes(0)
	ctx := context.Background()
	queries := []struct{ name, body string }{
		{"pinned", `{"as_of":"2023-02-28","include_records":true,"include_evidence":true,"limit":5}`},
		{"latest", `{"group_by":["year"],"include_evidence":true}`},
	}
	prepare := func(body string) *Prepared {
		t.Helper()
		req, e := ParseBody([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		q, e := svc.Prepare("natural-gas/prices", req)
		if e != nil {
			t.Fatal(e)
		}
		return q
	}
	answer := func(q *Prepared) []byte {
		t.Helper()
		b, e := svc.Run(ctx, q)
		if e != nil {
			t.Fatal(e)
		}
		return b
	}
	before, held := map[string][]byte{}, map[string]*Prepared{}
	for _, q := range queries {
		before[q.name] = answer(prepare(q.body))
		held[q.name] = prepare(q.body)
		if bytes.Contains(before[q.name], []byte(`"as_of":"`+later+`"`)) {
			t.Fatalf("%s: the answer names %s before it is promoted", q.name, later)
		}
	}

	w.Promote(t)
	if changed, err := svc.Reload(); err != nil || !changed {
		t.Fatalf("reload: changed %v, %v", changed, err)
	}

	for _, q := range queries {
		if got := answer(held[q.name]); !bytes.Equal(got, before[q.name]) {
			t.Errorf("%s, prepared before the reload: not the answer of the catalog it was prepared in:\n got %.400s\nwant %.400s", q.name, got, before[q.name])
		}
		if got := answer(prepare(q.body)); !bytes.Contains(got, []byte(`"as_of":"`+later+`"`)) {
			t.Errorf("%s, prepared after the reload: %s is not named: %.400s", q.name, later, got)
		}
	}
}

package service

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/jsonw/jsonwtest"
)

// refAggregateCitation is the aggregate citation as an Obj, member by member: the
// reference citeWriter must render byte for byte.
func refAggregateCitation(c *capability.Capability, snap *Snapshot, p *Params, src columnar.Source, group Obj, excludes []Obj) (string, Obj) {
	t := snap.Table
	file := t.Col(capability.ColSourceFile).Values[src.File]
	ms := snap.sources[file]
	var sample []Obj
	for _, r := range src.Sample {
		sample = append(sample, Obj{{"sheet", text(t, capability.ColSheet, int(r))}, {"source_row", intText(t, capability.ColSourceRow, int(r))}})
	}
	var verify Obj
	if len(src.Sample) > 0 {
		verify = refRecordCitation(snap, int(src.Sample[0]))
	}
	filters := Obj{}
	for _, kv := range p.canonical(c) {
		if kv.K == "filters" {
			filters = append(filters, kv.V.(Obj)...)
		}
	}
	for _, kv := range group {
		if kv.V != OtherGroup {
			filters = append(filters, KV{kv.K, []any{kv.V}})
		}
	}
	lf := Obj{{"source_file", file}, {"raw_file_sha256", ms.SHA256}, {"filters", filters}}
	var ranges Obj
	for _, r := range c.DateRanges {
		if b, ok := p.Ranges[r.Name]; ok {
			ranges = append(ranges, KV{r.Column, Obj{{"from", b[0]}, {"to", b[1]}}})
		}
	}
	if ranges != nil {
		lf = append(lf, KV{"date_ranges", ranges})
	}
	for _, kv := range group {
		if kv.V == OtherGroup {
			lf = append(lf, KV{"excludes", orEmpty(excludes)})
			break
		}
	}
	body := Obj{
		{"source_id", ms.SourceID},
		{"publisher", ms.Publisher},
		{"source_url", ms.URL},
		{"source_file", file},
		{"raw_file_sha256", ms.SHA256},
		{"as_of", snap.Manifest.AsOf},
		{"source_rows_count", src.Rows},
		{"source_rows_sample", sample},
		{"verify", verify},
		{"lineage_filter", lf},
	}
	if c.SourceView {
		var sheets []string
		for _, sh := range src.Sheets {
			sheets = append(sheets, t.Col(capability.ColSheet).Values[sh])
		}
		body = append(body, KV{"source_view", Obj{{"title", ms.Title}, {"release", ms.Release}, {"sheets", sheets}}})
	}
	enc, err := jsonwtest.Reference(body)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(enc)
	return "c_" + hex.EncodeToString(sum[:8]), body
}

func refRecordCitation(snap *Snapshot, r int) Obj {
	t := snap.Table
	file := text(t, capability.ColSourceFile, r)
	return Obj{
		{"source_id", text(t, capability.ColSourceID, r)},
		{"source_url", snap.sources[file].URL},
		{"source_file", file},
		{"sheet", text(t, capability.ColSheet, r)},
		{"source_row", intText(t, capability.ColSourceRow, r)},
		{"raw_file_sha256", text(t, capability.ColRawSHA256, r)},
		{"as_of", snap.Manifest.AsOf},
	}
}

func TestCiteWriterMatchesObjCitations(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, params string }{
		{"power/capacity", `{}`},
		{"power/capacity", `{"group_by":["state"]}`},
		{"power/capacity", `{"as_of":"2016-05-31","filters":{"lifecycle":"planned"},"group_by":["technology"]}`},
		{"power/capacity", `{"filters":{"lifecycle":["retired","operating"],"state":["TX","RI"]},"group_by":["retirement_year","fuel_group"]}`},
		{"power/capacity", `{"operating_date_from":"2010","operating_date_to":"2012-06","group_by":["lifecycle"]}`},
		{"power/capacity", `{"filters":{"eia_plant_id":[3,"4"]},"group_by":["operating_year"]}`},
		{"power/capacity", `{"filters":{"state":"RI","lifecycle":"planned","fuel_group":"Coal"},"group_by":["state"]}`},
		// The same rows grouped two ways: the same sources, cited under different filters.
		{"power/capacity", `{"filters":{"eia_plant_id":3,"lifecycle":"operating"},"group_by":["state"]}`},
		{"power/capacity", `{"filters":{"eia_plant_id":3,"lifecycle":"operating"},"group_by":["lifecycle"]}`},
		{"natural-gas/prices", `{}`},
	}
	shared := newCiteCache(16 << 20)
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.params, func(t *testing.T) {
			raw, e := ParseBody([]byte(tc.params))
			if e != nil {
				t.Fatal(e)
			}
			q, e := svc.Prepare(tc.path, raw)
			if e != nil {
				t.Fatal(e)
			}
			c, snap, p := q.c, q.snap, q.params
			tb := snap.Table
			sel := tb.Filter(Predicates(c, tb, p))
			groups := tb.Group(sel, p.GroupBy)
			lineage := tb.Lineage(sel, groups, capability.ColSourceFile, capability.ColSheet, sampleRows)
			var filters Obj
			for _, kv := range p.canonical(c) {
				if kv.K == "filters" {
					filters = kv.V.(Obj)
				}
			}
			// Without a cache, then with the one all cases share: first without, then with
			// this case's citations (and always with those of the cases before).
			for _, cache := range []*citeCache{nil, shared, shared} {
				w := newCiteWriter(c, snap, p, filters, nil, cache)
				want := map[string]Obj{}
				var excludes []Obj // the groups before (other)
				check := func(srcs []columnar.Source, group Obj) {
					t.Helper()
					got := w.refs(srcs, group)
					if len(got) != len(srcs) {
						t.Fatalf("%d refs for %d sources", len(got), len(srcs))
					}
					for i, src := range srcs {
						ref, body := refAggregateCitation(c, snap, p, src, group, excludes)
						if got[i] != ref {
							t.Errorf("group %v source %d: id %s, want %s", group, i, got[i], ref)
						}
						want[ref] = body
					}
				}
				var all []columnar.Source
				for gi := 0; gi < groups.N; gi++ {
					group := Obj{}
					for k, col := range groups.Keys {
						f, _ := c.Field(p.GroupBy[k])
						if code := groups.Codes[gi][k]; code < 0 {
							group = append(group, KV{p.GroupBy[k], nil})
						} else {
							group = append(group, KV{p.GroupBy[k], typed(f.Type, col.Values[code])})
						}
					}
					check(lineage[gi], group)
					all = append(all, lineage[gi]...)
				}
				if len(p.GroupBy) > 0 && len(all) > 0 {
					other := Obj{}
					for _, name := range p.GroupBy {
						other = append(other, KV{name, OtherGroup})
					}
					for _, first := range []int{0, 1} { // (other) after no group, and after the first
						excludes = nil
						if first > 0 {
							g := Obj{}
							for k, col := range groups.Keys {
								f, _ := c.Field(p.GroupBy[k])
								if code := groups.Codes[0][k]; code < 0 {
									g = append(g, KV{p.GroupBy[k], nil})
								} else {
									g = append(g, KV{p.GroupBy[k], typed(f.Type, col.Values[code])})
								}
							}
							excludes = []Obj{g}
						}
						w.setExcludes(excludes)
						check(foldOther([]outRow{{sources: all}}, len(p.GroupBy)).sources, other)
					}
					excludes = nil
				}
				check([]columnar.Source{{File: 0}}, Obj{}) // no rows, no sample, no sheets
				// The citations member, without and with evidence (the evidence of the reference
				// is that of its verify member).
				for _, evidence := range []bool{false, true} {
					if evidence && len(want) > 3 {
						continue // evidence re-reads the raw files: keep it to the small cases
					}
					ref := Obj{}
					for _, id := range sortedKeys(want) {
						body := want[id]
						if evidence {
							var verify Obj
							for _, kv := range body {
								if kv.K == "verify" {
									verify = kv.V.(Obj)
								}
							}
							ev, e := svc.evidenceFor(mustJSON(verify))
							if e != nil {
								ev = Obj{{"verified", false}, {"error", Obj{{"code", e.Code}, {"message", e.Message}}}}
							}
							body = append(body[:len(body):len(body)], KV{"evidence", ev})
						}
						ref = append(ref, KV{id, body})
					}
					wantJSON, err := jsonwtest.Reference(ref)
					if err != nil {
						t.Fatal(err)
					}
					var run *verifyRun
					if evidence {
						run = svc.newVerifyRun(nil)
					}
					if got := bytes.Join(w.citationPieces(nil, svc, run), nil); !bytes.Equal(got, wantJSON) {
						t.Errorf("evidence %v: citations differ:\n got %.600s\nwant %.600s", evidence, got, wantJSON)
					}
				}
			}
		})
	}
}

func sortedKeys(m map[string]Obj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestCiteCache(t *testing.T) {
	entry := func(id citeID) cachedCite { return cachedCite{id: id, json: []byte(`{"x":1}`), verifyRow: 7} }
	size := len("k0") + len(`{"x":1}`) + 64 // one entry, as add counts it
	for _, tc := range []struct {
		name    string
		max     int
		put     []string
		get     []string // gets before the checks, in order
		present []string
		absent  []string
	}{
		{"off", 0, []string{"k0"}, nil, nil, []string{"k0"}},
		{"too big for a generation", size - 1, []string{"k0"}, nil, nil, []string{"k0"}},
		{"one generation", 3 * size, []string{"k0", "k1", "k2"}, nil, []string{"k0", "k1", "k2"}, nil},
		{"the older generation still answers", 2 * size, []string{"k0", "k1", "k2"}, nil, []string{"k0", "k1", "k2"}, nil},
		{"the oldest is dropped", 2 * size, []string{"k0", "k1", "k2", "k3", "k4"}, nil, []string{"k2", "k3", "k4"}, []string{"k0", "k1"}},
		{"a hit in the older generation survives", 2 * size, []string{"k0", "k1", "k2"}, []string{"k0"}, []string{"k0", "k2"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCiteCache(tc.max)
			for _, k := range tc.put {
				c.put([]byte(k), entry(citeID(k[1])))
			}
			for _, k := range tc.get {
				c.get([]byte(k))
			}
			for _, k := range tc.present {
				v, ok := c.get([]byte(k))
				if !ok || v.id != citeID(k[1]) || string(v.json) != `{"x":1}` || v.verifyRow != 7 {
					t.Errorf("%s: %+v, %v", k, v, ok)
				}
			}
			for _, k := range tc.absent {
				if _, ok := c.get([]byte(k)); ok {
					t.Errorf("%s still cached", k)
				}
			}
		})
	}
	var nilCache *citeCache
	nilCache.put([]byte("k"), entry(0))
	if _, ok := nilCache.get([]byte("k")); ok {
		t.Error("a nil cache answered")
	}
}

// TestSortCitations checks sortCitations against a plain sort, ids repeated or not, in runs
// of one top byte and across them.
func TestSortCitations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n    int
		mask uint64 // of the random ids
	}{{0, ^uint64(0)}, {1, ^uint64(0)}, {255, ^uint64(0)}, {256, ^uint64(0)}, {5000, ^uint64(0)}, {5000, 0xff00_0000_0000_00ff}, {3000, 0x0f}, {3000, 0xff}} {
		c := make([]citation, tc.n)
		for i := range c {
			c[i] = citation{id: citeID(r.Uint64() & tc.mask), start: i}
		}
		want := slices.Clone(c)
		slices.SortStableFunc(want, func(a, b citation) int { return cmp.Compare(a.id, b.id) })
		got := sortCitations(slices.Clone(c))
		if len(got) != len(want) {
			t.Fatalf("n %d: %d citations, want %d", tc.n, len(got), len(want))
		}
		for i := range got {
			if got[i].id != want[i].id {
				t.Fatalf("n %d mask %x: position %d has id %x, want %x", tc.n, tc.mask, i, got[i].id, want[i].id)
			}
		}
		seen := map[int]bool{}
		for _, x := range got {
			seen[x.start] = true
		}
		if len(seen) != tc.n {
			t.Errorf("n %d: %d distinct citations kept", tc.n, len(seen))
		}
	}
}

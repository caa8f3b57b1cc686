package service

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/jsonw/jsonwtest"
)

// decodeOrdered decodes one JSON value keeping the order of object members (as Obj) and
// numbers as written (json.Number).
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := Obj{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, KV{k.(string), v})
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		_, err := dec.Token()
		return l, err
	}
	return tok, nil
}

// TestQueryPayloadsAreCanonicalJSON: a query payload, rendered directly, is exactly what
// encoding/json writes for the same members in the same order.
func TestQueryPayloadsAreCanonicalJSON(t *testing.T) {
	svc, err := New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, params string }{
		{"power/capacity", `{}`},
		{"power/capacity", `{"as_of":"2016-05-31","filters":{"lifecycle":"planned"},"group_by":["technology"],"order_by":"net_summer_mw","top_n":3}`},
		{"power/capacity", `{"group_by":["state","operating_year"],"order_by":"distinct_plant_count","top_n":40,"order":"asc"}`},
		{"power/capacity", `{"filters":{"lifecycle":"retired"},"group_by":["retirement_year"],"order_by":"generator_count","top_n":2,"rollup_other":false}`},
		{"power/capacity", `{"operating_date_from":"2010","operating_date_to":"2012-06","group_by":["lifecycle"],"include_records":true,"limit":3}`},
		{"power/capacity", `{"filters":{"state":"RI"},"group_by":["fuel_group"],"include_evidence":true}`},
		{"natural-gas/prices", `{"include_records":true,"limit":2}`},
	} {
		t.Run(tc.path+" "+tc.params, func(t *testing.T) {
			got, e := svc.QueryJSON(context.Background(), tc.path, []byte(tc.params))
			if e != nil {
				t.Fatal(e)
			}
			dec := json.NewDecoder(bytes.NewReader(got))
			dec.UseNumber()
			v, err := decodeOrdered(dec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsonwtest.Reference(v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("differs at byte %d:\n got …%s\nwant …%s", i, got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
			}
		})
	}
}

// TestNoteFastPaths checks the notes a many-group answer writes straight to bytes against
// jsonw's rendering of the same note: the null-row note of each metric that has one, and
// the periods_present notes of groups with the most periods and with fewer.
func TestNoteFastPaths(t *testing.T) {
	n := 0
	for _, c := range capability.All() {
		for _, m := range c.Metrics {
			if m.NullNote == "" {
				continue
			}
			for _, rows := range []int64{1, 7, 1234567} {
				n++
				if got, want := writeNullNote(jsonw.Buf{}, m, rows).Bytes(), mustJSON(nullNote(m, rows)); string(got) != string(want) {
					t.Errorf("%s %s %d: got %s, want %s", c.ID, m.Name, rows, got, want)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no metric has a null note")
	}
	d := &declared{field: "period", value: "price <\"x\">", periods: []int64{3, 12, 3, 12, 1}, most: 12}
	d.render()
	for gi, periods := range d.periods {
		msg := fmt.Sprintf("this group has a %s for %d periods (%s), the most any group of this answer has", d.value, periods, d.field)
		if periods < d.most {
			msg = fmt.Sprintf("this group has a %s for %d periods (%s) where other groups of this answer have up to %d: its figures cover fewer periods than theirs", d.value, periods, d.field, d.most)
		}
		want := append([]byte(`{"a":1},`), mustJSON(Obj{{"code", NotePeriodsPresent}, {"field", d.field}, {"periods", periods}, {"most", d.most}, {"message", msg}})...)
		if w := d.writeRow(jsonw.NewBuf([]byte(`{"a":1}`)), gi).Bytes(); string(w) != string(want) {
			t.Errorf("group %d: got %s, want %s", gi, w, want)
		}
	}
}

// TestNameConstants checks that each member name written as a constant is its name as
// jsonw.NameOf renders it.
func TestNameConstants(t *testing.T) {
	for name, n := range map[string]jsonw.Name{
		"as_of":              nAsOf,
		"citation":           nCitation,
		"citation_ref":       nCitationRef,
		"citation_refs":      nCitationRefs,
		"code":               nCode,
		"count":              nCount,
		"derived":            nDerived,
		"excludes":           nExcludes,
		"group":              nGroup,
		"lineage":            nLineage,
		"message":            nMessage,
		"metric":             nMetric,
		"metrics":            nMetrics,
		"notes":              nNotes,
		"original_page":      nOriginalPage,
		"original_url":       nOriginalURL,
		"raw_file_sha256":    nRawFileSHA256,
		"sheet":              nSheet,
		"source_file":        nSourceFile,
		"source_id":          nSourceID,
		"source_row":         nSourceRow,
		"source_rows_count":  nSourceRowsCount,
		"source_rows_sample": nSourceRowsSample,
		"source_url":         nSourceURL,
		"verify":             nVerify,
	} {
		if n != jsonw.NameOf(name) {
			t.Errorf("%s: the constant is %s, jsonw renders %s", name, n, jsonw.NameOf(name))
		}
	}
}

package service

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/testenv"
)

// refObj is Obj as encoding/json renders it member by member: the reference the direct
// renderer must match byte for byte.
type refObj []KV

func (o refObj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.K)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(toRef(kv.V))
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// toRef replaces every Obj within v by a refObj.
func toRef(v any) any {
	switch v := v.(type) {
	case Obj:
		if v == nil {
			return refObj(nil)
		}
		out := make(refObj, len(v))
		for i, kv := range v {
			out[i] = KV{kv.K, toRef(kv.V)}
		}
		return out
	case []Obj:
		if v == nil {
			return []refObj(nil)
		}
		out := make([]refObj, len(v))
		for i, o := range v {
			out[i] = toRef(o).(refObj)
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toRef(x)
		}
		return out
	}
	return v
}

func TestRenderJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"é ü 日本", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 🙂", "/slash"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1167975.9000000001, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678, 3.14159, -2.5e-10, math.MaxFloat64, math.SmallestNonzeroFloat64}
	var cases []any
	for _, s := range strs {
		cases = append(cases, s, Obj{{s, s}}, []string{s}, []any{s})
	}
	for _, f := range floats {
		cases = append(cases, f, Num{V: f, Valid: true}, Obj{{"f", f}, {"n", Num{V: f, Valid: true}}})
	}
	cases = append(cases,
		nil, true, false, 0, -7, int64(1)<<62, int32(-5), uint8(3), float32(0.1),
		Obj{}, Obj(nil), []Obj(nil), []Obj{}, []string(nil), []string{}, []any(nil), []any{}, Num{}, Num{V: math.NaN(), Valid: true}, Num{V: math.Inf(1), Valid: true},
		Obj{{"a", nil}, {"b", Obj(nil)}, {"c", []Obj{{{"x", 1}}, nil}}, {"d", []any{1, "2", 3.5, nil, true, Obj{{"e", []string{"f"}}}}}},
		Obj{{"map", map[string]any{"z": 1, "a": Obj{{"k", "<v>"}}}}, {"ints", []int64{1, 2}}, {"raw", json.RawMessage(`{ "a" : 1 }`)}, {"num", json.Number("12.50")}},
		map[string]Obj{"x": {{"y", "z"}}},
	)
	for i, v := range cases {
		want, wantErr := marshal(toRef(v))
		got, gotErr := renderJSON(v)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("case %d %#v: error %v, want %v", i, v, gotErr, wantErr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("case %d %#v:\n got %s\nwant %s", i, v, got, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := renderJSON(Obj{{"f", f}}); err == nil {
			t.Errorf("%v: no error", f)
		}
	}
}

func FuzzRenderString(f *testing.F) {
	for _, s := range []string{"", "a", "<&>", "\u2028", "\xff", "\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Obj{{s, s}, {"l", []string{s}}}
		want, _ := marshal(toRef(v))
		got, _ := renderJSON(v)
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

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
			got, e := svc.QueryJSON(tc.path, []byte(tc.params))
			if e != nil {
				t.Fatal(e)
			}
			dec := json.NewDecoder(bytes.NewReader(got))
			dec.UseNumber()
			v, err := decodeOrdered(dec)
			if err != nil {
				t.Fatal(err)
			}
			want, err := marshal(toRef(v))
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

// TestNumFastPath checks Num.appendJSON against the rounding it shortcuts: the shortest 'f'
// form of the value rounded to 15 significant digits, over values with 15 or fewer
// significant digits, with more, integers, values of full precision at every scale, and at
// the ends of the range.
func TestNumFastPath(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1167975.9, 1167975.9000000781, 1e21, 1e-7, 123456789012345,
		1234567890123456, 12345678901234567, 0.30000000000000004, 2.5e-300, 1.7976931348623157e308, -4.9e-324, 99999999999999.99,
		999999999999999.9, 1e15 + 0.3, 100, 1e20, 999999999999999, -999999999999999, 1e15, -1e15, 1e15 - 2, 1 << 49, -78, 4805151,
		35.64, -0.05, 0.0001, -0.0001, 0.00001, 1484.79, 833.9595, 6.7, 123456789012.345, 99999999999.9999, 999999999999.9999, 0.1 + 0.2}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		vals = append(vals, r.NormFloat64()*math.Pow(10, float64(r.IntN(40)-20)), math.Round(r.Float64()*1e6)/100,
			math.Round(r.NormFloat64()*math.Pow(10, float64(r.IntN(18)))), math.Round(r.NormFloat64()*1e8)/1e4,
			math.Round(r.NormFloat64()*math.Pow(10, float64(r.IntN(16))))/math.Pow(10, float64(r.IntN(6))))
	}
	// Values of full precision at every scale the range allows, and their neighbours.
	for range 300000 {
		v := (r.Float64() + 0.5) * math.Pow(10, float64(r.IntN(614)-307))
		if r.IntN(2) == 0 {
			v = -v
		}
		vals = append(vals, v, math.Nextafter(v, math.Inf(1)), math.Nextafter(v, math.Inf(-1)))
	}
	for _, v := range vals {
		got, err := Num{V: v, Valid: true}.appendJSON(nil)
		c := clean(v)
		if math.IsInf(c, 0) {
			if err == nil {
				t.Errorf("%v: no error, want one", v)
			}
			continue
		}
		want := strconv.AppendFloat(nil, c, 'f', -1, 64)
		if err != nil || string(got) != string(want) {
			t.Errorf("%v: got %s (%v), want %s", v, got, err, want)
		}
	}
}

// TestNoteFastPaths checks the notes a many-group answer writes straight to bytes against
// appendObj's rendering of the same note: the null-row note of each metric that has one, and
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
				if got, want := appendNullNote(nil, m, rows), appendObjOrPanic(nil, nullNote(m, rows)); string(got) != string(want) {
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
		want := appendObjOrPanic([]byte(`{"a":1},`), Obj{{"code", NotePeriodsPresent}, {"field", d.field}, {"periods", periods}, {"most", d.most}, {"message", msg}})
		if got := d.appendRow([]byte(`{"a":1}`), gi); string(got) != string(want) {
			t.Errorf("group %d: got %s, want %s", gi, got, want)
		}
	}
}

package jsonw_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/jsonw/jsonwtest"
)

func TestRenderJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"é ü 日本", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 🙂", "/slash"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1167975.9000000001, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678, 3.14159, -2.5e-10, math.MaxFloat64, math.SmallestNonzeroFloat64}
	var cases []any
	for _, s := range strs {
		cases = append(cases, s, jsonw.Obj{{s, s}}, []string{s}, []any{s})
	}
	for _, f := range floats {
		cases = append(cases, f, jsonw.Num{V: f, Valid: true}, jsonw.Obj{{"f", f}, {"n", jsonw.Num{V: f, Valid: true}}})
	}
	cases = append(cases,
		nil, true, false, 0, -7, int64(1)<<62, int32(-5), uint8(3), float32(0.1),
		jsonw.Obj{}, jsonw.Obj(nil), []jsonw.Obj(nil), []jsonw.Obj{}, []string(nil), []string{}, []any(nil), []any{}, jsonw.Num{}, jsonw.Num{V: math.NaN(), Valid: true}, jsonw.Num{V: math.Inf(1), Valid: true},
		jsonw.Obj{{"a", nil}, {"b", jsonw.Obj(nil)}, {"c", []jsonw.Obj{{{"x", 1}}, nil}}, {"d", []any{1, "2", 3.5, nil, true, jsonw.Obj{{"e", []string{"f"}}}}}},
		jsonw.Obj{{"map", map[string]any{"z": 1, "a": jsonw.Obj{{"k", "<v>"}}}}, {"ints", []int64{1, 2}}, {"raw", json.RawMessage(`{ "a" : 1 }`)}, {"num", json.Number("12.50")}},
		map[string]jsonw.Obj{"x": {{"y", "z"}}},
	)
	for i, v := range cases {
		want, wantErr := jsonwtest.Reference(v)
		got, gotErr := jsonw.Render(v)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("case %d %#v: error %v, want %v", i, v, gotErr, wantErr)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("case %d %#v:\n got %s\nwant %s", i, v, got, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := jsonw.Render(jsonw.Obj{{"f", f}}); err == nil {
			t.Errorf("%v: no error", f)
		}
	}
}

func FuzzRenderString(f *testing.F) {
	for _, s := range []string{"", "a", "<&>", "\u2028", "\xff", "\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := jsonw.Obj{{s, s}, {"l", []string{s}}}
		want, _ := jsonwtest.Reference(v)
		got, _ := jsonw.Render(v)
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
	})
}

// TestNumFastPath checks jsonw.Num.appendJSON against the rounding it shortcuts: the shortest 'f'
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
		got, err := jsonw.Num{V: v, Valid: true}.AppendJSON(nil)
		c := jsonw.Clean(v)
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

// TestBufCommas checks that a Buf writes the commas between members and elements, and none
// after an opening, a name, a comma or at the start, whatever writes the pieces.
func TestBufCommas(t *testing.T) {
	cases := []struct {
		name  string
		write func(b jsonw.Buf) (jsonw.Buf, error)
		want  string
	}{
		{"object of every value", func(b jsonw.Buf) (jsonw.Buf, error) {
			b = b.OpenObj().KeyString("s", "<a>").Name(jsonw.NameOf("n<")).String("named").KeyInt("i", -7)
			b = b.Key("b").Bool(true).Key("z").Null()
			var err error
			if b, err = b.Key("<h>").Num(jsonw.Num{V: 1167975.9000000001, Valid: true}); err != nil {
				return b, err
			}
			if b, err = b.Key("f").Float(1e-7); err != nil {
				return b, err
			}
			if b, err = b.Key("o").Obj(jsonw.Obj{{"x", 1}}); err != nil {
				return b, err
			}
			if b, err = b.Key("v").Value([]string{"p", "q"}); err != nil {
				return b, err
			}
			return b.CloseObj(), nil
		}, `{"s":"<a>","n\u003c":"named","i":-7,"b":true,"z":null,"\u003ch\u003e":1167975.9,"f":1e-7,"o":{"x":1},"v":["p","q"]}`},
		{"arrays of arrays and objects", func(b jsonw.Buf) (jsonw.Buf, error) {
			b = b.OpenArr().OpenArr().CloseArr().OpenArr().Int(1).Int(2).CloseArr()
			b = b.OpenObj().CloseObj().OpenObj().Key("a").OpenArr().String("b").CloseArr().CloseObj()
			return b.CloseArr(), nil
		}, `[[],[1,2],{},{"a":["b"]}]`},
		{"members rendered before, and an empty piece", func(b jsonw.Buf) (jsonw.Buf, error) {
			b = b.OpenObj().Raw(nil).Raw([]byte(`"a":1,"b":2`)).Raw(nil).Raw([]byte(`"c":`)).Raw([]byte(`[3]`))
			return b.KeyJSON([]byte(`"d"`)).Raw([]byte(`"e"`)).CloseObj(), nil
		}, `{"a":1,"b":2,"c":[3],"d":"e"}`},
		{"members of an object", func(b jsonw.Buf) (jsonw.Buf, error) {
			b, err := b.OpenObj().KeyInt("a", 1).Members(jsonw.Obj{{"b", "<"}, {"c", nil}})
			return b.CloseObj(), err
		}, `{"a":1,"b":"<","c":null}`},
		{"values back to back, and a comma written", func(b jsonw.Buf) (jsonw.Buf, error) {
			b = b.OpenObj().CloseObj().Append([]byte(`{"x":`)).Int(1).CloseObj()
			return b.Comma().Key("y").Int(2), nil
		}, `{}{"x":1},"y":2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.write(jsonw.Buf{})
			if err != nil {
				t.Fatal(err)
			}
			if string(b.Bytes()) != c.want {
				t.Errorf("got  %s\nwant %s", b.Bytes(), c.want)
			}
		})
	}
	for _, c := range []struct{ before, want string }{
		{`{"a":1`, `{"a":1,"b":2`}, {`[`, `["b":2`}, {`{"a":`, `{"a":"b":2`}, {``, `"b":2`},
	} {
		b := jsonw.NewBuf([]byte(c.before)).Key("b").Int(2)
		if string(b.Bytes()) != c.want {
			t.Errorf("NewBuf(%s): got %s, want %s", c.before, b.Bytes(), c.want)
		}
		if b = b.Reset().Int(3); string(b.Bytes()) != "3" || b.Len() != 1 {
			t.Errorf("NewBuf(%s), reset: got %s", c.before, b.Bytes())
		}
	}
	if got, want := string(jsonw.Member("a<b")), `,"a\u003cb":`; got != want {
		t.Errorf("Member: got %s, want %s", got, want)
	}
	if _, err := (jsonw.Buf{}).Float(math.Inf(1)); err == nil {
		t.Error("Float(+Inf): no error")
	}
}

// TestBufAllocs checks that a Buf over a buffer large enough writes without allocating.
func TestBufAllocs(t *testing.T) {
	b := jsonw.NewBuf(make([]byte, 0, 1024))
	name := jsonw.NameOf("name")
	allocs := testing.AllocsPerRun(100, func() {
		b = b.Reset().OpenObj().Name(name).String("value").Key("n").Int(12345).Key("x")
		b, _ = b.Num(jsonw.Num{V: 2.5, Valid: true})
		b = b.Raw([]byte(`"k":true`)).CloseObj()
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}

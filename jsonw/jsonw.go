// Package jsonw writes JSON whose objects keep their members' order (Obj), byte for byte
// what encoding/json writes for the same values, without its reflection for the types the
// service builds its payloads from. It sits at the bottom of the import graph: service and
// the packages it calls (derive) build their payloads and notes from its types.
package jsonw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Obj is a JSON object whose members keep their order, so payloads read in definition order
// and are byte-for-byte reproducible.
type Obj []KV

// KV is one member of an Obj. It names an unnamed struct type, so that a document built in
// any package (the OpenAPI document in api) writes its members as {"name", value}, as here.
type KV = struct {
	K string
	V any
}

// With is o followed by kv.
func (o Obj) With(kv ...KV) Obj { return append(o, kv...) }

// MarshalJSON implements json.Marshaler.
func (o Obj) MarshalJSON() ([]byte, error) {
	return AppendObj(make([]byte, 0, 64*len(o)+2), o)
}

// The payloads are rendered by AppendValue, which writes exactly what encoding/json writes
// for the same values (HTML characters are escaped in member names only, as json.Marshal
// does, and kept as they are in values) without its reflection and without re-validating
// every nested object: the types the service builds its payloads from are written directly,
// anything else goes through encoding/json.

// RawJSON is a value already rendered as compact JSON (by AppendValue), written as is.
type RawJSON []byte

// AppendObj appends o rendered as a JSON object.
func AppendObj(b []byte, o Obj) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i, kv := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, kv.K, true)
		b = append(b, ':')
		if b, err = AppendValue(b, kv.V); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendValue appends v rendered as JSON, as encoding/json renders it (Obj members in
// order, HTML characters kept as they are in values).
func AppendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case Obj:
		return AppendObj(b, v)
	case RawJSON:
		return append(b, v...), nil
	case string:
		return AppendString(b, v, false), nil
	case Num:
		return v.AppendJSON(b)
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case float64:
		return AppendFloat(b, v)
	case []Obj:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i, o := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendObj(b, o); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = AppendValue(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, s, false)
		}
		return append(b, ']'), nil
	}
	enc, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// AppendFloat writes f as encoding/json does: like %g, with the exponent cutoffs of ES6.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// AppendString writes s as a JSON string as encoding/json does; escapeHTML also escapes <, >
// and &.
func AppendString(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are escaped, as encoding/json does (they break JSONP).
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Marshal is encoding/json without HTML escaping and without the trailing newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// MustMarshal is Marshal for a value built from literals (a tool's input schema, the server
// card) that cannot fail to encode; it panics otherwise.
func MustMarshal(v any) []byte {
	b, err := Marshal(v)
	if err != nil {
		panic(fmt.Errorf("jsonw: encode a literal value: %w", err))
	}
	return b
}

// Render renders v as compact JSON, as Marshal does.
func Render(v any) ([]byte, error) {
	return AppendValue(nil, v)
}

// MustRender is Render for a value that cannot fail to render (no NaN, no infinity, no
// failing Marshaler); it panics otherwise.
func MustRender(v any) []byte {
	b, err := Render(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Num is a metric value: null, or a number written with at most 15 significant digits, so
// the binary noise of floating-point sums (1167975.9000000001) never reaches a response.
type Num struct {
	V     float64
	Valid bool
}

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.Valid || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, Clean(n.V), 'f', -1, 64), nil
}

// AppendJSON writes n as MarshalJSON does; a value that rounds beyond the float64 range is
// an error, as encoding/json makes it.
func (n Num) AppendJSON(b []byte) ([]byte, error) {
	if !n.Valid || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return append(b, "null"...), nil
	}
	// Fast path: when the shortest decimal of V has at most 15 significant digits, rounding
	// to 15 digits gives V back (V lies within half an ulp of that decimal, far inside half a
	// step of the 15-digit grid), so Clean(V) is V and its shortest 'f' form is the answer.
	if n.V == 0 {
		return append(b, '0'), nil
	}
	// An integer below 10^15 in magnitude is its own shortest decimal, of at most 15 digits.
	if n.V > -1e15 && n.V < 1e15 && n.V == math.Trunc(n.V) {
		return strconv.AppendInt(b, int64(n.V), 10), nil
	}
	// So is m·10^-k, for the fewest decimals k (up to 4) and an integer m below 10^15 in
	// magnitude with V == m/10^k: that quotient of exact values is correctly rounded, so
	// the decimal rounds to V, and no other decimal of at most 15 significant digits does.
	for k := 1; k <= 4; k++ {
		m := math.Round(n.V * pow10[k])
		if m > -1e15 && m < 1e15 && m/pow10[k] == n.V {
			return appendDecimal(b, int64(m), k), nil
		}
	}
	if a := math.Abs(n.V); a > 1e-300 && a < 1e300 {
		return appendRounded(b, n.V), nil
	}
	start := len(b)
	b = strconv.AppendFloat(b, n.V, 'f', -1, 64)
	if significantDigits(b[start:]) <= 15 {
		return b, nil
	}
	b = b[:start]
	c := Clean(n.V)
	if math.IsInf(c, 0) {
		return nil, fmt.Errorf("json: unsupported value: %v rounds to %v", n.V, c)
	}
	return strconv.AppendFloat(b, c, 'f', -1, 64), nil
}

var pow10 = [...]float64{1, 10, 100, 1000, 10000}

// appendRounded writes v, a normal float64 (not near the ends of the range), as Clean(v) in
// shortest 'f' form, from the one formatting of v to 15 significant digits. For such a value
// the 15-digit decimals lie further apart than the interval of reals that round to one
// float64, so at most one of them rounds to any float64: the decimal d nearest v is the
// shortest decimal of v when that has at most 15 digits, and else of Clean(v), which d
// rounds to; either way the answer is d without its trailing zeros.
func appendRounded(b []byte, v float64) []byte {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], v, 'e', 14, 64) // [-]d.dddddddddddddde±dd[d]
	if e[0] == '-' {
		b = append(b, '-')
		e = e[1:]
	}
	var digits [15]byte
	digits[0] = e[0]
	copy(digits[1:], e[2:16])
	nd := 15
	for nd > 1 && digits[nd-1] == '0' {
		nd--
	}
	exp := 0
	for _, c := range e[18:] {
		exp = exp*10 + int(c-'0')
	}
	if e[17] == '-' {
		exp = -exp
	}
	switch {
	case exp < 0:
		b = append(b, '0', '.')
		for range -exp - 1 {
			b = append(b, '0')
		}
		return append(b, digits[:nd]...)
	case exp+1 >= nd:
		b = append(b, digits[:nd]...)
		for range exp + 1 - nd {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, digits[:exp+1]...)
	b = append(b, '.')
	return append(b, digits[exp+1:nd]...)
}

// appendDecimal writes m·10^-k in 'f' form (m not a multiple of 10).
func appendDecimal(b []byte, m int64, k int) []byte {
	if m < 0 {
		b = append(b, '-')
		m = -m
	}
	var d [20]byte
	digits := strconv.AppendInt(d[:0], m, 10)
	if len(digits) <= k {
		b = append(b, '0', '.')
		for range k - len(digits) {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[:len(digits)-k]...)
	b = append(b, '.')
	return append(b, digits[len(digits)-k:]...)
}

// significantDigits counts the digits of a number written in 'f' form from its first
// non-zero digit to its last.
func significantDigits(f []byte) int {
	first, last, n := -1, -1, 0
	for _, c := range f {
		if c < '0' || c > '9' {
			continue
		}
		if c != '0' {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	if first < 0 {
		return 0
	}
	return last - first + 1
}

// Clean is v rounded to 15 significant digits (no negative zero): the value a Num writes.
func Clean(v float64) float64 {
	c, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if c == 0 {
		return 0 // no negative zero
	}
	return c
}

// Writer assembles JSON in B, in order: each method writes one piece (the opening or close
// of an object or array, a member's name, a value) and the comma the piece takes before it,
// which it reads from the last byte written (none after an opening, a name or a comma, and
// none in an empty B). Its methods allocate only to grow B, so a Writer over a pooled buffer
// renders without allocating. Pieces rendered before are written with Raw, which takes the
// comma too, or Append, which takes none (citations written back to back, a piece whose
// comma is written with Comma because what comes before it is joined in later).
type Writer struct {
	B []byte
}

// sep writes the comma a value or member written now takes.
func (w *Writer) sep() {
	if n := len(w.B); n > 0 && !noComma[w.B[n-1]] {
		w.B = append(w.B, ',')
	}
}

// noComma are the last bytes written after which a value or member takes no comma.
var noComma = [256]bool{'{': true, '[': true, ',': true, ':': true}

// Comma writes a comma.
func (w *Writer) Comma() { w.B = append(w.B, ',') }

// OpenObj opens an object.
func (w *Writer) OpenObj() { w.sep(); w.B = append(w.B, '{') }

// CloseObj closes an object.
func (w *Writer) CloseObj() { w.B = append(w.B, '}') }

// OpenArr opens an array.
func (w *Writer) OpenArr() { w.sep(); w.B = append(w.B, '[') }

// CloseArr closes an array.
func (w *Writer) CloseArr() { w.B = append(w.B, ']') }

// Key writes the name of a member and its colon (HTML characters escaped, as encoding/json
// escapes them in names).
func (w *Writer) Key(name string) {
	w.sep()
	w.B = append(AppendString(w.B, name, true), ':')
}

// Name is the name of a member rendered once, as Key writes it: quoted (HTML characters
// escaped) and followed by its colon. The names written on every row or citation of an
// answer are Names, so a row copies them rather than escaping them again.
type Name []byte

// NameOf is name rendered as a Name.
func NameOf(name string) Name {
	return append(AppendString(make(Name, 0, len(name)+3), name, true), ':')
}

// Name writes the name of a member rendered once, n.
func (w *Writer) Name(n Name) {
	w.sep()
	w.B = append(w.B, n...)
}

// KeyJSON writes the name of a member rendered before as a JSON string, and its colon.
func (w *Writer) KeyJSON(quoted []byte) {
	w.sep()
	w.B = append(append(w.B, quoted...), ':')
}

// String writes s as a JSON string (HTML characters kept as they are).
func (w *Writer) String(s string) { w.sep(); w.B = AppendString(w.B, s, false) }

// KeyString writes a member whose value is the string s.
func (w *Writer) KeyString(name, s string) { w.Key(name); w.String(s) }

// KeyInt writes a member whose value is n.
func (w *Writer) KeyInt(name string, n int64) { w.Key(name); w.Int(n) }

// Int writes n.
func (w *Writer) Int(n int64) { w.sep(); w.B = strconv.AppendInt(w.B, n, 10) }

// Bool writes b.
func (w *Writer) Bool(b bool) { w.sep(); w.B = strconv.AppendBool(w.B, b) }

// Null writes null.
func (w *Writer) Null() { w.sep(); w.B = append(w.B, "null"...) }

// Num writes n as Num.AppendJSON does.
func (w *Writer) Num(n Num) (err error) {
	w.sep()
	w.B, err = n.AppendJSON(w.B)
	return err
}

// Float writes f as AppendFloat does.
func (w *Writer) Float(f float64) (err error) {
	w.sep()
	w.B, err = AppendFloat(w.B, f)
	return err
}

// Value writes v as AppendValue does.
func (w *Writer) Value(v any) (err error) {
	w.sep()
	w.B, err = AppendValue(w.B, v)
	return err
}

// Obj writes o as AppendObj does.
func (w *Writer) Obj(o Obj) (err error) {
	w.sep()
	w.B, err = AppendObj(w.B, o)
	return err
}

// Members writes the members of o, without the braces around them, as AppendObj writes
// them.
func (w *Writer) Members(o Obj) error {
	for _, kv := range o {
		w.Key(kv.K)
		if err := w.Value(kv.V); err != nil {
			return err
		}
	}
	return nil
}

// Raw writes b, a piece rendered before (a value, members, or the name that opens a member),
// after the comma it takes; an empty b writes nothing.
func (w *Writer) Raw(b []byte) {
	if len(b) > 0 {
		w.sep()
		w.B = append(w.B, b...)
	}
}

// Append writes b as it is, with no comma before it.
func (w *Writer) Append(b []byte) { w.B = append(w.B, b...) }

// Member is the opening of a member that follows another, rendered once: a comma, the
// name and its colon.
func Member(name string) []byte {
	w := Writer{B: []byte{','}}
	w.Key(name)
	return w.B
}

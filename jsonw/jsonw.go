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
	w, err := Buf{b: b}.OpenObj().Members(o)
	if err != nil {
		return nil, err
	}
	return w.CloseObj().b, nil
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
		return appendList(b, v, AppendObj)
	case []any:
		return appendList(b, v, AppendValue)
	case []string:
		return appendList(b, v, func(b []byte, s string) ([]byte, error) { return AppendString(b, s, false), nil })
	}
	enc, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendList appends l as a JSON array (null when nil, as encoding/json writes a nil slice),
// each element written by each.
func appendList[E any](b []byte, l []E, each func([]byte, E) ([]byte, error)) ([]byte, error) {
	if l == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i, x := range l {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = each(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
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
	w, err := Buf{b: b}.Num(n)
	return w.b, err
}

// Num writes n as Num.AppendJSON does (a value written on every row of an answer, so it is
// formatted here, with no call between).
func (w Buf) Num(n Num) (Buf, error) {
	b := w.sep()
	if !n.Valid || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return Buf{append(b, "null"...), true}, nil
	}
	// Fast path: when the shortest decimal of V has at most 15 significant digits, rounding
	// to 15 digits gives V back (V lies within half an ulp of that decimal, far inside half a
	// step of the 15-digit grid), so Clean(V) is V and its shortest 'f' form is the answer.
	if n.V == 0 {
		return Buf{append(b, '0'), true}, nil
	}
	// An integer below 10^15 in magnitude is its own shortest decimal, of at most 15 digits.
	if n.V > -1e15 && n.V < 1e15 && n.V == math.Trunc(n.V) {
		return Buf{strconv.AppendInt(b, int64(n.V), 10), true}, nil
	}
	// So is m·10^-k, for the fewest decimals k (up to 4) and an integer m below 10^15 in
	// magnitude with V == m/10^k: that quotient of exact values is correctly rounded, so
	// the decimal rounds to V, and no other decimal of at most 15 significant digits does.
	for k := 1; k <= 4; k++ {
		m := math.Round(n.V * pow10[k])
		if m > -1e15 && m < 1e15 && m/pow10[k] == n.V {
			return Buf{appendDecimal(b, int64(m), k), true}, nil
		}
	}
	if a := math.Abs(n.V); a > 1e-300 && a < 1e300 {
		return Buf{appendRounded(b, n.V), true}, nil
	}
	start := len(b)
	b = strconv.AppendFloat(b, n.V, 'f', -1, 64)
	if significantDigits(b[start:]) <= 15 {
		return Buf{b, true}, nil
	}
	b = b[:start]
	c := Clean(n.V)
	if math.IsInf(c, 0) {
		return Buf{}, fmt.Errorf("json: unsupported value: %v rounds to %v", n.V, c)
	}
	return Buf{strconv.AppendFloat(b, c, 'f', -1, 64), true}, nil
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

// Buf is JSON being written. Each method appends one piece (the opening or close of an
// object or array, a member's name, a value) after the comma the piece takes, and returns the
// longer Buf, as append does: b = b.Name(n).Int(3). A Buf knows whether the next piece takes
// a comma (none after an opening, a name or a comma, and none at the start) from the pieces
// it wrote, never by reading back the bytes just written, so a row's pieces do not wait on
// one another. Its methods allocate only to grow it, so a Buf over a pooled buffer renders
// without allocating, and being a value it stays in registers through a row's pieces.
// Pieces rendered before are written with Raw, which takes the comma too, or Append, which
// takes none (citations written back to back, a piece whose comma is written with Comma
// because what comes before it is joined in later); after either, the comma the next piece
// takes is read from the piece's last byte.
type Buf struct {
	b     []byte
	comma bool // the next value or member takes a comma before it
}

// NewBuf is a Buf that appends to b[:len(b)] as a piece written before: the next piece takes
// a comma when b's last byte says so.
func NewBuf(b []byte) Buf { return Buf{b: b, comma: len(b) > 0 && !noComma[b[len(b)-1]]} }

// Bytes is the JSON written.
func (w Buf) Bytes() []byte { return w.b }

// Len is the length of the JSON written.
func (w Buf) Len() int { return len(w.b) }

// Reset empties w, keeping its buffer.
func (w Buf) Reset() Buf { return Buf{b: w.b[:0]} }

// noComma are the last bytes of a piece after which a value or member takes no comma.
var noComma = [256]bool{'{': true, '[': true, ',': true, ':': true}

// sep writes the comma a value or member written now takes.
func (w Buf) sep() []byte {
	if w.comma {
		return append(w.b, ',')
	}
	return w.b
}

// Comma writes a comma.
func (w Buf) Comma() Buf { return Buf{b: append(w.b, ',')} }

// OpenObj opens an object.
func (w Buf) OpenObj() Buf { return Buf{b: append(w.sep(), '{')} }

// CloseObj closes an object.
func (w Buf) CloseObj() Buf { return Buf{append(w.b, '}'), true} }

// OpenArr opens an array.
func (w Buf) OpenArr() Buf { return Buf{b: append(w.sep(), '[')} }

// CloseArr closes an array.
func (w Buf) CloseArr() Buf { return Buf{append(w.b, ']'), true} }

// Key writes the name of a member and its colon (HTML characters escaped, as encoding/json
// escapes them in names).
func (w Buf) Key(name string) Buf {
	return Buf{b: append(AppendString(w.sep(), name, true), ':')}
}

// Name is the name of a member rendered once, as Key writes it: quoted (HTML characters
// escaped) and followed by its colon. The names written on every row or citation of an
// answer are Names, so a row copies them rather than escaping them again; a Name constant
// is copied by the few stores of its length, with no call.
type Name string

// NameOf is name rendered as a Name.
func NameOf(name string) Name {
	return Name(append(AppendString(make([]byte, 0, len(name)+3), name, true), ':'))
}

// Name writes the name of a member rendered once, n.
func (w Buf) Name(n Name) Buf { return Buf{b: append(w.sep(), n...)} }

// KeyJSON writes the name of a member rendered before as a JSON string, and its colon.
func (w Buf) KeyJSON(quoted []byte) Buf { return Buf{b: append(append(w.sep(), quoted...), ':')} }

// String writes s as a JSON string (HTML characters kept as they are).
func (w Buf) String(s string) Buf { return Buf{AppendString(w.sep(), s, false), true} }

// KeyString writes a member whose value is the string s.
func (w Buf) KeyString(name, s string) Buf { return w.Key(name).String(s) }

// Int writes n.
func (w Buf) Int(n int64) Buf { return Buf{strconv.AppendInt(w.sep(), n, 10), true} }

// KeyInt writes a member whose value is n.
func (w Buf) KeyInt(name string, n int64) Buf { return w.Key(name).Int(n) }

// Bool writes v.
func (w Buf) Bool(v bool) Buf { return Buf{strconv.AppendBool(w.sep(), v), true} }

// Null writes null.
func (w Buf) Null() Buf { return Buf{append(w.sep(), "null"...), true} }

// Float writes f as AppendFloat does.
func (w Buf) Float(f float64) (Buf, error) { return value(AppendFloat(w.sep(), f)) }

// Value writes v as AppendValue does.
func (w Buf) Value(v any) (Buf, error) { return value(AppendValue(w.sep(), v)) }

// Obj writes o as AppendObj does.
func (w Buf) Obj(o Obj) (Buf, error) { return value(AppendObj(w.sep(), o)) }

// value is the Buf b, in which a value was just written, as an Append function returned it.
func value(b []byte, err error) (Buf, error) { return Buf{b, true}, err }

// Members writes the members of o, without the braces around them, as AppendObj writes
// them.
func (w Buf) Members(o Obj) (Buf, error) {
	for _, kv := range o {
		var err error
		if w, err = w.Key(kv.K).Value(kv.V); err != nil {
			return w, err
		}
	}
	return w, nil
}

// Raw writes p, a piece rendered before (a value, members, or the name that opens a member),
// after the comma it takes; an empty p writes nothing.
func (w Buf) Raw(p []byte) Buf {
	if len(p) == 0 {
		return w
	}
	return Buf{append(w.sep(), p...), !noComma[p[len(p)-1]]}
}

// Append writes p as it is, with no comma before it; an empty p writes nothing.
func (w Buf) Append(p []byte) Buf {
	if len(p) == 0 {
		return w
	}
	return Buf{append(w.b, p...), !noComma[p[len(p)-1]]}
}

// Member is the opening of a member that follows another, rendered once: a comma, the
// name and its colon.
func Member(name string) []byte {
	return Buf{}.Comma().Key(name).Bytes()
}

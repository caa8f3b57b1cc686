package service

import (
	"strconv"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/jsonw"
)

// The payloads are built from jsonw's ordered objects and rendered by its writer, byte for
// byte what encoding/json writes for the same values; these names keep the service's own.

// Obj is a JSON object whose members keep their order (jsonw.Obj).
type Obj = jsonw.Obj

// KV is one member of an Obj (jsonw.KV).
type KV = jsonw.KV

// Num is a metric value: null, or a number written with at most 15 significant digits
// (jsonw.Num).
type Num = jsonw.Num

// rawJSON is a value already rendered as compact JSON, written as is.
type rawJSON = jsonw.RawJSON

func mustJSON(v any) []byte   { return jsonw.MustRender(v) }
func clean(v float64) float64 { return jsonw.Clean(v) }

// writeTyped writes text v of a field of type t as jsonw writes typed(t, v), without making
// it an interface value.
func writeTyped(w jsonw.Buf, t capability.Type, v string) (jsonw.Buf, error) {
	switch t {
	case capability.Integer:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return w.Int(n), nil
		}
	case capability.Number:
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return w.Float(f)
		}
	case capability.Boolean:
		if x, err := strconv.ParseBool(v); err == nil {
			return w.Bool(x), nil
		}
	}
	return w.String(v), nil
}

// orEmpty is l, or an empty one in place of nil: a list or object member is written [] or {},
// never null.
func orEmpty[S ~[]E, E any](l S) S {
	if l == nil {
		return S{}
	}
	return l
}

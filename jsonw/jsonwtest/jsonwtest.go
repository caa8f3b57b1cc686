// Package jsonwtest is the reference jsonw's writer is tested against: encoding/json alone.
// Tests import it; the binary does not.
package jsonwtest

import (
	"bytes"
	"encoding/json"

	"github.com/citeq/citeq/jsonw"
)

// Reference is v as encoding/json renders it, each Obj within it member by member: what
// jsonw.Render must write byte for byte.
func Reference(v any) ([]byte, error) { return jsonw.Marshal(toRef(v)) }

// refObj is an Obj as encoding/json renders it member by member: the reference the direct
// renderer must match byte for byte.
type refObj []jsonw.KV

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
		v, err := jsonw.Marshal(toRef(kv.V))
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
	case jsonw.Obj:
		if v == nil {
			return refObj(nil)
		}
		out := make(refObj, len(v))
		for i, kv := range v {
			out[i] = jsonw.KV{kv.K, toRef(kv.V)}
		}
		return out
	case []jsonw.Obj:
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

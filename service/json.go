package service

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Obj is a JSON object whose members keep their order, so payloads read in definition order
// and are byte-for-byte reproducible.
type Obj []KV

// KV is one member of an Obj.
type KV struct {
	K string
	V any
}

// MarshalJSON implements json.Marshaler.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.K)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(kv.V)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func mustJSON(v any) []byte {
	b, err := marshal(v)
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
	return []byte(strconv.FormatFloat(clean(n.V), 'f', -1, 64)), nil
}

func clean(v float64) float64 {
	c, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if c == 0 {
		return 0 // no negative zero
	}
	return c
}

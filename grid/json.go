package grid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// JSON API responses (the Census and FRED APIs, the EIA API v2) are read as one table: the
// largest array of rows in the document. An array of arrays is taken as it is, its first
// element the header row, so row n is the n-th element. An array of objects gets a header
// row 1 of the members' names in order of first appearance, and object i is row i+1. The
// sheet is named by the array's path in the document ("$" for a top-level array, else the
// member names joined by dots, e.g. "response.data").

// jsonValue is a decoded JSON value that keeps the order of object members.
type jsonValue struct {
	kind    byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text    string
	keys    []string
	members []*jsonValue // object members, parallel to keys; array elements
}

func decodeJSONValue(dec *json.Decoder, depth int) (*jsonValue, error) {
	if depth > 64 {
		return nil, errors.New("nested deeper than 64 levels")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := &jsonValue{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				m, err := decodeJSONValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.keys = append(v.keys, k)
				v.members = append(v.members, m)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		case '[':
			v := &jsonValue{kind: 'a'}
			for dec.More() {
				m, err := decodeJSONValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.members = append(v.members, m)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return v, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &jsonValue{kind: 's', text: t}, nil
	case json.Number:
		return &jsonValue{kind: 'n', text: t.String()}, nil
	case bool:
		return &jsonValue{kind: 'b', text: strconv.FormatBool(t)}, nil
	case nil:
		return &jsonValue{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// rowsOf reports whether v is an array of rows (every element an array, or every element
// an object) and how many.
func rowsOf(v *jsonValue) (byte, bool) {
	if v.kind != 'a' || len(v.members) == 0 {
		return 0, false
	}
	k := v.members[0].kind
	if k != 'a' && k != 'o' {
		return 0, false
	}
	for _, m := range v.members {
		if m.kind != k {
			return 0, false
		}
	}
	return k, true
}

// largestTable finds the array of rows with the most elements (the first in document order
// on a tie) and its path.
func largestTable(v *jsonValue, path string) (*jsonValue, string) {
	var best *jsonValue
	bestPath := ""
	if _, ok := rowsOf(v); ok {
		best, bestPath = v, path
	}
	for i, m := range v.members {
		if m.kind != 'o' && m.kind != 'a' {
			continue
		}
		p := path
		if v.kind == 'o' {
			if p == "$" {
				p = v.keys[i]
			} else {
				p += "." + v.keys[i]
			}
		} else {
			continue // rows inside a table are not tables of their own
		}
		if t, tp := largestTable(m, p); t != nil && (best == nil || len(t.members) > len(best.members)) {
			best, bestPath = t, tp
		}
	}
	return best, bestPath
}

func jsonCell(v *jsonValue) Cell {
	switch v.kind {
	case 's':
		if v.text == "" {
			return Cell{}
		}
		return Cell{Kind: Text, Value: v.text}
	case 'n':
		return Cell{Kind: Number, Value: v.text}
	case 'b':
		return Cell{Kind: Bool, Value: v.text}
	case 'z':
		return Cell{}
	}
	// A nested value is kept as its compact JSON text.
	var b bytes.Buffer
	writeJSONValue(&b, v)
	return Cell{Kind: Text, Value: b.String()}
}

func writeJSONValue(b *bytes.Buffer, v *jsonValue) {
	switch v.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeJSONValue(b, v.members[i])
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONValue(b, m)
		}
		b.WriteByte(']')
	case 's':
		sb, _ := json.Marshal(v.text)
		b.Write(sb)
	case 'z':
		b.WriteString("null")
	default:
		b.WriteString(v.text)
	}
}

func parseJSON(data []byte) (*Workbook, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := decodeJSONValue(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("json: data after the top-level value")
	}
	table, path := largestTable(root, "$")
	if table == nil {
		return nil, errors.New("json: no array of rows (arrays or objects) in the document")
	}
	sh := &Sheet{Name: path}
	kind, _ := rowsOf(table)
	if kind == 'a' {
		for _, r := range table.members {
			cells := make([]Cell, len(r.members))
			for j, c := range r.members {
				cells[j] = jsonCell(c)
			}
			sh.rows = append(sh.rows, trimRow(cells))
		}
	} else {
		col := map[string]int{}
		var header []string
		for _, o := range table.members {
			for _, k := range o.keys {
				if _, ok := col[k]; !ok {
					col[k] = len(header)
					header = append(header, k)
				}
			}
		}
		hdr := make([]Cell, len(header))
		for j, h := range header {
			hdr[j] = Cell{Kind: Text, Value: h}
		}
		sh.rows = append(sh.rows, hdr)
		for _, o := range table.members {
			cells := make([]Cell, len(header))
			for i, k := range o.keys {
				cells[col[k]] = jsonCell(o.members[i])
			}
			sh.rows = append(sh.rows, trimRow(cells))
		}
	}
	return &Workbook{Format: "json", Sheets: []*Sheet{sh}}, nil
}

// looksJSON reports whether data opens like a JSON document and is valid JSON.
func looksJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
}

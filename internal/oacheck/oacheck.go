// Package oacheck checks JSON payloads against the schemas of an OpenAPI 3.1 document (the
// subset of JSON Schema 2020-12 citeq's document uses), for the tests of the packages whose
// payloads the document describes.
package oacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Decode decodes b with json.Number, so integers and numbers stay apart.
func Decode(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%.400s", err, b)
	}
	if dec.More() {
		t.Fatal("more than one JSON value")
	}
	return v
}

// Resolve resolves a local reference (#/a/b) in the document.
func Resolve(doc any, ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("not a local reference")
	}
	v := doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok || m[tok] == nil {
			return nil, fmt.Errorf("%q not found", tok)
		}
		v = m[tok]
	}
	return v, nil
}

// Checker checks payloads against the schemas of the document doc, closed: a member the
// schema does not list is an error.
func Checker(t testing.TB, doc any) func(name, schema string, payload []byte) {
	return func(name, schema string, payload []byte) {
		t.Helper()
		v := &Validator{Doc: doc, Closed: true}
		for _, e := range v.Validate(map[string]any{"$ref": "#/components/schemas/" + schema}, Decode(t, payload), "$", 0) {
			t.Errorf("%s against %s: %s", name, schema, e)
		}
	}
}

// Validator checks a JSON value against the subset of JSON Schema 2020-12 the
// document uses. closed treats an object schema that lists properties as closed.
type Validator struct {
	Doc    any
	Closed bool
}

// Validate returns what is wrong with val (at the path at) against schema.
func (v *Validator) Validate(schema, val any, at string, depth int) []string {
	if depth > 64 {
		return []string{at + ": schema nesting too deep"}
	}
	s, ok := schema.(map[string]any)
	if !ok {
		if b, isBool := schema.(bool); isBool && !b {
			return []string{at + ": not allowed"}
		}
		return nil
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	if r, ok := s["$ref"].(string); ok {
		target, err := Resolve(v.Doc, r)
		if err != nil {
			return []string{at + ": $ref " + r + ": " + err.Error()}
		}
		errs = append(errs, v.Validate(target, val, at, depth+1)...)
	}
	if t, ok := s["type"]; ok {
		types := Strings(t)
		if str, isStr := t.(string); isStr {
			types = []string{str}
		}
		if !slices.ContainsFunc(types, func(ty string) bool { return typeIs(ty, val) }) {
			fail("%s is not of type %v", short(val), types)
			return errs
		}
	}
	if c, ok := s["const"]; ok && !sameJSON(c, val) {
		fail("%s is not %s", short(val), short(c))
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return sameJSON(x, val) }) {
		fail("%s is not one of %s", short(val), short(e))
	}
	if p, ok := s["pattern"].(string); ok {
		if str, isStr := val.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			fail("%q does not match %s", str, p)
		}
	}
	if f, _ := s["format"].(string); f == "date" {
		if str, isStr := val.(string); isStr && !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(str) {
			fail("%q is not a date", str)
		}
	}
	if n, isNum := val.(json.Number); isNum {
		x, _ := n.Float64()
		if m, ok := s["minimum"].(json.Number); ok {
			if lo, _ := m.Float64(); x < lo {
				fail("%s < minimum %s", n, m)
			}
		}
		if m, ok := s["maximum"].(json.Number); ok {
			if hi, _ := m.Float64(); x > hi {
				fail("%s > maximum %s", n, m)
			}
		}
	}
	if sub, ok := s["allOf"].([]any); ok {
		for _, x := range sub {
			errs = append(errs, v.Validate(x, val, at, depth+1)...)
		}
	}
	if sub, ok := s["anyOf"].([]any); ok {
		if !slices.ContainsFunc(sub, func(x any) bool { return len(v.Validate(x, val, at, depth+1)) == 0 }) {
			fail("%s matches none of anyOf", short(val))
		}
	}
	if sub, ok := s["oneOf"].([]any); ok {
		n := 0
		var first []string
		for _, x := range sub {
			if e := v.Validate(x, val, at, depth+1); len(e) == 0 {
				n++
			} else if first == nil {
				first = e
			}
		}
		if n != 1 {
			fail("%s matches %d of oneOf, want 1 (%v)", short(val), n, first)
		}
	}
	switch x := val.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if dep, ok := s["dependentRequired"].(map[string]any); ok {
			for k, needs := range dep {
				if _, ok := x[k]; !ok {
					continue
				}
				for _, r := range Strings(needs) {
					if _, ok := x[r]; !ok {
						fail("member %s needs %s", k, r)
					}
				}
			}
		}
		for _, r := range Strings(s["required"]) {
			if _, ok := x[r]; !ok {
				fail("member %s is missing", r)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if pn, ok := s["propertyNames"]; ok {
				errs = append(errs, v.Validate(pn, k, at+"."+k+" (name)", depth+1)...)
			}
			if ps, ok := props[k]; ok {
				errs = append(errs, v.Validate(ps, x[k], at+"."+k, depth+1)...)
				continue
			}
			if ap, ok := s["additionalProperties"]; ok {
				errs = append(errs, v.Validate(ap, x[k], at+"."+k, depth+1)...)
			} else if v.Closed && props != nil {
				fail("member %s is not described", k)
			}
		}
	case []any:
		if m, ok := s["minItems"].(json.Number); ok {
			if n, _ := m.Int64(); int64(len(x)) < n {
				fail("%d items, minimum %d", len(x), n)
			}
		}
		if u, _ := s["uniqueItems"].(bool); u {
			seen := map[string]bool{}
			for _, item := range x {
				k := short(item)
				if seen[k] {
					fail("item %s repeats", k)
				}
				seen[k] = true
			}
		}
		if items, ok := s["items"]; ok {
			for i, item := range x {
				errs = append(errs, v.Validate(items, item, fmt.Sprintf("%s[%d]", at, i), depth+1)...)
			}
		}
	}
	return errs
}

func typeIs(t string, val any) bool {
	switch t {
	case "null":
		return val == nil
	case "boolean":
		_, ok := val.(bool)
		return ok
	case "string":
		_, ok := val.(string)
		return ok
	case "number":
		_, ok := val.(json.Number)
		return ok
	case "integer":
		n, ok := val.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "object":
		_, ok := val.(map[string]any)
		return ok
	case "array":
		_, ok := val.([]any)
		return ok
	}
	return false
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// Strings is the strings of a decoded JSON array (none for another value).
func Strings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, x := range l {
		out[i], _ = x.(string)
	}
	return out
}

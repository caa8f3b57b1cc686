package service

import (
	"encoding/json"
	"maps"

	"github.com/citeq/citeq/apierror"
)

// Request is a query's params read once, from a POST body, MCP arguments or a GET query
// string (ParseBody, ParseQuery): every step of Prepare (cursor, compare_as_of, as_of
// on:<date>, the validation of each snapshot compared) reads it. Members whose errors quote
// the text sent keep that text.
type Request struct {
	// err is the first error found in cursor or compare_as_of, which Prepare returns once the
	// capability is resolved.
	err *apierror.Error
	// cursor and compare are the values of cursor and compare_as_of, "" when absent.
	cursor, compare string
	// asOf holds each as_of given: at the top level first, then inside filters.
	asOf []asOfGiven
	// filters holds the members of the filters object other than as_of, as sent; filtersBad
	// says filters was given but is not an object.
	filters    map[string]json.RawMessage
	filtersBad bool
	// top holds the other top-level members, as sent: controls, date ranges and filters.
	top members
	// kept is set on each side of a comparison: for each filter the comparison has read and
	// checked against both snapshots, the values given that this side's snapshot holds, read
	// in place of the value as sent (given at the top level when top); a filter none of
	// whose values this side holds is left out of it.
	kept map[string]keptFilter
}

// keptFilter is a filter of one side of a comparison: where it was given and the values kept.
type keptFilter struct {
	top  bool
	vals []string
}

// dropped reports whether the member name, given at the top level when top, is left out of
// this side of a comparison: a filter none of whose values its snapshot holds.
func (r *Request) dropped(name string, top bool) bool {
	k, ok := r.kept[name]
	return ok && k.top == top && len(k.vals) == 0
}

// asOfGiven is one as_of of a request: its text when it is a JSON string (str says so).
type asOfGiven struct {
	value string
	str   bool
}

// newRequest reads the members of a params object into a Request, noting the first error
// found in cursor or compare_as_of; what else is wrong is left to Validate.
func newRequest(raw members) *Request {
	raw, cursor, e := splitCursor(raw)
	if e != nil {
		return &Request{err: e}
	}
	raw, cmp, e := splitCompare(raw)
	if e != nil {
		return &Request{err: e}
	}
	r := &Request{cursor: cursor, compare: cmp, top: members{}}
	if v, ok := raw["as_of"]; ok {
		r.asOf = append(r.asOf, decodeAsOf(v))
	}
	if fv, ok := raw["filters"]; ok {
		var obj map[string]json.RawMessage
		if json.Unmarshal(fv, &obj) != nil || obj == nil {
			r.filtersBad = true
		} else {
			if v, ok := obj["as_of"]; ok {
				r.asOf = append(r.asOf, decodeAsOf(v))
				delete(obj, "as_of")
			}
			r.filters = obj
		}
	}
	for k, v := range raw {
		if k != "as_of" && k != "filters" {
			r.top[k] = v
		}
	}
	return r
}

// Err is the first error found in cursor or compare_as_of when the request was read, or nil.
// Prepare returns it; Validate, which reads neither, does not.
func (r *Request) Err() *apierror.Error { return r.err }

func decodeAsOf(v json.RawMessage) asOfGiven {
	var s string
	err := json.Unmarshal(v, &s)
	return asOfGiven{value: s, str: err == nil}
}

// clone returns a copy of r whose maps can be changed without changing r's.
func (r *Request) clone() *Request {
	out := *r
	out.asOf = append([]asOfGiven(nil), r.asOf...)
	out.filters = maps.Clone(r.filters)
	out.top = maps.Clone(r.top)
	out.kept = maps.Clone(r.kept)
	return &out
}

// asOfValue is the as_of the request asks for: latest when none is given.
func (r *Request) asOfValue() (string, *apierror.Error) {
	if len(r.asOf) > 1 {
		return "", apierror.New(400, apierror.CodeInvalidParameter, "as_of is given twice; give it once")
	}
	if len(r.asOf) == 0 {
		return "latest", nil
	}
	a := r.asOf[0]
	if !a.str || (a.value != "latest" && !isoDay.MatchString(a.value)) {
		return "", apierror.New(400, apierror.CodeInvalidParameter, "as_of must be latest or a snapshot date YYYY-MM-DD; GET the schema for the served dates")
	}
	return a.value, nil
}

// pinned reports whether the request names an exact as_of (not latest): the answer to such
// a query never changes.
func (r *Request) pinned() bool {
	a, err := r.asOfValue()
	return err == nil && a != "latest"
}

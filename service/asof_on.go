package service

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
)

// AsOfOnPrefix starts the as_of form that asks for the snapshot in force at a date:
// "on:2017-01-01" resolves to the newest snapshot whose as_of is on or before 2017-01-01.
// The answer states the resolved date as its as_of, as latest does, and is the very answer
// to a query pinned to that date.
const AsOfOnPrefix = "on:"

// resolveAsOfOn returns raw with an as_of of the form on:YYYY-MM-DD (at the top level or in
// filters) replaced by the served snapshot date it resolves to, and whether it held one.
// raw itself is not modified.
func (s *Service) resolveAsOfOn(c *capability.Capability, raw RawParams) (RawParams, bool, *apierror.Error) {
	on, inFilters, ok := asOfOnValue(raw)
	if !ok {
		return raw, false, nil
	}
	date, e := s.snapshotOn(c, on)
	if e != nil {
		return nil, false, e
	}
	out := make(RawParams, len(raw))
	for k, v := range raw {
		out[k] = v
	}
	if !inFilters {
		out["as_of"] = mustJSON(date)
		return out, true, nil
	}
	var filters map[string]json.RawMessage
	if err := json.Unmarshal(raw["filters"], &filters); err != nil {
		return nil, false, apierror.New(400, apierror.CodeInvalidFilter, "filters must be an object of filter name → value or list of values (%v)", err)
	}
	filters["as_of"] = mustJSON(date)
	b, err := json.Marshal(filters)
	if err != nil {
		return nil, false, apierror.New(500, apierror.CodeInternal, "the filters cannot be re-encoded (%v); retry, and report it if it persists", err)
	}
	out["filters"] = b
	return out, true, nil
}

// asOfOnValue finds an as_of string starting with on: at the top level or in filters.
func asOfOnValue(raw RawParams) (value string, inFilters, ok bool) {
	read := func(v json.RawMessage) (string, bool) {
		var str string
		if !bytes.HasPrefix(bytes.TrimSpace(v), []byte(`"`)) || json.Unmarshal(v, &str) != nil {
			return "", false
		}
		return str, strings.HasPrefix(str, AsOfOnPrefix)
	}
	if v, ok := raw["as_of"]; ok {
		if str, on := read(v); on {
			return str, false, true
		}
	}
	if fv, ok := raw["filters"]; ok {
		var obj map[string]json.RawMessage
		if json.Unmarshal(fv, &obj) == nil {
			if str, on := read(obj["as_of"]); on {
				return str, true, true
			}
		}
	}
	return "", false, false
}

// snapshotOn resolves on:YYYY-MM-DD to the as_of of the newest snapshot of c on or before
// that date.
func (s *Service) snapshotOn(c *capability.Capability, on string) (string, *apierror.Error) {
	_, dates := s.served(c.ID)
	day := strings.TrimPrefix(on, AsOfOnPrefix)
	if _, err := time.Parse("2006-01-02", day); err != nil || !isoDay.MatchString(day) {
		return "", apierror.New(400, apierror.CodeInvalidParameter, "as_of %q is not on:YYYY-MM-DD; give a calendar date, e.g. on:%s, or latest, or one of the served dates: %s", on, dates[len(dates)-1], join(dates))
	}
	best := ""
	for _, d := range dates {
		if d <= day {
			best = d
		}
	}
	if best == "" {
		return "", apierror.New(400, apierror.CodeInvalidParameter, "as_of %s is before every snapshot of %s: the first is as_of %s; available dates: %s (use on:<a date on or after %s>, latest or one of them)", on, c.ID, dates[0], join(dates), dates[0])
	}
	return best, nil
}

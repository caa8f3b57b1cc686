package service

import (
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

// resolveAsOfOn replaces in req an as_of of the form on:YYYY-MM-DD (at the top level, or
// else in filters) by the served snapshot date it resolves to, and reports whether it held one.
func (s *Service) resolveAsOfOn(c *capability.Capability, req *Request) (bool, *apierror.Error) {
	for i, a := range req.asOf {
		if !a.str || !strings.HasPrefix(a.value, AsOfOnPrefix) {
			continue
		}
		date, e := s.snapshotOn(c, a.value)
		if e != nil {
			return false, e
		}
		req.asOf[i].value = date
		return true, nil
	}
	return false, nil
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

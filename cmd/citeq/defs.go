package main

import (
	"slices"
	"sync"

	"github.com/citeq/citeq/capability"
)

// The client renders records and writes its examples from the capability definitions
// compiled into this binary (capability.ByID), not from the schema endpoint: the schema
// publishes neither which detail fields are bookkeeping nor which field each metric
// aggregates, and the client ships in the same binary as the server, so its definitions are
// the ones the server answers from. A capability this binary does not know (a newer server)
// still renders: only the common fields, which every capability has, are then left out, and
// no field is singled out as a metric's.

// recordLayout says how the records table treats the detail fields of one capability.
type recordLayout struct {
	// skip holds the bookkeeping fields, left out of the table.
	skip map[string]bool
	// measures holds the fields whose values a metric sums, averages, takes the extreme of or
	// divides: always shown, whatever their position among the fields.
	measures map[string]bool
}

// layoutOf is the records layout of the capability with identifier id.
func layoutOf(id string) recordLayout {
	l := recordLayout{skip: map[string]bool{}, measures: map[string]bool{}}
	for _, f := range capability.CommonFields {
		l.skip[f.Name] = true
	}
	c := capability.ByID(id)
	if c == nil {
		return l
	}
	for _, f := range c.Fields {
		if f.Bookkeeping {
			l.skip[f.Name] = true
		}
	}
	for _, m := range c.Metrics {
		switch m.Agg {
		case capability.Sum, capability.Avg, capability.Min, capability.Max, capability.Ratio, capability.Median, capability.Percentile:
			for _, col := range []string{m.Column, m.Denominator} {
				if col != "" {
					l.measures[col] = true
				}
			}
		}
	}
	return l
}

// usageExample is what the help and error messages show: a served capability with a filter
// that has listed values and a date range, all taken from the definitions.
type usageExample struct {
	path          string
	filter        string
	value, value2 string
	dateRange     string
}

var (
	exampleOnce sync.Once
	example     usageExample
)

// examples returns the usage example, chosen once: the first capability (by identifier) that
// is served and has a date range and a filter with at least two enum values.
func examples() usageExample {
	exampleOnce.Do(func() {
		example = usageExample{path: "<path>", filter: "<filter>", value: "<value>", value2: "<value>", dateRange: "<range>"}
		for _, c := range capability.All() {
			if c.Unserved != "" || len(c.DateRanges) == 0 {
				continue
			}
			i := slices.IndexFunc(c.Fields, func(f capability.Field) bool { return f.Filter && len(f.Enum) >= 2 })
			if i < 0 {
				continue
			}
			f := c.Fields[i]
			example = usageExample{path: c.Path, filter: f.Name, value: f.Enum[0], value2: f.Enum[1], dateRange: c.DateRanges[0].Name}
			return
		}
	})
	return example
}

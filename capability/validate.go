package capability

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Cadence is how often a capability's source publishes new data points.
type Cadence string

// Cadences, from the most to the least frequent.
const (
	SubHourly Cadence = "subhourly"
	Hourly    Cadence = "hourly"
	Daily     Cadence = "daily"
	Weekly    Cadence = "weekly"
	Monthly   Cadence = "monthly"
	Quarterly Cadence = "quarterly"
	Annual    Cadence = "annual"
	// Irregular marks documents published when an event calls for them (auction results,
	// corrections postings).
	Irregular Cadence = "irregular"
)

var cadences = []Cadence{SubHourly, Hourly, Daily, Weekly, Monthly, Quarterly, Annual, Irregular}

// SubDaily reports whether data points arrive more often than daily (hourly demand or
// day-ahead prices): such a capability is not a webhook data point.
func (c Cadence) SubDaily() bool { return c == SubHourly || c == Hourly }

// Valid reports whether c is one of the defined cadences.
func (c Cadence) Valid() bool {
	for _, x := range cadences {
		if c == x {
			return true
		}
	}
	return false
}

var (
	idPattern   = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
	namePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// orderable reports whether Before can order values of type t against the floor.
func (f *Floor) orderable(t Type) bool {
	switch t {
	case Integer, Number:
		_, err := strconv.ParseFloat(f.Value, 64)
		return err == nil
	case Date:
		_, err := time.Parse("2006-01-02", f.Value)
		return err == nil
	}
	_, ok := leadingNumber(f.Value)
	return ok
}

// Validate checks that the definition is coherent: identifiers and names well formed and
// unique, every name a metric, key, codebook, unit, denominator or date range refers to is a
// field of the right type, and each aggregation can take its column's type. It returns every
// problem found, joined.
func (c *Capability) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("capability %s: "+format, append([]any{c.ID}, args...)...))
	}
	if !idPattern.MatchString(c.ID) {
		bad("identifier must be domain.name in lower case")
	}
	if want := strings.ReplaceAll(strings.ReplaceAll(c.ID, "_", "-"), ".", "/"); c.Path != want {
		bad("path %q must be %q: the identifier with dots as slashes and underscores as hyphens", c.Path, want)
	}
	if !c.Cadence.Valid() {
		bad("cadence %q is not one of %v", c.Cadence, cadences)
	}
	if c.Title == "" || c.Description == "" || c.Grain == "" || c.Publisher == "" || c.AsOfRule == "" {
		bad("title, description, grain, publisher and as_of_rule are all required")
	}
	fields := map[string]Field{}
	for _, f := range c.Fields {
		switch {
		case !namePattern.MatchString(f.Name):
			bad("field name %q must be lower case letters, digits and underscores (a leading underscore is kept for lineage)", f.Name)
		case fields[f.Name].Name != "":
			bad("field %s is declared twice", f.Name)
		}
		fields[f.Name] = f
		switch f.Type {
		case String, Integer, Number, Date, Boolean:
		default:
			bad("field %s has unknown type %q", f.Name, f.Type)
		}
		if len(f.Enum) > 0 && f.Type != String {
			bad("field %s has an enum but is of type %s (enums are for string fields)", f.Name, f.Type)
		}
		if f.Codebook != "" && f.Codebook != f.Name {
			bad("field %s names codebook %q: a codebook is named like its field", f.Name, f.Codebook)
		}
		if f.Codebook != "" && f.Type != String {
			bad("field %s has a codebook but is of type %s", f.Name, f.Type)
		}
		if err := validJoinKey(f.Key); err != nil {
			bad("field %s: %v", f.Name, err)
		}
		if f.Description == "" {
			bad("field %s has no description", f.Name)
		}
		if fl := f.Floor; fl != nil {
			switch {
			case !f.Filter:
				bad("field %s has a floor but is not a filter", f.Name)
			case fl.Value == "" || fl.Reason == "":
				bad("field %s has a floor without its first value or its reason", f.Name)
			case f.Type == Boolean:
				bad("field %s has a floor but is boolean", f.Name)
			case !fl.orderable(f.Type):
				bad("field %s has the floor %q, which its type does not order (a number, a date, or text that starts with a whole number)", f.Name, fl.Value)
			}
		}
	}
	for _, cf := range CommonFields {
		if f, ok := fields[cf.Name]; !ok {
			bad("common field %s is missing", cf.Name)
		} else if f.Type != cf.Type {
			bad("common field %s is declared as %s, must be %s", cf.Name, f.Type, cf.Type)
		}
	}
	field := func(what, name string, types ...Type) {
		f, ok := fields[name]
		if !ok {
			bad("%s names %q, which is not a field", what, name)
			return
		}
		if len(types) == 0 {
			return
		}
		for _, t := range types {
			if f.Type == t {
				return
			}
		}
		bad("%s names field %s of type %s; it needs %v", what, name, f.Type, types)
	}
	if len(c.NaturalKey) == 0 {
		bad("no natural key")
	}
	if o := c.Originals; o != nil {
		field("originals document", o.Document, String)
		field("originals page", o.Page, String)
	}
	for _, k := range c.NaturalKey {
		field("natural key", k)
	}
	metrics := map[string]bool{}
	for _, m := range c.Metrics {
		what := "metric " + m.Name
		if !namePattern.MatchString(m.Name) || metrics[m.Name] {
			bad("metric name %q is malformed or repeated", m.Name)
		}
		metrics[m.Name] = true
		if m.Unit == "" {
			bad("%s has no unit", what)
		}
		switch m.Agg {
		case Count:
			if m.Column != "" {
				bad("%s counts rows and takes no column", what)
			}
		case CountNonNull, CountDistinct:
			field(what, m.Column)
		case Sum, Avg, Min, Max:
			field(what, m.Column, Integer, Number)
		case Ratio:
			field(what, m.Column, Integer, Number)
			field(what+" denominator", m.Denominator, Integer, Number)
		case Median, Percentile:
			field(what, m.Column, Integer, Number)
			if m.Additive {
				bad("%s is a %s, which is not additive across groups", what, m.Agg)
			}
		default:
			bad("%s has unknown aggregation %q", what, m.Agg)
		}
		if m.Agg != Ratio && m.Denominator != "" {
			bad("%s has a denominator but is not a ratio", what)
		}
		switch {
		case m.Agg == Percentile && !(m.Percentile > 0 && m.Percentile < 100):
			bad("%s is a percentile and needs a percentile strictly between 0 and 100 (the median is aggregation median), not %v", what, m.Percentile)
		case m.Agg != Percentile && m.Percentile != 0:
			bad("%s has a percentile but its aggregation is %s, not percentile", what, m.Agg)
		}
		if m.UnitColumn != "" {
			field(what+" unit column", m.UnitColumn, String)
		}
		if m.Agg == Count && !m.Additive {
			bad("%s is a row count, which is additive across groups", what)
		}
		if w := m.OnePeriod; w != nil {
			switch {
			case c.Periods == nil:
				bad("%s adds one period only, but the capability declares no periods", what)
			case m.Column != c.Periods.Value:
				bad("%s adds one period only: its column must be the periods' value field %s, not %q", what, c.Periods.Value, m.Column)
			case m.Additive:
				bad("%s adds one period only, so it is not additive across groups", what)
			case w.Reason == "" || w.Instead == "":
				bad("%s adds one period only but gives no reason or no alternative", what)
			}
		}
		if sh := m.Shares; sh != nil {
			switch {
			case m.Agg != Avg:
				bad("%s declares shares, which only an average pools", what)
			case m.UnitColumn == "" || len(sh.Units) == 0:
				bad("%s declares shares without a unit column and the units that are shares", what)
			case m.Additive:
				bad("%s averages shares, which is not additive across groups", what)
			case sh.Reason == "" || sh.Instead == "":
				bad("%s declares shares but gives no reason or no alternative", what)
			}
		}
	}
	if pd := c.Periods; pd != nil {
		field("periods", pd.Field, String, Date)
		field("periods value", pd.Value)
		if fields[pd.Field].Unique {
			bad("periods field %s is unique on every row, so it names no period", pd.Field)
		}
	}
	for _, f := range c.Fields {
		if f.From != "" {
			field("field "+f.Name+" from", f.From)
			if f.From == f.Name {
				bad("field %s is mapped from itself", f.Name)
			}
		}
	}
	if len(c.Metrics) == 0 {
		bad("no metrics")
	}
	c.validateCells(fields, bad)
	ranges := map[string]bool{}
	for _, r := range c.DateRanges {
		if ranges[r.Name] {
			bad("date range %s is declared twice", r.Name)
		}
		ranges[r.Name] = true
		field("date range "+r.Name, r.Column, Date)
		if in := r.Instants; in != nil {
			field("date range "+r.Name+" instants", in.From, String)
			field("date range "+r.Name+" instants", in.To, String)
			if in.Convention == "" {
				bad("date range %s compares instants but states no convention", r.Name)
			}
		}
	}
	parts := map[string]bool{}
	for _, name := range c.Partitions {
		f, ok := fields[name]
		switch {
		case !ok:
			bad("partition %q is not a field", name)
		case !f.Filter || !f.GroupBy:
			bad("partition %s must be both a filter and a group_by dimension, so an answer can say how to split by it", name)
		case parts[name]:
			bad("partition %s is declared twice", name)
		}
		parts[name] = true
	}
	for _, rp := range c.Repeats {
		if !parts[rp.Dimension] {
			bad("repeat on %q: not a partition dimension", rp.Dimension)
		}
		if len(rp.Values) == 0 || len(rp.Of) == 0 || rp.Reason == "" {
			bad("repeat on %s needs its repeating values, the values they repeat and a reason", rp.Dimension)
		}
		for _, m := range rp.Metrics {
			if !metrics[m] {
				bad("repeat on %s names metric %q, which is not a metric", rp.Dimension, m)
			}
		}
	}
	for _, p := range c.flagProblems(fields) {
		bad("%s", p)
	}
	for _, in := range c.Inputs {
		if in == c.ID {
			bad("a derived capability cannot be its own input")
		}
	}
	if err := c.validateDocuments(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

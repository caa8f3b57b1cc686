// Package capability holds the declarative definition of every capability the service
// answers: its fields, which of them filter and group, its metrics with unit, aggregation and
// additivity, its date-range parameters and codebooks. The schema endpoint, the parameter
// validator, the engine, ingest and the MCP tool schemas all read these definitions, so a
// capability is described once.
package capability

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Type is the JSON type of a field's values.
type Type string

// Field types. Dates are ISO 8601 calendar dates (YYYY-MM-DD).
const (
	String  Type = "string"
	Integer Type = "integer"
	Number  Type = "number"
	Date    Type = "date"
	Boolean Type = "boolean"
)

// JSONType is the JSON Schema type of the values (dates are strings).
func (t Type) JSONType() string {
	switch t {
	case Integer, Number, Boolean:
		return string(t)
	}
	return "string"
}

// Agg is how a metric aggregates its input column over a set of rows.
type Agg string

// Aggregations.
const (
	Sum           Agg = "sum"
	Count         Agg = "count"          // number of rows
	CountNonNull  Agg = "count_non_null" // number of rows whose column is not null
	CountDistinct Agg = "count_distinct" // number of distinct non-null values
	Avg           Agg = "avg"
	Min           Agg = "min"
	Max           Agg = "max"
	// Ratio is the sum of Column divided by the sum of Denominator.
	Ratio Agg = "ratio"
	// Median is the middle of the non-null values of Column: the 50th percentile by the
	// linear definition of Percentile (the mean of the two middle values of an even count).
	Median Agg = "median"
	// Percentile is the Metric's Percentile-th percentile of the non-null values of Column,
	// by the linear (type 7) definition: over the n values sorted ascending x[0..n-1], with
	// h = (n-1)·p/100, it is x[⌊h⌋] + (h-⌊h⌋)·(x[⌊h⌋+1] - x[⌊h⌋]); one value is its own
	// percentile. It is what numpy.percentile, R's quantile and Excel's PERCENTILE.INC give.
	Percentile Agg = "percentile"
)

// Interpolation names the percentile definition of Median and Percentile metrics.
const Interpolation = "linear"

// Aggs lists every aggregation, in the order the documentation gives them.
var Aggs = []Agg{Sum, Count, CountNonNull, CountDistinct, Avg, Min, Max, Ratio, Median, Percentile}

// Field is one column of a capability's fact table and one member of its detail records.
type Field struct {
	Name        string `json:"name"`
	Type        Type   `json:"type"`
	Description string `json:"description"`
	// Filter and GroupBy say whether the field is a filter and a group_by dimension.
	Filter  bool `json:"filter,omitempty"`
	GroupBy bool `json:"group_by,omitempty"`
	// Codebook names the codebook that lists the field's valid values, if any.
	Codebook string `json:"codebook,omitempty"`
	// Enum, when set, is the closed list of values the field takes.
	Enum []string `json:"enum,omitempty"`
	// Unique marks text that is (nearly) distinct on every row, such as a row key; the
	// engine keeps it as plain strings rather than dictionary codes.
	Unique bool `json:"-"`
	// Floor, when set on a filter, is the first value the capability answers: a filter value
	// ordered before it is refused with the floor's reason, whatever the snapshot holds.
	Floor *Floor `json:"floor,omitempty"`
	// Bookkeeping marks a field that repeats the snapshot or the citation (source id, as_of,
	// row key, sheet name, ...): it is served in records but left out of compact renderings
	// such as the command line's records table. The common fields are bookkeeping.
	Bookkeeping bool `json:"-"`
	// Cell, when set, says how ingest reads the field from the cells of its row where that is
	// not the literal cell of one column (cells.go); the aggregate evidence reads it so too.
	Cell *CellRule `json:"-"`
	// From names the published field this one is mapped from (generation_type from
	// generation_type_raw): where this one is null, the published one tells a cell the
	// publisher left blank from a published value the mapping gives no value.
	From string `json:"from,omitempty"`
	// Nulls says what a null value of the field means when it is not a cell the publisher
	// left blank (a sector's total has no parent line); empty: a null is a blank cell.
	Nulls string `json:"nulls,omitempty"`
	// Key, when set, names the shared vocabulary of the field's values (JoinKeys): a code
	// that means the same in every capability declaring it, or a name-only key that says the
	// field is a printed name, not a code.
	Key JoinKey `json:"join_key,omitempty"`
}

// Floor is the first value of a filter a capability answers, and why the values before it
// are not answered (a scope the capability states, such as "planning years before 2024").
type Floor struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// Before reports whether the filter value v of a field of type t is ordered before the
// floor: numbers as numbers, dates as dates, and text by the whole number it starts with
// (the planning year "2023-2024" and the auction "2023-2024 PRA" are before "2024-2025").
// A value that cannot be ordered so (text that starts with no digit, a number that does not
// parse) is not before the floor; the filter's other checks judge it.
func (f *Floor) Before(t Type, v string) bool {
	v = strings.TrimSpace(v)
	switch t {
	case Integer, Number:
		x, err1 := strconv.ParseFloat(v, 64)
		y, err2 := strconv.ParseFloat(f.Value, 64)
		return err1 == nil && err2 == nil && x < y
	case Date:
		_, err := time.Parse("2006-01-02", v)
		return err == nil && v < f.Value
	case String:
		x, ok1 := leadingNumber(v)
		y, ok2 := leadingNumber(f.Value)
		return ok1 && ok2 && x < y
	}
	return false
}

// leadingNumber is the whole number a text starts with.
func leadingNumber(s string) (int64, bool) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	x, err := strconv.ParseInt(s[:n], 10, 64)
	return x, n > 0 && err == nil
}

// Metric is one aggregate a query can return.
type Metric struct {
	Name        string `json:"name"`
	Unit        string `json:"unit"`
	Agg         Agg    `json:"aggregation"`
	Column      string `json:"column,omitempty"`
	Additive    bool   `json:"additive_across_groups"`
	Description string `json:"description"`
	// NullNote names the note that reports how many matched rows had a null Column and so
	// were not counted (count_distinct metrics).
	NullNote string `json:"null_note,omitempty"`
	// UnitColumn, when set, is the field holding each row's unit; a set of rows that mixes
	// units has no value for this metric (it is null and a mixed_units note says why).
	UnitColumn string `json:"unit_column,omitempty"`
	// Denominator is the column summed below Column in a Ratio.
	Denominator string `json:"denominator,omitempty"`
	// Percentile is the percentile (strictly between 0 and 100) a Percentile metric takes.
	Percentile float64 `json:"percentile,omitempty"`
	// NotRecomputable, when set, says why the metric cannot be recomputed from the cells its
	// citations cite (a period's sum over hours its row does not cite): the aggregate evidence
	// refuses it with this reason, and the schema shows it.
	NotRecomputable string `json:"not_recomputable,omitempty"`
	// OnePeriod, when set, says the metric adds values of one period only (seasonally
	// adjusted annual rates are a pace, not amounts: the rates of twelve months do not add up
	// to a year): over rows of several periods (Capability.Periods) it is null, and a
	// not_additive_over_time note gives the reason and what to ask instead.
	OnePeriod *Why `json:"one_period,omitempty"`
	// Shares, when set, says the metric's values are shares (percents of a base that differs
	// from row to row) on the rows whose unit column reads one of its units: an average of
	// several of them is not a share of anything, and no weight is declared, so over more
	// than one such value the metric is null and a share_not_averaged note says why.
	Shares *Shares `json:"shares,omitempty"`
}

// Why is a rule's reason and what a reader asks instead.
type Why struct {
	Reason  string `json:"reason"`
	Instead string `json:"instead"`
}

// Shares declares the rows whose values are shares: those whose unit column reads one of
// Units.
type Shares struct {
	Units []string `json:"units"`
	Why
}

// Periods says which field holds the period a row's value is for (a month, a day) and which
// field holds that value: a period is present in a set of rows when one of its rows has a
// value. A grouped answer whose groups have values for different numbers of periods says each
// group's number (periods_present), so that groups of unequal coverage are not compared as if
// they were alike.
type Periods struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// Quantile is the percentile a Median (50) or Percentile metric takes, and false for any
// other aggregation.
func (m Metric) Quantile() (float64, bool) {
	switch m.Agg {
	case Median:
		return 50, true
	case Percentile:
		return m.Percentile, true
	}
	return 0, false
}

// DateRange is a pair of parameters <Name>_date_from and <Name>_date_to over a date field.
type DateRange struct {
	Name   string `json:"name"`
	Column string `json:"column"`
	// Instants, when set, lets a bound be an instant as well as a date: the range is over a
	// timestamp field too, and a bound given as an RFC 3339 timestamp is compared with it (in
	// UTC) instead of with the date field.
	Instants *Instants `json:"instants,omitempty"`
}

// Instants says how a date range compares a bound given as a timestamp: with the UTC instant
// held by field From (for the _from bound) and field To (for the _to bound), both inclusive.
// The fields hold instants as YYYY-MM-DDTHH:MM:SSZ, so text order is time order.
type Instants struct {
	From string `json:"from_field"`
	To   string `json:"to_field"`
	// Convention says what the instants mark (the end of an hour, say) and how a date bound
	// relates to them; the schema quotes it.
	Convention string `json:"convention"`
}

// Repeat declares rows that repeat, for some metrics, what rows of other values of a
// partition dimension already count (EIA-861 Part C delivery-only lines repeat the energy
// sold under Part B): the metrics leave the repeating rows out, and an answer whose rows span
// the repeating value and others says so, and how to split, in its mixed_partition note.
type Repeat struct {
	// Dimension is a partition dimension of the capability.
	Dimension string `json:"dimension"`
	// Values are the dimension's values whose rows repeat others (C), Of the values they
	// repeat (B).
	Values []string `json:"values"`
	Of     []string `json:"of"`
	// Metrics are the metrics that leave the repeating rows out (their input columns are
	// null on those rows).
	Metrics []string `json:"metrics"`
	// Reason is why, in the publisher's terms.
	Reason string `json:"reason"`
}

// From is the name of the range's lower-bound parameter.
func (d DateRange) From() string { return d.Name + "_date_from" }

// To is the name of the range's upper-bound parameter.
func (d DateRange) To() string { return d.Name + "_date_to" }

// Capability is one queryable data set.
type Capability struct {
	ID          string `json:"capability"`
	Path        string `json:"path"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Grain       string `json:"grain"`
	// Cadence is how often the source publishes new data points.
	Cadence   Cadence `json:"cadence"`
	Publisher string  `json:"publisher"`
	// AsOfRule says how a snapshot's as_of date is derived from its source files.
	AsOfRule string `json:"as_of_rule"`
	// Documents says how the publisher's documents relate (complement or restate each
	// other), which decides what one snapshot holds.
	Documents Documents `json:"documents"`
	// NaturalKey lists the fields that identify one row; the gates check it is unique.
	NaturalKey []string    `json:"natural_key"`
	Fields     []Field     `json:"fields"`
	Metrics    []Metric    `json:"metrics"`
	DateRanges []DateRange `json:"date_ranges"`
	// Partitions lists the dimensions whose values must not be added silently (lifecycle
	// stages, price series in different units, ...): an answer whose matched set spans
	// several values of one, neither filtered to one value nor grouped by, carries a note
	// naming the dimension, its values and how to split. Each is a filter and a group_by
	// dimension.
	Partitions []string `json:"partitions,omitempty"`
	// Repeats declares, for partition dimensions, rows that repeat what others count.
	Repeats []Repeat `json:"repeats,omitempty"`
	// Flags declares rows an answer names whenever it includes them (a note per flag).
	Flags []Flag `json:"flags,omitempty"`
	// Periods, when set, names the period of a row's value, for the answers' coverage notes
	// and the metrics declared OnePeriod.
	Periods *Periods `json:"periods,omitempty"`
	// Inputs, when set, makes the capability derived: it has no snapshot of its own and is
	// computed at query time from the snapshots of these capabilities (served when all of
	// them are).
	Inputs []string `json:"inputs,omitempty"`
	// Rules are the capability's stated rules and what it does not answer.
	Rules []string `json:"rules,omitempty"`
	// SourceView, when true, adds a source_view member to aggregate citations.
	SourceView bool `json:"-"`
	// Originals, when set, names the fields in which a row of a transcription (a derived file
	// each row of which names the publisher's document and page it was copied from) holds
	// that document's address and page: the row's citation gives them as its original_url
	// and original_page, in place of the file's original, and the evidence endpoint checks
	// them against the row.
	Originals *Originals `json:"-"`
	// Unserved says why the capability has no snapshot when none is promoted (for example:
	// no file of the publisher has been ingested yet, and where ingest --fetch gets it).
	Unserved string `json:"-"`
}

// Originals names the fields holding the publisher's document and page a transcribed row
// was copied from.
type Originals struct {
	// Document is the string field holding the address of the publisher's document.
	Document string
	// Page is the string field holding the page (and table) of that document.
	Page string
}

// Field returns the named field.
func (c *Capability) Field(name string) (Field, bool) {
	for _, f := range c.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Metric returns the named metric.
func (c *Capability) Metric(name string) (Metric, bool) {
	for _, m := range c.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// FilterNames lists the filters, as_of first.
func (c *Capability) FilterNames() []string {
	out := []string{"as_of"}
	for _, f := range c.Fields {
		if f.Filter {
			out = append(out, f.Name)
		}
	}
	return out
}

// GroupByNames lists the group_by dimensions.
func (c *Capability) GroupByNames() []string {
	var out []string
	for _, f := range c.Fields {
		if f.GroupBy {
			out = append(out, f.Name)
		}
	}
	return out
}

// MetricNames lists the metrics in definition order.
func (c *Capability) MetricNames() []string {
	out := make([]string, len(c.Metrics))
	for i, m := range c.Metrics {
		out[i] = m.Name
	}
	return out
}

// RepeatOf returns the repeat declared on partition dimension name.
func (c *Capability) RepeatOf(name string) (Repeat, bool) {
	for _, r := range c.Repeats {
		if r.Dimension == name {
			return r, true
		}
	}
	return Repeat{}, false
}

// ToolName is the capability's name in MCP tools: the identifier with dots as underscores.
func (c *Capability) ToolName() string { return strings.ReplaceAll(c.ID, ".", "_") }

// Controls are the query controls every capability accepts.
var Controls = []string{"include_records", "include_evidence", "limit", "order_by", "order", "top_n", "rollup_other"}

// Lineage columns carried by every fact row.
const (
	ColSourceID   = "_source_id"
	ColSourceFile = "_source_file"
	ColSheet      = "_sheet"
	ColSourceRow  = "_source_row"
	ColRawSHA256  = "_raw_file_sha256"
)

// LineageFields are the lineage columns of every fact table, in storage order.
var LineageFields = []Field{
	{Name: ColSourceID, Type: String, Description: "source identifier"},
	{Name: ColSourceFile, Type: String, Description: "file name as published"},
	{Name: ColSheet, Type: String, Description: "sheet (or page) of the file"},
	{Name: ColSourceRow, Type: Integer, Description: "1-based row number as the file numbers it"},
	{Name: ColRawSHA256, Type: String, Description: "sha256 of the raw file"},
}

var registry = map[string]*Capability{}

// register adds the common fields a definition does not declare itself, validates the
// definition and adds it to the registry. A definition that does not validate, or that
// repeats another's identifier or path, stops the program at start-up with the reason.
func register(c *Capability) *Capability {
	addCommon(c)
	if err := c.Validate(); err != nil {
		panic(err)
	}
	for _, o := range registry {
		if o.ID == c.ID {
			panic(fmt.Errorf("capability %s is defined twice", c.ID))
		}
		if o.Path == c.Path {
			panic(fmt.Errorf("capabilities %s and %s share the path %s", o.ID, c.ID, c.Path))
		}
	}
	registry[c.ID] = c
	return c
}

// All lists every defined capability, sorted by identifier.
func All() []*Capability {
	out := make([]*Capability, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ByID returns the capability with the given identifier.
func ByID(id string) *Capability { return registry[id] }

// ByPath returns the capability served under path segment p (e.g. "power/capacity").
func ByPath(p string) *Capability {
	for _, c := range registry {
		if c.Path == p {
			return c
		}
	}
	return nil
}

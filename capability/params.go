package capability

import (
	"slices"
	"strings"
)

// The query parameters of a capability are defined here once, from its definition: the
// validator (service), the schema endpoint's controls, the OpenAPI query string and request
// body (api), the GET form's reading and the MCP tool input schemas (mcp) all read Params,
// and a test of each rendering checks that it lists every parameter and no other.

// Limits of include_records.
const (
	DefaultLimit = 100
	MaxLimit     = 5000
)

// Names of the parameters the service reads before it validates the others.
const (
	// ParamAsOf picks the snapshot: latest, a served as_of date, or on:<date>.
	ParamAsOf = "as_of"
	// ParamCursor asks for the next page of a paged answer: the summary.next_cursor of the
	// page before.
	ParamCursor = "cursor"
	// ParamCompareAsOf asks what changed between the query's snapshot and another snapshot
	// of the same capability (interconnection queues: projects keyed by queue_id).
	ParamCompareAsOf = "compare_as_of"
)

// ParamKind says what a query parameter selects, which decides where a params object holds
// it and how the validator reads it.
type ParamKind string

// Kinds of query parameters.
const (
	// KindAsOf is as_of, given at the top level or inside filters.
	KindAsOf ParamKind = "as_of"
	// KindFilter is a filter field: one value or a list, inside filters or at the top level.
	KindFilter ParamKind = "filter"
	// KindGroupBy is group_by: a list of dimensions (comma-separated text is taken too).
	KindGroupBy ParamKind = "group_by"
	// KindRange is one bound of a date range.
	KindRange ParamKind = "date_range"
	// KindControl is a control every capability accepts (include_records, limit, ...).
	KindControl ParamKind = "control"
	// KindPaging is cursor.
	KindPaging ParamKind = "paging"
	// KindCompare is compare_as_of, of a capability that compares snapshots.
	KindCompare ParamKind = "compare"
)

// Param is one query parameter of a capability: its name, kind, value type and the limits
// the validator enforces and the schemas state.
type Param struct {
	Name string
	Kind ParamKind
	// Type is the JSON type of the value (of each item, for a List).
	Type Type
	// List says the value is a list (group_by).
	List bool
	// Enum is the closed list of values, when there is one.
	Enum []string
	// Own says Enum lists the capability's own names (its metrics or dimensions), so the
	// parameter is rendered per capability; Params of no capability leave Enum empty.
	Own bool
	// Min and Max bound an integer value (0: no bound).
	Min, Max int
	// Default is the value taken when the parameter is absent (nil: none stated).
	Default any
	// Pattern is the regular expression a string value matches (as_of, compare_as_of).
	Pattern string
	// Needs names the parameters this one requires.
	Needs []string
	// Description says what the parameter does, for the schemas that describe it.
	Description string
	// Field is the field of a KindFilter parameter.
	Field Field
	// Range and Upper are the date range of a KindRange parameter and which bound it is.
	Range DateRange
	Upper bool
}

// AsOfDescription describes as_of.
const AsOfDescription = "The snapshot to answer from: `latest` (the default), a served as_of date YYYY-MM-DD, or `on:YYYY-MM-DD`, the snapshot in force at that date (the newest on or before it; a date before every snapshot is a 400 listing the served dates). The response states the exact date resolved."

// CompareAsOfDescription describes compare_as_of.
const CompareAsOfDescription = "Another snapshot of the same capability (a served as_of date YYYY-MM-DD, or latest) to compare with: the answer is then the comparison, not the query's answer: `figures` holds the query's answer at both snapshots (keyed by as_of, every group cited). Every project of either snapshot is classified by its queue_id first (the n-th repeat of an id on a sheet as id#n): `entered` (absent from the older file), `left` (absent from the newer), `status_changed` (normalized or raw; `summary.withdrawn_since` counts those now withdrawn), `mw_changed`, or unchanged (counted in `summary.unchanged`), each side with its own record citation; the filters then select among them by their values in either snapshot (entered by the newer, left by the older, the others when either matches), and a filter value is valid when either snapshot holds it. Rows without an identity (known_defect) are listed under `not_compared`."

// commonParams are the parameters every capability accepts, in the order Params gives them
// (filters follow as_of, date ranges follow group_by).
var commonParams = []Param{
	{Name: ParamAsOf, Kind: KindAsOf, Type: String, Default: "latest", Pattern: "^(latest|(on:)?[0-9]{4}-[0-9]{2}-[0-9]{2})$", Description: AsOfDescription},
	{Name: "group_by", Kind: KindGroupBy, Type: String, List: true, Own: true},
	{Name: "include_records", Kind: KindControl, Type: Boolean, Default: false, Description: "return the matched detail records (in source order), each with its own citation"},
	{Name: "include_evidence", Kind: KindControl, Type: Boolean, Default: false, Description: "add to every aggregate citation the verified literal cells of its verify row (what the evidence endpoint returns)"},
	{Name: "limit", Kind: KindControl, Type: Integer, Min: 1, Max: MaxLimit, Default: DefaultLimit, Description: "the most detail records include_records returns; summary.records_truncated says when more matched"},
	{Name: "order_by", Kind: KindControl, Type: String, Own: true, Needs: []string{"group_by"}, Description: "a metric to rank groups by; needs group_by"},
	{Name: "order", Kind: KindControl, Type: String, Enum: []string{"desc", "asc"}, Default: "desc", Description: "the ranking direction of order_by"},
	{Name: "top_n", Kind: KindControl, Type: Integer, Min: 1, Needs: []string{"group_by", "order_by"}, Description: "keep the top N groups; needs group_by and order_by"},
	{Name: "rollup_other", Kind: KindControl, Type: Boolean, Default: true, Description: "with top_n: fold the remaining groups into (other); false drops them (summary.totals still covers them)"},
	{Name: ParamCursor, Kind: KindPaging, Type: String, Description: "the next page of an answer that pages (records past the page budget, the lists of compare_as_of): summary.next_cursor of the page before, with the same params"},
}

// compareParam is compare_as_of.
var compareParam = Param{Name: ParamCompareAsOf, Kind: KindCompare, Type: String, Pattern: `^(latest|[0-9]{4}-[0-9]{2}-[0-9]{2})$`, Description: CompareAsOfDescription}

// CommonParams are the parameters every capability accepts, Own ones without their values:
// as_of, group_by, the controls and cursor.
func CommonParams() []Param { return append([]Param(nil), commonParams...) }

// CommonParam returns the parameter every capability accepts named name.
func CommonParam(name string) (Param, bool) {
	for _, p := range commonParams {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// CompareParam is compare_as_of, which the capabilities that compare accept (Compares).
func CompareParam() Param { return compareParam }

// Compares reports whether capability c answers compare_as_of: the interconnection queues,
// whose projects are keyed by queue_id.
func Compares(c *Capability) bool {
	_, ok := c.Field("queue_id")
	return ok
}

// ControlNames lists the controls (KindControl) in order.
func ControlNames() []string {
	var out []string
	for _, p := range commonParams {
		if p.Kind == KindControl {
			out = append(out, p.Name)
		}
	}
	return out
}

// Params are the query parameters of c, in order: as_of, its filters, group_by (its
// dimensions), its date ranges (each from, then to), the controls (order_by naming its
// metrics), cursor, and compare_as_of when c compares.
func (c *Capability) Params() []Param {
	out := make([]Param, 0, len(commonParams)+len(c.Fields)+2*len(c.DateRanges)+1)
	for _, p := range commonParams {
		switch p.Name {
		case "group_by":
			p.Enum = c.GroupByNames()
		case "order_by":
			p.Enum = c.MetricNames()
		}
		out = append(out, p)
		switch p.Kind {
		case KindAsOf:
			for _, f := range c.Fields {
				if f.Filter {
					out = append(out, Param{Name: f.Name, Kind: KindFilter, Type: f.Type, Enum: f.Enum, Description: f.Description, Field: f})
				}
			}
		case KindGroupBy:
			for _, r := range c.DateRanges {
				out = append(out,
					Param{Name: r.From(), Kind: KindRange, Type: String, Range: r},
					Param{Name: r.To(), Kind: KindRange, Type: String, Range: r, Upper: true})
			}
		}
	}
	if Compares(c) {
		out = append(out, compareParam)
	}
	return out
}

// Param returns the query parameter of c named name.
func (c *Capability) Param(name string) (Param, bool) {
	for _, p := range c.Params() {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// InOrder returns params with the parameters named in names in the places they hold, in the
// order names gives them; the others keep their places. It serves a rendering whose order of
// members was fixed before Params (its bytes are pinned).
func InOrder(params []Param, names ...string) []Param {
	out := append([]Param(nil), params...)
	var places []int
	for i, p := range out {
		if slices.Contains(names, p.Name) {
			places = append(places, i)
		}
	}
	next := 0
	for _, n := range names {
		for _, p := range params {
			if p.Name == n && next < len(places) {
				out[places[next]] = p
				next++
			}
		}
	}
	return out
}

// CamelName is the parameter's name in CamelCase (top_n → TopN), for the names of the
// OpenAPI components that describe it.
func (p Param) CamelName() string {
	var b strings.Builder
	for _, part := range strings.Split(p.Name, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

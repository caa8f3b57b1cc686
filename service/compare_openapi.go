package service

import (
	"slices"

	"github.com/citeq/citeq/capability"
)

// Compares reports whether capability c answers compare_as_of: the interconnection queues,
// whose projects are keyed by queue_id.
func Compares(c *capability.Capability) bool {
	_, ok := c.Field("queue_id")
	return ok
}

// CompareAsOfPattern is what compare_as_of takes: a served snapshot date, or latest.
const CompareAsOfPattern = `^(latest|[0-9]{4}-[0-9]{2}-[0-9]{2})$`

// CompareAsOfDescription describes compare_as_of, in the OpenAPI document and the MCP tool
// schemas alike.
const CompareAsOfDescription = "Another snapshot of the same capability (a served as_of date YYYY-MM-DD, or latest) to compare with: the answer is then the comparison, not the query's answer: `figures` holds the query's answer at both snapshots (keyed by as_of, every group cited). Every project of either snapshot is classified by its queue_id first (the n-th repeat of an id on a sheet as id#n): `entered` (absent from the older file), `left` (absent from the newer), `status_changed` (normalized or raw; `summary.withdrawn_since` counts those now withdrawn), `mw_changed`, or unchanged (counted in `summary.unchanged`), each side with its own record citation; the filters then select among them by their values in either snapshot (entered by the newer, left by the older, the others when either matches), and a filter value is valid when either snapshot holds it. Rows without an identity (known_defect) are listed under `not_compared`."

// oaCompareSchema is the schema of compare_as_of's value.
func oaCompareSchema() Obj {
	return Obj{{"type", "string"}, {"pattern", CompareAsOfPattern}, {"description", CompareAsOfDescription}}
}

// oaCompareParameter is the GET pair compare_as_of of a capability that compares (none
// otherwise).
func oaCompareParameter(c *capability.Capability) []Obj {
	if !Compares(c) {
		return nil
	}
	return []Obj{{{"name", CompareParam}, {"in", "query"}, {"required", false}, {"description", CompareAsOfDescription}, {"schema", oaCompareSchema()}}}
}

// oaCompareProperty is the params member compare_as_of of a capability that compares.
func oaCompareProperty(c *capability.Capability) Obj {
	if !Compares(c) {
		return nil
	}
	return Obj{{CompareParam, oaCompareSchema()}}
}

// oaQueryOK is the schema of a query's 200 answer: the cited answer, or, for a capability that
// compares, the comparison too (a body with compare_as_of).
func oaQueryOK(c *capability.Capability) Obj {
	pfx := oaSchemaPrefix(c)
	if !Compares(c) {
		return oaSref(pfx + "QueryResponse")
	}
	return Obj{{"oneOf", []Obj{oaSref(pfx + "QueryResponse"), oaSref(pfx + "CompareResponse")}}}
}

// oaCompareSchemas are the component schemas of the comparison of a capability that compares.
func oaCompareSchemas(c *capability.Capability) Obj {
	if !Compares(c) {
		return nil
	}
	pfx := oaSchemaPrefix(c)
	nullStr := func(desc string) Obj { return Obj{{"type", []string{"string", "null"}}, {"description", desc}} }
	projectMembers := Obj{
		{"queue_id", oaStr("the operator's queue id as published")},
		{"sheet", oaStr("the sheet the row is on")},
		{"status", nullStr("normalized status (null on a placeholder, which is not a project)")},
		{"status_raw", nullStr("status as published")},
		{"requested_mw", Obj{{"type", []string{"number", "null"}}, {"description", "headline requested MW"}}},
		{"citation", oaSref("RecordCitation")},
	}
	projectRequired := []string{"queue_id", "sheet", "status", "status_raw", "requested_mw", "citation"}
	project := oaWithAdditional(oaObject("One project of one snapshot, cited to its source row.", projectMembers, projectRequired...), false)
	unmatched := oaWithAdditional(oaObject("A row of one snapshot without an identity to match (known_defect), cited to its source row.",
		append(slices.Clone(projectMembers),
			KV{"as_of", oaDate("the snapshot the row is in")},
			KV{"known_defect", oaStr("placeholder (not a project) or no_queue_id (a project published without a queue id)")}),
		append(slices.Clone(projectRequired), "as_of", "known_defect")...), false)
	change := oaWithAdditional(oaObject("A project in both snapshots, before and after.", Obj{
		{"queue_id", oaStr("")},
		{"before", oaSref(pfx + "CompareProject")},
		{"after", oaSref(pfx + "CompareProject")},
	}, "queue_id", "before", "after"), false)
	count := func(desc string) Obj { return Obj{{"type", "integer"}, {"minimum", 0}, {"description", desc}} }
	summary := oaWithAdditional(oaObject("", Obj{
		{"projects_before", count("projects of the older snapshot (with a queue id) the filters match")},
		{"projects_after", count("projects of the newer snapshot (with a queue id) the filters match")},
		{"entered", count("")}, {"left", count("")}, {"status_changed", count("")},
		{"withdrawn_since", count("projects whose status became withdrawn")}, {"mw_changed", count("")},
		{"unchanged", count("projects in both snapshots the filters select whose status and requested MW did not change")},
		{"not_compared", count("rows the filters select that have no identity to match (known_defect)")},
		{"note", oaStr("")},
		{"page", oaObject("present when the lists page: where this page starts in each whole list", Obj{
			{"entered_from", count("")}, {"left_from", count("")}, {"status_changed_from", count("")}, {"mw_changed_from", count("")}, {"not_compared_from", count("")},
		}, "entered_from", "left_from", "status_changed_from", "mw_changed_from", "not_compared_from")},
	}.with(oaPageMembers()...), "projects_before", "projects_after", "entered", "left", "status_changed", "withdrawn_since", "mw_changed", "unchanged", "not_compared", "note"), false)
	response := oaWithAdditional(oaObject("What changed between two snapshots of "+c.ID+" (a query with compare_as_of).", Obj{
		{"capability", Obj{{"type", "string"}, {"const", c.ID}}},
		{"as_of", oaDate("the query's snapshot (latest resolved)")},
		{CompareParam, oaDate("the snapshot compared with")},
		{"from_as_of", oaDate("the older of the two")},
		{"to_as_of", oaDate("the newer of the two")},
		{"summary", summary},
		{"figures", oaWithDesc(Obj{{"type", "object"}, {"propertyNames", Obj{{"format", "date"}}}, {"additionalProperties", oaSref(pfx + "QueryResponse")}},
			"the query's answer at each snapshot, keyed by as_of (on the first page only)")},
		{"entered", oaArray(oaSref(pfx+"CompareProject"), "projects in the newer snapshot only")},
		{"left", oaArray(oaSref(pfx+"CompareProject"), "projects in the older snapshot only (removed from the operator's file)")},
		{"status_changed", oaArray(oaSref(pfx+"CompareChange"), "projects whose normalized or raw status changed")},
		{"mw_changed", oaArray(oaSref(pfx+"CompareChange"), "projects whose requested MW changed")},
		{"not_compared", oaArray(oaSref(pfx+"CompareUnmatched"), "rows without an identity to match (known_defect), in either snapshot")},
	}, "capability", "as_of", CompareParam, "from_as_of", "to_as_of", "summary", "entered", "left", "status_changed", "mw_changed", "not_compared"), false)
	return Obj{
		{pfx + "CompareResponse", response},
		{pfx + "CompareProject", project},
		{pfx + "CompareChange", change},
		{pfx + "CompareUnmatched", unmatched},
	}
}

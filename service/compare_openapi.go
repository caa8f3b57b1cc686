package service

import (
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
const CompareAsOfDescription = "Another snapshot of the same capability (a served as_of date YYYY-MM-DD, or latest) to compare with: the answer is then the comparison, not the query's answer: `figures` holds the query's answer at both snapshots (keyed by as_of, every group cited), and `entered`, `left` (absent from the newer file), `status_changed` (normalized or raw; `summary.withdrawn_since` counts those now withdrawn) and `mw_changed` list the projects that changed from the older snapshot to the newer, each side with its own record citation. Projects are matched by queue_id (the n-th repeat of an id on a sheet as id#n)."

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
	project := oaWithAdditional(oaObject("One project of one snapshot, cited to its source row.", Obj{
		{"queue_id", oaStr("the operator's queue id as published")},
		{"sheet", oaStr("the sheet the project is on")},
		{"status", nullStr("normalized status")},
		{"status_raw", nullStr("status as published")},
		{"requested_mw", Obj{{"type", []string{"number", "null"}}, {"description", "headline requested MW"}}},
		{"citation", oaSref("RecordCitation")},
	}, "queue_id", "sheet", "status", "status_raw", "requested_mw", "citation"), false)
	change := oaWithAdditional(oaObject("A project in both snapshots, before and after.", Obj{
		{"queue_id", oaStr("")},
		{"before", oaSref(pfx + "CompareProject")},
		{"after", oaSref(pfx + "CompareProject")},
	}, "queue_id", "before", "after"), false)
	count := func(desc string) Obj { return Obj{{"type", "integer"}, {"minimum", 0}, {"description", desc}} }
	summary := oaWithAdditional(oaObject("", Obj{
		{"projects_before", count("projects of the older snapshot the query matches")},
		{"projects_after", count("projects of the newer snapshot the query matches")},
		{"entered", count("")}, {"left", count("")}, {"status_changed", count("")},
		{"withdrawn_since", count("projects whose status became withdrawn")}, {"mw_changed", count("")},
		{"note", oaStr("")},
		{"page", oaObject("present when the lists page: where this page starts in each whole list", Obj{
			{"entered_from", count("")}, {"left_from", count("")}, {"status_changed_from", count("")}, {"mw_changed_from", count("")},
		}, "entered_from", "left_from", "status_changed_from", "mw_changed_from")},
	}.with(oaPageMembers()...), "projects_before", "projects_after", "entered", "left", "status_changed", "withdrawn_since", "mw_changed", "note"), false)
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
	}, "capability", "as_of", CompareParam, "from_as_of", "to_as_of", "summary", "entered", "left", "status_changed", "mw_changed"), false)
	return Obj{
		{pfx + "CompareResponse", response},
		{pfx + "CompareProject", project},
		{pfx + "CompareChange", change},
	}
}

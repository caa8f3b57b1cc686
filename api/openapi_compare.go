package api

import (
	"slices"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// oaQueryOK is the schema of a query's 200 answer: the cited answer, or, for a capability that
// compares, the comparison too (a body with compare_as_of).
func oaQueryOK(c *capability.Capability) service.Obj {
	pfx := oaSchemaPrefix(c)
	if !capability.Compares(c) {
		return oaSref(pfx + "QueryResponse")
	}
	return service.Obj{{"oneOf", []service.Obj{oaSref(pfx + "QueryResponse"), oaSref(pfx + "CompareResponse")}}}
}

// oaCompareSchemas are the component schemas of the comparison of a capability that compares.
func oaCompareSchemas(c *capability.Capability) service.Obj {
	if !capability.Compares(c) {
		return nil
	}
	pfx := oaSchemaPrefix(c)
	nullStr := func(desc string) service.Obj {
		return service.Obj{{"type", []string{"string", "null"}}, {"description", desc}}
	}
	projectMembers := service.Obj{
		{"queue_id", oaStr("the operator's queue id as published")},
		{"sheet", oaStr("the sheet the row is on")},
		{"status", nullStr("normalized status (null on a placeholder, which is not a project)")},
		{"status_raw", nullStr("status as published")},
		{"requested_mw", service.Obj{{"type", []string{"number", "null"}}, {"description", "headline requested MW"}}},
		{"citation", oaSref("RecordCitation")},
	}
	projectRequired := []string{"queue_id", "sheet", "status", "status_raw", "requested_mw", "citation"}
	project := oaWithAdditional(oaObject("One project of one snapshot, cited to its source row.", projectMembers, projectRequired...), false)
	unmatched := oaWithAdditional(oaObject("A row of one snapshot without an identity to match (known_defect), cited to its source row.",
		append(slices.Clone(projectMembers),
			service.KV{"as_of", oaDate("the snapshot the row is in")},
			service.KV{"known_defect", oaStr("placeholder (not a project) or no_queue_id (a project published without a queue id)")}),
		append(slices.Clone(projectRequired), "as_of", "known_defect")...), false)
	change := oaWithAdditional(oaObject("A project in both snapshots, before and after.", service.Obj{
		{"queue_id", oaStr("")},
		{"before", oaSref(pfx + "CompareProject")},
		{"after", oaSref(pfx + "CompareProject")},
	}, "queue_id", "before", "after"), false)
	count := func(desc string) service.Obj {
		return service.Obj{{"type", "integer"}, {"minimum", 0}, {"description", desc}}
	}
	summary := oaWithAdditional(oaObject("", service.Obj{
		{"projects_before", count("projects of the older snapshot (with a queue id) the filters match")},
		{"projects_after", count("projects of the newer snapshot (with a queue id) the filters match")},
		{"entered", count("")}, {"left", count("")}, {"status_changed", count("")},
		{"withdrawn_since", count("projects whose status became withdrawn")}, {"mw_changed", count("")},
		{"unchanged", count("projects in both snapshots the filters select whose status and requested MW did not change")},
		{"not_compared", count("rows the filters select that have no identity to match (known_defect)")},
		{"note", oaStr("")},
		{"page", oaObject("present when the lists page: where this page starts in each whole list", service.Obj{
			{"entered_from", count("")}, {"left_from", count("")}, {"status_changed_from", count("")}, {"mw_changed_from", count("")}, {"not_compared_from", count("")},
		}, "entered_from", "left_from", "status_changed_from", "mw_changed_from", "not_compared_from")},
	}.With(oaPageMembers()...), "projects_before", "projects_after", "entered", "left", "status_changed", "withdrawn_since", "mw_changed", "unchanged", "not_compared", "note"), false)
	response := oaWithAdditional(oaObject("What changed between two snapshots of "+c.ID+" (a query with compare_as_of).", service.Obj{
		{"capability", service.Obj{{"type", "string"}, {"const", c.ID}}},
		{"as_of", oaDate("the query's snapshot (latest resolved)")},
		{capability.ParamCompareAsOf, oaDate("the snapshot compared with")},
		{"from_as_of", oaDate("the older of the two")},
		{"to_as_of", oaDate("the newer of the two")},
		{"summary", summary},
		{"figures", oaWithDesc(service.Obj{{"type", "object"}, {"propertyNames", service.Obj{{"format", "date"}}}, {"additionalProperties", oaSref(pfx + "QueryResponse")}},
			"the query's answer at each snapshot, keyed by as_of (on the first page only)")},
		{"entered", oaArray(oaSref(pfx+"CompareProject"), "projects in the newer snapshot only")},
		{"left", oaArray(oaSref(pfx+"CompareProject"), "projects in the older snapshot only (removed from the operator's file)")},
		{"status_changed", oaArray(oaSref(pfx+"CompareChange"), "projects whose normalized or raw status changed")},
		{"mw_changed", oaArray(oaSref(pfx+"CompareChange"), "projects whose requested MW changed")},
		{"not_compared", oaArray(oaSref(pfx+"CompareUnmatched"), "rows without an identity to match (known_defect), in either snapshot")},
	}, "capability", "as_of", capability.ParamCompareAsOf, "from_as_of", "to_as_of", "summary", "entered", "left", "status_changed", "mw_changed", "not_compared"), false)
	return service.Obj{
		{pfx + "CompareResponse", response},
		{pfx + "CompareProject", project},
		{pfx + "CompareChange", change},
		{pfx + "CompareUnmatched", unmatched},
	}
}

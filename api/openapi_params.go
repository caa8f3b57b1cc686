package api

import (
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// The query parameters in the OpenAPI document: the GET pairs and the params object of each
// capability, both rendered from its parameter schema (capability.Params), as the validator
// and the MCP tool schemas are.

// oaParamSchema is the schema of the value of parameter p (as_of, a control, cursor or
// compare_as_of): its type, values, pattern, bounds and default.
func oaParamSchema(p capability.Param) service.Obj {
	o := service.Obj{{"type", p.Type.JSONType()}}
	if len(p.Enum) > 0 {
		o = append(o, service.KV{"enum", p.Enum})
	}
	if p.Pattern != "" {
		o = append(o, service.KV{"pattern", p.Pattern})
	}
	if p.Min != 0 {
		o = append(o, service.KV{"minimum", p.Min})
	}
	if p.Max != 0 {
		o = append(o, service.KV{"maximum", p.Max})
	}
	if p.Default != nil {
		o = append(o, service.KV{"default", p.Default})
	}
	return o
}

// oaQueryParam is the GET pair of parameter p with schema.
func oaQueryParam(p capability.Param, schema service.Obj) service.Obj {
	return service.Obj{{"name", p.Name}, {"in", "query"}, {"required", false}, {"description", p.Description}, {"schema", schema}}
}

// oaShared reports whether parameter p is one GET pair component that every capability's
// query refers to: a control or cursor whose values are not the capability's own.
func oaShared(p capability.Param) bool {
	return (p.Kind == capability.KindControl || p.Kind == capability.KindPaging) && !p.Own
}

// oaSharedParameters are the parameter components: the request id and If-None-Match
// headers, and the GET pairs every capability shares.
func oaSharedParameters() service.Obj {
	out := service.Obj{
		{"RequestId", service.Obj{{"name", "X-Request-Id"}, {"in", "header"}, {"required", false},
			{"description", "A request id to log and echo; a new one is made when absent or over 64 characters."},
			{"schema", service.Obj{{"type", "string"}}}}},
		{"IfNoneMatch", service.Obj{{"name", "If-None-Match"}, {"in", "header"}, {"required", false},
			{"description", "Entity tags of answers held (or *): when one is the answer's ETag, the answer is 304 with no body."},
			{"schema", service.Obj{{"type", "string"}}}}},
	}
	for _, p := range capability.CommonParams() {
		if oaShared(p) {
			out = append(out, service.KV{p.CamelName(), oaQueryParam(p, oaParamSchema(p))})
		}
	}
	return out
}

// oaQueryParameters are the GET query pairs of capability c: q, then each of its parameters.
func oaQueryParameters(c *capability.Capability) []service.Obj {
	pfx := oaSchemaPrefix(c)
	params := []service.Obj{
		{{"name", "q"}, {"in", "query"}, {"required", false},
			{"description", "The whole params object as URL-encoded JSON (what POST takes as the body). It cannot be combined with other query parameters."},
			{"content", service.Obj{{"application/json", service.Obj{{"schema", oaSref(pfx + "QueryParams")}}}}}},
	}
	// The GET pairs have listed cursor after include_evidence, ahead of the ranking controls;
	// bytes pinned.
	for _, p := range capability.InOrder(c.Params(), "include_records", "limit", "include_evidence", capability.ParamCursor, "order_by", "order", "top_n", "rollup_other") {
		switch p.Kind {
		case capability.KindAsOf:
			params = append(params, oaQueryParam(p, oaSref(pfx+"AsOf")))
		case capability.KindFilter:
			params = append(params, service.Obj{{"name", p.Name}, {"in", "query"}, {"required", false},
				{"description", oaFilterDescription(c, p.Field) + " Repeat the pair for a list of values."},
				{"style", "form"}, {"explode", true},
				{"schema", service.Obj{{"type", "array"}, {"items", oaValueSchema(p.Field)}, {"minItems", 1}}}})
		case capability.KindGroupBy:
			names := p.Enum
			params = append(params, service.Obj{{"name", p.Name}, {"in", "query"}, {"required", false},
				{"description", "Dimensions to group by: repeat the pair, or give them comma-separated (`group_by=" + strings.Join(names[:min(2, len(names))], ",") + "`)."},
				{"style", "form"}, {"explode", true},
				{"schema", service.Obj{{"type", "array"}, {"items", service.Obj{{"anyOf", []service.Obj{
					{{"type", "string"}, {"enum", names}},
					{{"type", "string"}, {"pattern", oaCommaListPattern(names)}, {"description", "comma-separated dimensions"}},
				}}}}}}})
		case capability.KindRange:
			params = append(params, service.Obj{{"name", p.Name}, {"in", "query"}, {"required", false},
				{"description", oaRangeDescription(p.Range, p.Name)}, {"schema", oaRangeBound(p.Range)}})
		case capability.KindCompare:
			params = append(params, oaQueryParam(p, oaWithDesc(oaParamSchema(p), p.Description)))
		default:
			if oaShared(p) {
				params = append(params, oaPref(p.CamelName()))
				continue
			}
			params = append(params, oaQueryParam(p, oaParamSchema(p)))
		}
	}
	return params
}

// oaAsOfSchema is the schema of as_of of capability c, with the served dates as examples.
func oaAsOfSchema(c *capability.Capability, dates []string) service.Obj {
	p, _ := c.Param(capability.ParamAsOf)
	return append(oaWithDesc(oaParamSchema(p), p.Description), service.KV{"examples", oaAsOfExamples(dates)})
}

// oaQueryParams is the schema of the params object of capability c (the POST body, the JSON
// of q): as_of, filters, then each other parameter, each filter also at the top level.
func oaQueryParams(c *capability.Capability) service.Obj {
	pfx := oaSchemaPrefix(c)
	filterProps := service.Obj{{capability.ParamAsOf, oaSref(pfx + "AsOf")}}
	var topFilters service.Obj
	for _, p := range c.Params() {
		if p.Kind != capability.KindFilter {
			continue
		}
		d := oaFilterDescription(c, p.Field)
		filterProps = append(filterProps, service.KV{p.Name, oaFilterSchema(p.Field, d)})
		topFilters = append(topFilters, service.KV{p.Name, oaFilterSchema(p.Field, d+" The same as filters."+p.Name+"; give it in one place only.")})
	}
	var props, tail, needs service.Obj
	for _, p := range c.Params() {
		switch p.Kind {
		case capability.KindAsOf:
			props = append(props, service.KV{p.Name, oaSref(pfx + "AsOf")},
				service.KV{"filters", oaWithAdditional(oaObject("Filter name → a value or a non-empty list of values (any of them matches). as_of may also be given here.", filterProps), false)})
		case capability.KindFilter:
		case capability.KindGroupBy:
			props = append(props, service.KV{p.Name, service.Obj{{"type", "array"}, {"items", service.Obj{{"type", "string"}, {"enum", p.Enum}}}, {"uniqueItems", true},
				{"description", "Dimensions to group by, in order (a comma-separated string is also taken)."}}})
		case capability.KindRange:
			props = append(props, service.KV{p.Name, oaWithDesc(oaRangeBound(p.Range), oaRangeDescription(p.Range, p.Name))})
		case capability.KindCompare:
			// The filters given at the top level have come before compare_as_of; bytes pinned.
			tail = append(tail, service.KV{p.Name, oaWithDesc(oaParamSchema(p), p.Description)})
		default:
			props = append(props, service.KV{p.Name, oaWithDesc(oaParamSchema(p), p.Description)})
		}
		if len(p.Needs) > 0 {
			needs = append(needs, service.KV{p.Name, p.Needs})
		}
	}
	props = append(append(props, topFilters...), tail...)
	return append(oaWithAdditional(oaObject("The params object of a "+c.ID+" query. Unknown members are refused (400 invalid_filter).", props), false),
		service.KV{"dependentRequired", needs})
}

package api

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/oacheck"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
)

// TestParamsRenderedEverywhere checks that each capability's parameter schema
// (capability.Params) and its renderings name the same parameters: the OpenAPI GET pairs,
// the OpenAPI params object (and its filters member) and the MCP query tool's input schema
// (and its filters member). A parameter added to the schema that one of them leaves out, or
// one that a rendering lists and the schema does not, fails here. The validator takes every
// one of them as a parameter, not as an unknown filter.
func TestParamsRenderedEverywhere(t *testing.T) {
	s := openAPIService(t)
	doc := oacheck.Decode(t, OpenAPI(s))
	served := map[string]bool{}
	for _, c := range s.Served() {
		served[c.ID] = true
	}
	for _, c := range capability.All() {
		var all, filters, others []string
		for _, p := range c.Params() {
			all = append(all, p.Name)
			if p.Kind == capability.KindFilter {
				filters = append(filters, p.Name)
			} else {
				others = append(others, p.Name)
			}
		}
		check := func(rendering string, got []string, want ...string) {
			t.Helper()
			sort.Strings(got)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s names %v, the parameter schema %v", c.ID, rendering, got, want)
			}
		}

		var in struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(mcp.QuerySchema(s, c), &in); err != nil {
			t.Fatal(err)
		}
		var inFilters struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(in.Properties["filters"], &inFilters); err != nil {
			t.Fatalf("%s: the MCP input schema's filters: %v", c.ID, err)
		}
		check("the MCP query tool's input schema", keysBut(in.Properties, "filters"), others...)
		check("the MCP query tool's filters", keysBut(inFilters.Properties), filters...)

		if !served[c.ID] {
			continue // the OpenAPI document describes the served capabilities
		}
		pfx := oaSchemaPrefix(c)
		body := oaMember(doc, "components", "schemas", pfx+"QueryParams", "properties").(map[string]any)
		check("the OpenAPI params object", keysBut(body, "filters"), all...)
		check("the OpenAPI params object's filters", keysBut(oaMember(body, "filters", "properties").(map[string]any)), append([]string{capability.ParamAsOf}, filters...)...)
		var get []string
		for _, p := range oaMember(doc, "paths", "/v1/"+c.Path+"/query", "get", "parameters").([]any) {
			if r, ok := oaMember(p, "$ref").(string); ok {
				p, _ = oacheck.Resolve(doc, r)
			}
			if oaMember(p, "in") == "query" && oaMember(p, "name") != "q" {
				get = append(get, oaMember(p, "name").(string))
			}
		}
		check("the OpenAPI GET pairs", get, all...)

		for _, p := range c.Params() {
			if p.Kind == capability.KindPaging || p.Kind == capability.KindCompare {
				continue // read by Prepare, before Validate
			}
			req, e := service.ParseBody([]byte(`{"` + p.Name + `":"~"}`))
			if e != nil {
				t.Fatalf("%s: %s: %v", c.ID, p.Name, e)
			}
			if _, _, e := s.Validate(c, req); e != nil && strings.Contains(e.Message, "is not a filter or parameter") {
				t.Errorf("%s: the validator does not take %s: %s", c.ID, p.Name, e.Message)
			}
		}
	}
}

// keysBut lists the keys of m other than those named.
func keysBut[V any](m map[string]V, but ...string) []string {
	var out []string
	for k := range m {
		if !slices.Contains(but, k) {
			out = append(out, k)
		}
	}
	return out
}

package service

import (
	"bytes"
	"testing"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/capability/captest"
)

// TestSchemaRulesNeverNull: a definition with no rules is described with "rules": [] (an
// array, as the OpenAPI document says), never null.
func TestSchemaRulesNeverNull(t *testing.T) {
	c := captest.RegisterForTest(t, &capability.Capability{
		ID: "testonly.norules", Path: "testonly/norules", Title: "no rules", Description: "a definition without rules",
		Grain: "one row", Cadence: capability.Annual, Publisher: "test", AsOfRule: "fixed",
		Documents:  capability.Documents{Relation: capability.Restate, Document: "one table"},
		NaturalKey: []string{"name"},
		Fields:     []capability.Field{{Name: "name", Type: capability.String, Filter: true, GroupBy: true, Description: "name"}},
		Metrics:    []capability.Metric{{Name: "rows", Unit: "count", Agg: capability.Count, Additive: true, Description: "rows"}},
	})
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	body, e := s.Schema(c.Path)
	if e != nil {
		t.Fatal(e)
	}
	if !bytes.Contains(body, []byte(`"rules":[]`)) {
		t.Errorf("the schema does not say \"rules\":[]: %.600s", body)
	}
}

package service_test

import (
	"context"
	"testing"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/internal/oacheck"
	"github.com/citeq/citeq/service"
)

// TestCapacityFactorMatchesOpenAPI: the answers of the capacity factor fixture (a month, a
// ranked page of plants with records and evidence, a grouping by state and month), its schema
// and its refusal are what the OpenAPI document describes.
func TestCapacityFactorMatchesOpenAPI(t *testing.T) {
	s := service.CapacityFactorFixture(t)
	check := oacheck.Checker(t, oacheck.Decode(t, api.OpenAPI(s)))
	oct := `"period_date_from":"2022-10","period_date_to":"2022-10"`
	c := capability.PowerCapacityFactor
	const pfx = "PowerCapacityFactor" // the document's schema names of power.capacity_factor
	for _, q := range []string{`{` + oct + `}`, `{` + oct + `,"group_by":["eia_plant_id"],"order_by":"capacity_factor","top_n":2,"include_records":true,"limit":3,"include_evidence":true}`,
		`{"filters":{"month":"2022-10","state":"CO"},"group_by":["state","month"]}`} {
		check("params "+q, pfx+"QueryParams", []byte(q))
		b, e := s.QueryJSON(context.Background(), c.Path, []byte(q))
		if e != nil {
			t.Fatal(e.Body())
		}
		check(q, pfx+"QueryResponse", b)
	}
	b, e := s.Schema(c.Path)
	if e != nil {
		t.Fatal(e.Body())
	}
	check("schema", "CapabilitySchema", b)
	_, e = s.QueryJSON(context.Background(), c.Path, []byte(`{}`))
	check("refusal", "Error", e.Body())
}

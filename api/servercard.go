package api

import (
	"github.com/gin-gonic/gin"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
)

// serverCard is the MCP server card served at service.ServerCardPath: what an agent needs to
// connect before its first call (the endpoint, the protocol revisions, how to present a key,
// the free quota and the plans), and where the rest is described.
func serverCard() []byte {
	b := jsonw.MustMarshal(map[string]any{
		"name":              "citeq",
		"title":             "citeq: cited U.S. public data",
		"version":           mcp.Version,
		"description":       "Aggregates over U.S. public data files (power, AI infrastructure, robotics, space), every number cited down to the exact row of the exact file the agency published, re-openable and hash-verified.",
		"endpoint":          "/mcp",
		"transport":         "streamable-http",
		"protocol_versions": mcp.ProtocolVersions,
		"authentication": map[string]any{
			"scheme":   "bearer",
			"header":   "Authorization: Bearer <key>",
			"required": false,
			"note":     "without a key, queries count against the free quota of the client address; a key that is not live is refused, never treated as anonymous",
		},
		"free_quota": map[string]any{
			"queries": state.FreeQueries,
			"counted": "query tools (query_<capability>_v1, query_capability_v1) and REST queries alike; discover, describe, verify and resources are free",
			"plans":   []map[string]any{{"plan": "monthly", "price_usd": access.PriceMonthlyUSD, "period": "month"}, {"plan": "annual", "price_usd": access.PriceAnnualUSD, "period": "year"}},
		},
		"tools": map[string]any{
			"discover": "list_capabilities_v1",
			"describe": []string{"describe_<capability>_v1", mcp.DescribeTool},
			"query":    []string{"query_<capability>_v1", mcp.QueryTool},
			"verify":   []string{"get_source_evidence_v1", mcp.AggregateEvidenceTool},
		},
		"resource_templates": []string{mcp.SnapshotTemplate, mcp.SchemaTemplate, mcp.ValuesTemplate, mcp.ValueTemplate, mcp.EvidenceTemplate},
		"capabilities":       "/v1/capabilities",
		"openapi":            "/v1/openapi.json",
	})
	return b
}

// registerServerCard serves the server card.
func registerServerCard(r *gin.Engine) {
	card := serverCard()
	r.GET(service.ServerCardPath, func(c *gin.Context) { respond(c, latestMaxAge)(card, nil) })
}

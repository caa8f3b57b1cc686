package api

import (
	"github.com/gin-gonic/gin"

	"github.com/citeq/citeq/service"
)

// registerAggregateEvidence serves POST /v1/evidence/aggregate: a whole aggregate recomputed
// from the literal cells of the rows its citation cites. Like the row evidence, it re-hashes
// the raw file on every call, so its answer is never reused without revalidation. It is free
// (no key, no quota), like every verification; the service bounds how many run at once (503
// over_capacity with Retry-After beyond), and one whose client goes away stops.
func registerAggregateEvidence(r *gin.Engine, svc *service.Service) {
	r.POST(service.AggregateEvidencePath, func(c *gin.Context) {
		body, e := readBody(c)
		if e != nil {
			writeErr(c, e)
			return
		}
		respond(c, 0)(svc.AggregateEvidence(c.Request.Context(), body))
	})
}

// Package ask is the query use case REST and MCP both call: identify the caller, validate
// the params, count the query against the caller's quota (a valid one only), run it. A query
// is answered and counted the same whichever way it arrives.
package ask

import (
	"context"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/service"
)

// Answer is a query's payload and what the front ends put around it.
type Answer struct {
	Body []byte
	// Remaining is the remaining-queries value ("" without accounts); it is set on a
	// payment_required error too.
	Remaining string
	// Pinned reports whether the answer never changes (an exact as_of, no evidence).
	Pinned bool
	// Reverified reports whether the answer re-verified raw files (include_evidence) and
	// must be revalidated on every use.
	Reverified bool
}

// Query answers a query as every front end does: identify the caller, validate the params,
// count the query (a valid one only), run it. gate may be nil: no accounts, every query free.
func Query(ctx context.Context, svc *service.Service, gate *access.Gate, authorization, addr, path string, req *service.Request) (Answer, *apierror.Error) {
	var a Answer
	var caller access.Caller
	if err := ctx.Err(); err != nil {
		return a, &apierror.Error{Status: 503, Code: apierror.CodeCancelled, Message: "the request ended (" + err.Error() + ") before it was answered; send it again"}
	}
	if gate != nil {
		var e *apierror.Error
		if caller, e = gate.Identify(ctx, authorization, addr); e != nil {
			return a, e
		}
	}
	q, e := svc.Prepare(path, req)
	if e != nil {
		return a, e
	}
	a.Pinned = q.Pinned()
	a.Reverified = q.Reverified()
	if gate != nil {
		if a.Remaining, e = gate.CountQuery(ctx, caller); e != nil {
			return a, e
		}
	}
	a.Body, e = svc.Run(ctx, q)
	return a, e
}

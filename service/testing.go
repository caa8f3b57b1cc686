package service

import (
	"context"
	"testing"
)

// HoldAggregateEvidenceForTest makes every aggregate verification of s run hold, with the
// request's context, once it is admitted (it holds a slot while hold runs), until the test tb
// ends. It lets a test of another package see what a front end passes as the context (a
// cancelled MCP call must end it) and fill the verifications in flight.
func HoldAggregateEvidenceForTest(tb testing.TB, s *Service, hold func(ctx context.Context)) {
	tb.Helper()
	s.aggregate.onAdmit = hold
	tb.Cleanup(func() { s.aggregate.onAdmit = nil })
}

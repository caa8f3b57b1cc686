package service

import "context"

// HoldAggregateEvidence makes every aggregate verification of s run hold, with the request's
// context, once it is admitted (it holds a slot while hold runs), until the returned restore is
// called. It lets a test of another package see what a front end passes as the context (a
// cancelled MCP call must end it) and fill the verifications in flight; a test passes restore to
// t.Cleanup. It takes no testing.TB so that the server's binary does not link package testing.
func HoldAggregateEvidence(s *Service, hold func(ctx context.Context)) (restore func()) {
	s.aggregate.onAdmit = hold
	return func() { s.aggregate.onAdmit = nil }
}

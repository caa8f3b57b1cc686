package service

import (
	"context"

	"github.com/citeq/citeq/apierror"
)

// operatorErr gives e a cause only the operator can act on and logs it, once, with the code
// and the message the client gets; the client never sees the cause.
func (s *Service) operatorErr(e *apierror.Error, format string, args ...any) *apierror.Error {
	e.Becausef(format, args...)
	s.log.Warn().Str("error_code", e.Code).Str("client_message", e.Message).Str("operator_note", e.Cause.Error()).Msg("a request was refused for a reason only the operator can fix")
	return e
}

// cancelled is the error of a request whose context has ended, or nil.
func cancelled(ctx context.Context) *apierror.Error {
	if err := ctx.Err(); err != nil {
		return apierror.New(503, apierror.CodeCancelled, "the request ended (%v) before it was answered; send it again", err)
	}
	return nil
}

package service

import (
	"context"

	"github.com/citeq/citeq/apierror"
)

// cancelled is the error of a request whose context has ended, or nil.
func cancelled(ctx context.Context) *apierror.Error {
	if err := ctx.Err(); err != nil {
		return apierror.New(503, apierror.CodeCancelled, "the request ended (%v) before it was answered; send it again", err)
	}
	return nil
}

package service

import (
	"context"
	"fmt"
)

// Error is a structured error: the contract's {code, message} with its HTTP status. The
// message says what to do next.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Operator is what only the service's operator can act on (a snapshot to rebuild, a raw
	// file to fetch again): it is logged when the error is made (Service.operatorErr), never
	// sent to the client.
	Operator string `json:"-"`
	// RetryAfter, when positive, is how many seconds the client should wait before sending
	// the request again (REST sends it as Retry-After).
	RetryAfter int `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Body is the error as the JSON document REST and MCP return.
func (e *Error) Body() []byte {
	return mustJSON(Obj{{"error", Obj{{"code", e.Code}, {"message", e.Message}}}})
}

func errf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error codes beyond the contract's own (invalid_parameter, invalid_filter, invalid_request).
const (
	CodeInvalidParameter = "invalid_parameter"
	CodeInvalidFilter    = "invalid_filter"
	CodeInvalidRequest   = "invalid_request"
	CodeNotFound         = "capability_not_found"
	CodeNotServed        = "capability_not_served"
	CodeInternal         = "internal_error"
	CodeCancelled        = "request_cancelled"
	// Evidence refusals.
	CodeEvidenceInvalid     = "invalid_citation"
	CodeEvidenceUnknownFile = "evidence_file_unknown"
	CodeEvidenceFileName    = "evidence_file_name_mismatch"
	CodeEvidenceHash        = "evidence_hash_mismatch"
	CodeEvidenceSheet       = "evidence_sheet_unknown"
	CodeEvidenceRow         = "evidence_row_out_of_range"
	CodeEvidenceUnreadable  = "evidence_file_unreadable"
	// A citation whose file, sheet and row exist but which no served snapshot makes.
	CodeEvidenceSheetNotCited = "evidence_sheet_not_cited"
	CodeEvidenceRowNotCited   = "evidence_row_not_cited"
	CodeEvidenceAsOf          = "evidence_as_of_mismatch"
	CodeEvidenceSourceID      = "evidence_source_id_mismatch"
	CodeEvidenceSourceURL     = "evidence_source_url_mismatch"
)

// operatorErr gives e a note only the operator can act on and logs it, once, with the code
// and the message the client gets; the client never sees the note.
func (s *Service) operatorErr(e *Error, format string, args ...any) *Error {
	e.Operator = fmt.Sprintf(format, args...)
	s.log.Warn().Str("error_code", e.Code).Str("client_message", e.Message).Str("operator_note", e.Operator).Msg("a request was refused for a reason only the operator can fix")
	return e
}

// cancelled is the error of a request whose context has ended, or nil.
func cancelled(ctx context.Context) *Error {
	if err := ctx.Err(); err != nil {
		return errf(503, CodeCancelled, "the request ended (%v) before it was answered; send it again", err)
	}
	return nil
}

// Package apierror is the one home of the errors citeq answers with, over REST and MCP alike:
// the Error type (the contract's {"error":{"code","message"}} with its HTTP status and the
// cause beneath it) and every error code. It sits at the bottom of the import graph, so the
// service, the key and quota gate, both front ends and the OpenAPI document all read the
// same codes.
package apierror

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Error is a structured refusal: the contract's {code, message} with its HTTP status. The
// message says what to do next; the cause is what went wrong beneath it, for the log alone.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// Cause is what the client cannot act on (a store that failed, a raw file to fetch again,
	// a snapshot to rebuild): it is logged once, with the request id, where the error is
	// written, and never sent to the client.
	Cause error `json:"-"`
	// RetryAfter, when positive, is how many seconds the client should wait before sending
	// the request again (REST sends it as Retry-After).
	RetryAfter int `json:"-"`
}

// New is an Error of status and code whose message is format with args.
func New(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements error: the code and the client's message (the cause is Unwrap's).
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Because sets the cause of e and returns e.
func (e *Error) Because(cause error) *Error {
	e.Cause = cause
	return e
}

// Becausef sets the cause of e to a new error of format with args and returns e.
func (e *Error) Becausef(format string, args ...any) *Error {
	return e.Because(fmt.Errorf(format, args...))
}

// Body is the error as the JSON document REST and MCP return. Strings are written as
// encoding/json writes them, but with <, > and & kept as they are, like every payload.
func (e *Error) Body() []byte {
	b := append([]byte(`{"error":{"code":`), quote(e.Code)...)
	b = append(b, `,"message":`...)
	b = append(b, quote(e.Message)...)
	return append(b, "}}"...)
}

func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

package apierror

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestBody: the body is {"error":{"code","message"}} as encoding/json writes it, but with <, >
// and & kept as they are (as every payload of the service writes strings); the cause is never
// in it, and errors.Is finds it.
func TestBody(t *testing.T) {
	for _, tc := range []struct {
		name, message, want string
	}{
		{"plain", "send a params object", `{"error":{"code":"invalid_request","message":"send a params object"}}`},
		{"html kept", "a <b> & c", `{"error":{"code":"invalid_request","message":"a <b> & c"}}`},
		{"escaped", "\"q\"\n\\\u2028\x01", `{"error":{"code":"invalid_request","message":"\"q\"\n\\\u2028\u0001"}}`},
		{"invalid utf-8", "a\xffb", `{"error":{"code":"invalid_request","message":"a\ufffdb"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := (&Error{Status: 400, Code: CodeInvalidRequest, Message: tc.message}).Because(fs.ErrNotExist)
			got := string(e.Body())
			if got != tc.want {
				t.Errorf("body %s, want %s", got, tc.want)
			}
			var doc struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(e.Body(), &doc); err != nil || doc.Error.Code != e.Code {
				t.Errorf("body does not decode: %v %+v", err, doc)
			}
			if strings.Contains(got, fs.ErrNotExist.Error()) {
				t.Error("the body names the cause")
			}
			if !errors.Is(e, fs.ErrNotExist) {
				t.Error("errors.Is does not find the cause")
			}
		})
	}
}

// TestNew: New formats the message; Becausef wraps.
func TestNew(t *testing.T) {
	e := New(404, CodeNotFound, "no capability at %s", "/v1/x").Becausef("look up %s: %w", "x", fs.ErrNotExist)
	if e.Status != 404 || e.Message != "no capability at /v1/x" || e.Error() != "capability_not_found: no capability at /v1/x" {
		t.Errorf("%+v", e)
	}
	if !errors.Is(e, fs.ErrNotExist) || e.Cause.Error() != "look up x: file does not exist" {
		t.Errorf("cause %v", e.Cause)
	}
}

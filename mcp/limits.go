package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/citeq/citeq/jsonw"
)

// Limits bound what MCP clients may hold: the size of one POST, the number of JSON-RPC
// messages in one batch, how many POSTs are answered at once (each holds its answers in memory
// until the client reads them), how long an idle session lives and how many live at once.
type Limits struct {
	// MaxBody is the largest POST body, in bytes.
	MaxBody int64
	// MaxBatch is the most JSON-RPC messages in one batch.
	MaxBatch int
	// MaxInFlight is the most POSTs answered at once; others wait up to QueueWait.
	MaxInFlight int
	// QueueWait is how long a POST waits for a place before it is refused as busy.
	QueueWait time.Duration
	// SessionIdle closes a session that has received no request for this long.
	SessionIdle time.Duration
	// MaxSessions is the most sessions open at once; an initialize beyond it is refused.
	MaxSessions int
	// MaxListens is the most 2026-07-28 subscriptions/listen requests open at once (each is
	// a stream held open; it holds no place among MaxInFlight).
	MaxListens int
}

// DefaultLimits are the MCP limits of citeq serve.
func DefaultLimits() Limits {
	return Limits{MaxBody: 1 << 20, MaxBatch: 10, MaxInFlight: 16, QueueWait: 5 * time.Second,
		SessionIdle: 10 * time.Minute, MaxSessions: 1000, MaxListens: 256}
}

// JSON-RPC error codes of transport errors.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInternal       = -32603
	rpcServerBusy     = -32000
	rpcNoSession      = -32001
)

// rpcErrorBody is a JSON-RPC error response to the request id (its JSON), members in the
// order written since the first release (error, id, jsonrpc); text and integers only, which
// always render.
func rpcErrorBody(id json.RawMessage, code int, message string) []byte {
	return jsonw.MustRender(jsonw.Obj{{K: "error", V: jsonw.Obj{{K: "code", V: code}, {K: "message", V: message}}}, {K: "id", V: jsonw.RawJSON(id)}, {K: "jsonrpc", V: "2.0"}})
}

// rpcError writes a JSON-RPC error response (id null: it answers no single request) with the
// HTTP status.
func rpcError(w http.ResponseWriter, status, code int, message string) {
	b := rpcErrorBody(json.RawMessage("null"), code, message)
	h := w.Header()
	h.Del("X-Content-Type-Options")
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// limit enforces l around the SDK's handlers, routes a request of revision 2026-07-28 to the
// stateless one and the others to the one with sessions, and answers every transport error
// as a JSON-RPC error in application/json.
func (h *Handler) limit(w http.ResponseWriter, r *http.Request) {
	l := h.limits
	next := h.legacy
	if r.Method == http.MethodGet {
		h.watch()
	}
	var body []byte
	if r.Method == http.MethodPost {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, l.MaxBody))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			rpcError(w, http.StatusRequestEntityTooLarge, rpcInvalidRequest, fmt.Sprintf("the request body is over %d bytes; send fewer or smaller messages per POST", l.MaxBody))
			return
		case err != nil:
			rpcError(w, http.StatusBadRequest, rpcInvalidRequest, "the request body could not be read whole (cut short or sent too slowly); send it again")
			return
		}
		n, perr := countMessages(body)
		if perr != nil {
			rpcError(w, http.StatusBadRequest, rpcParseError, "the body is not a JSON-RPC message or batch ("+perr.Error()+"); send one JSON-RPC 2.0 request object")
			return
		}
		if n > l.MaxBatch {
			rpcError(w, http.StatusBadRequest, rpcInvalidRequest, fmt.Sprintf("a batch of %d messages is over the limit of %d; send at most %d per POST, or one request at a time", n, l.MaxBatch, l.MaxBatch))
			return
		}
		modern, listen := modernRequest(r, body)
		if modern {
			next = h.modern
		}
		if !modern && r.Header.Get(sessionHeader) == "" && l.MaxSessions > 0 && h.sessions() >= l.MaxSessions {
			rpcError(w, http.StatusServiceUnavailable, rpcServerBusy, fmt.Sprintf("the server holds its maximum of %d MCP sessions; retry later, and close sessions you no longer need (DELETE /mcp with their Mcp-Session-Id)", l.MaxSessions))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if listen {
			select {
			case h.listens <- struct{}{}:
				defer func() { <-h.listens }()
			default:
				rpcError(w, http.StatusServiceUnavailable, rpcServerBusy, fmt.Sprintf("the server holds its maximum of %d open subscriptions/listen streams; retry later, and close the ones you no longer need", l.MaxListens))
				return
			}
			h.watch()
			jw := &jsonErrors{ResponseWriter: w}
			next.ServeHTTP(jw, r)
			jw.finish()
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), l.QueueWait)
		select {
		case h.inflight <- struct{}{}:
			cancel()
			defer func() { <-h.inflight }()
		case <-ctx.Done():
			cancel()
			rpcError(w, http.StatusServiceUnavailable, rpcServerBusy, fmt.Sprintf("the server is answering its maximum of %d MCP requests at once; retry in a few seconds", l.MaxInFlight))
			return
		}
	}
	jw := &jsonErrors{ResponseWriter: w}
	next.ServeHTTP(jw, r)
	if r.Method == http.MethodPost && refusedBatch(jw, r, body) {
		answerEach(w, r, body, next)
		return
	}
	jw.finish()
}

// sessionHeader names the MCP session of a request.
const sessionHeader = "Mcp-Session-Id"

// modern is the first protocol revision of stateless requests.
const modern = "2026-07-28"

// modernRequest reports whether a POST is of revision 2026-07-28 or later (its
// Mcp-Protocol-Version header, the protocol version in a request's _meta, or server/discover,
// which only that revision has), and whether it opens a subscriptions/listen stream.
func modernRequest(r *http.Request, body []byte) (isModern, listen bool) {
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= modern {
		isModern = true
	}
	type msg struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	var msgs []msg
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		_ = json.Unmarshal(body, &msgs)
	} else {
		var m msg
		if json.Unmarshal(body, &m) == nil {
			msgs = []msg{m}
		}
	}
	for _, m := range msgs {
		var v string
		if raw, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok && json.Unmarshal(raw, &v) == nil && v >= modern {
			isModern = true
		}
		switch m.Method {
		case "server/discover":
			isModern = true
		case "subscriptions/listen":
			listen = true
		}
	}
	return isModern, listen && isModern
}

// countMessages returns how many JSON-RPC messages body holds: 1 for an object, the length
// of a batch.
func countMessages(body []byte) (int, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			return 0, err
		}
		return len(batch), nil
	}
	var one map[string]json.RawMessage
	if err := json.Unmarshal(body, &one); err != nil {
		return 0, err
	}
	if one == nil {
		return 0, errors.New("null")
	}
	return 1, nil
}

// jsonErrors turns the SDK's plain-text error answers into JSON-RPC errors; every other
// answer passes through unchanged.
type jsonErrors struct {
	http.ResponseWriter
	status  int
	capture bool
	text    bytes.Buffer
}

// WriteHeader starts the answer, or holds back a plain-text error to rewrite it.
func (j *jsonErrors) WriteHeader(status int) {
	if j.status != 0 {
		return
	}
	j.status = status
	if status >= 400 && strings.HasPrefix(j.Header().Get("Content-Type"), "text/plain") {
		j.capture = true
		return
	}
	j.ResponseWriter.WriteHeader(status)
}

// Write writes the body, or keeps a plain-text error's text.
func (j *jsonErrors) Write(b []byte) (int, error) {
	if j.status == 0 {
		j.WriteHeader(http.StatusOK)
	}
	if j.capture {
		if j.text.Len() < 4096 {
			j.text.Write(b)
		}
		return len(b), nil
	}
	return j.ResponseWriter.Write(b)
}

// Flush passes streaming flushes through.
func (j *jsonErrors) Flush() {
	if j.capture {
		return
	}
	if f, ok := j.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// finish writes a held-back error as a JSON-RPC error.
func (j *jsonErrors) finish() {
	if !j.capture {
		return
	}
	msg, code := j.rpcError()
	rpcError(j.ResponseWriter, j.status, code, msg)
}

// rpcError is the held-back plain-text error as a JSON-RPC error: its message, with what to
// do, and its code.
func (j *jsonErrors) rpcError() (string, int) {
	msg := strings.TrimSpace(j.text.String())
	code := rpcInvalidRequest
	hint := "send a JSON-RPC 2.0 request (initialize first, then the Mcp-Session-Id it returns)"
	switch {
	case j.status == http.StatusNotFound:
		code, hint = rpcNoSession, "the session is unknown or has expired; start a new one with initialize"
	case strings.Contains(msg, "malformed payload"):
		code, hint = rpcParseError, "send one well-formed JSON-RPC 2.0 request object"
	case strings.Contains(msg, "not handled") || strings.Contains(msg, "unknown method") || strings.Contains(msg, "method not found"):
		code, hint = rpcMethodNotFound, "use an MCP method: initialize, tools/list, tools/call, ping"
	case j.status >= 500:
		code, hint = rpcInternal, "retry; report it if it persists"
	}
	return msg + "; " + hint, code
}

package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/citeq/citeq/jsonw"
)

// JSON-RPC 2.0 §6: the answer to a batch holds a response to each request in it, an error for
// one that is not valid, and nothing for a notification. The SDK refuses a whole batch (HTTP
// 400, text/plain) when one of its messages is not a request it takes (an unknown method, an
// id of null on a call, a member that is not a request object), before it handles any of
// them. Such a batch is then answered here message by message: each one is sent to the SDK on
// its own, and the answers are gathered into one JSON array (application/json), in the
// batch's order.

// batchesUntil is the first protocol version without JSON-RPC batches: the SDK's refusal of a
// batch under it stands.
const batchesUntil = "2025-06-18"

// refusedBatch reports whether the SDK refused the whole of body, a batch of a protocol that
// has batches, with a plain-text 400 that jw holds back.
func refusedBatch(jw *jsonErrors, r *http.Request, body []byte) bool {
	if !jw.capture || jw.status != http.StatusBadRequest {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && v >= batchesUntil {
		return false
	}
	var batch []json.RawMessage
	return json.Unmarshal(body, &batch) == nil && len(batch) > 0
}

// answerEach answers each message of the batch body through next on its own and writes the
// answers as one JSON array; a batch of notifications alone is 202 Accepted, with no body.
func answerEach(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) {
	var batch []json.RawMessage
	_ = json.Unmarshal(body, &batch)
	var answers []json.RawMessage
	for _, msg := range batch {
		id, call, ok := requestID(msg)
		if !ok {
			answers = append(answers, errorAnswer(nil, rpcInvalidRequest, "a member of the batch is not a JSON-RPC request object; send objects with jsonrpc, method and (for a call) id"))
			continue
		}
		sub := r.Clone(r.Context())
		sub.Body = io.NopCloser(bytes.NewReader(msg))
		sub.ContentLength = int64(len(msg))
		rec := &recorder{header: http.Header{}}
		next.ServeHTTP(rec, sub)
		if sid := rec.header.Get(sessionHeader); sid != "" {
			w.Header().Set(sessionHeader, sid)
		}
		got := rec.messages()
		if rec.status >= 400 && len(got) == 0 {
			if !call {
				continue // a notification is never answered, not even with an error
			}
			jw := &jsonErrors{status: rec.status, capture: true}
			jw.text.Write(rec.body.Bytes())
			text, code := jw.rpcError()
			if code == rpcParseError {
				code = rpcInvalidRequest // the member is JSON; it is not a request the server takes
			}
			answers = append(answers, errorAnswer(id, code, text))
			continue
		}
		answers = append(answers, got...)
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out, err := jsonw.Marshal(answers)
	if err != nil {
		rpcError(w, http.StatusInternalServerError, rpcInternal, "the batch's answers could not be written ("+err.Error()+"); retry, and report it if it persists")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// requestID reads a batch member: its id (nil when absent, null or not a string or number),
// whether it is a call (it has an id member, null included: a call whose id is null is
// answered with an error whose id is null), and whether it is an object at all.
func requestID(msg json.RawMessage) (id json.RawMessage, call, ok bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil || m == nil {
		return nil, false, false
	}
	raw, call := m["id"]
	if t := bytes.TrimSpace(raw); len(t) > 0 && (t[0] == '"' || t[0] == '-' || t[0] >= '0' && t[0] <= '9') {
		id = t
	}
	return id, call, true
}

// errorAnswer is a JSON-RPC error response to the request id (null when nil).
func errorAnswer(id json.RawMessage, code int, message string) json.RawMessage {
	if id == nil {
		id = json.RawMessage("null")
	}
	return rpcErrorBody(id, code, message)
}

// recorder keeps the SDK's answer to one message of a batch.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// Flush lets the SDK flush its event stream; the recorder keeps every event.
func (r *recorder) Flush() {}

// messages are the JSON-RPC responses in the answer: the data of each event of an event
// stream, or the JSON body (one message or an array); requests and notifications the server
// sends on the stream are left out.
func (r *recorder) messages() []json.RawMessage {
	var datas [][]byte
	if strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(r.body.Bytes()))
		sc.Buffer(nil, 64<<20)
		var event []byte
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case bytes.HasPrefix(line, []byte("data:")):
				event = append(event, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
			case len(line) == 0 && len(event) > 0:
				datas, event = append(datas, event), nil
			}
		}
		if len(event) > 0 {
			datas = append(datas, event)
		}
	} else if strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		datas = append(datas, r.body.Bytes())
	}
	var out []json.RawMessage
	for _, d := range datas {
		var many []json.RawMessage
		if json.Unmarshal(d, &many) != nil {
			many = []json.RawMessage{json.RawMessage(append([]byte(nil), d...))}
		}
		for _, m := range many {
			var probe struct {
				Method string          `json:"method"`
				ID     json.RawMessage `json:"id"`
			}
			if json.Unmarshal(m, &probe) == nil && probe.Method == "" && probe.ID != nil {
				out = append(out, m)
			}
		}
	}
	return out
}

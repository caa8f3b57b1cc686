// Package api is the REST front end: gin routes for the four verbs, structured errors,
// request logging. Every payload comes from the service layer, which MCP shares.
package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/ask"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/mcp"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/webhooks"
)

// MaxBody bounds a request body.
const MaxBody = 1 << 20

// RequestIDHeader carries the request id, echoed on every response.
const RequestIDHeader = "X-Request-Id"

// Config configures the handler beyond the service itself.
type Config struct {
	Log zerolog.Logger
	// Gate, when set, authenticates callers, counts queries against the free quota, and
	// enables the webhook endpoints (which need keys). Without it every query is free.
	Gate *access.Gate
	// Guard checks webhook callback URLs.
	Guard webhooks.Guard
	// TrustedProxies lists the proxies (CIDRs or addresses) whose X-Forwarded-For names the
	// client address counted for callers without a key; none by default, so the counted
	// address is the connection's.
	TrustedProxies []string
	// Metrics are further collectors /metrics exports (the sync loop's).
	Metrics []prometheus.Collector
}

// New returns the HTTP handler of the service, without accounts.
func New(svc *service.Service, log zerolog.Logger) http.Handler {
	h, _ := NewWith(svc, Config{Log: log})
	return h
}

// NewWith returns the HTTP handler of the service.
func NewWith(svc *service.Service, cfg Config) (http.Handler, error) {
	log := cfg.Log
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	// A *gin.Context passed as a context carries the request's: its cancellation and deadline.
	r.ContextWithFallback = true
	// Every answer is JSON: a path gin would redirect (a trailing slash, a doubled slash) is
	// answered by NoRoute with a JSON 404, never an HTML 301 page.
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	if err := r.SetTrustedProxies(cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("trusted proxies: %w", err)
	}
	m := newMetrics(svc, cfg.Metrics...)
	r.Use(requestLog(log), m.middleware, gin.CustomRecovery(func(c *gin.Context, err any) {
		writeErr(c, apierror.New(500, apierror.CodeInternal, "the server failed on this request; it has been logged — retry, and report the X-Request-Id if it persists").Becausef("panic: %v", err))
	}))
	if cfg.Gate != nil {
		r.Use(refuseOtherKeyHeaders)
	}
	r.GET("/metrics", m.handler())
	r.GET("/v1/health", func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		c.Data(http.StatusOK, "application/json", svc.Health())
	})
	openapi := newOpenAPICache(svc)
	r.GET("/v1/openapi.json", func(c *gin.Context) {
		respond(c, latestMaxAge)(openapi.get(), nil)
	})
	r.GET("/v1/capabilities", func(c *gin.Context) {
		respond(c, latestMaxAge)(svc.Capabilities(), nil)
	})
	for _, capDef := range capability.All() {
		path := capDef.Path
		r.GET("/v1/"+path+"/schema", func(c *gin.Context) {
			respond(c, latestMaxAge)(svc.Schema(path))
		})
		query := func(c *gin.Context, req *service.Request) {
			a, e := ask.Query(c.Request.Context(), svc, cfg.Gate, c.GetHeader("Authorization"), c.ClientIP(), path, req)
			if a.Remaining != "" {
				c.Header(access.RemainingHeader, a.Remaining)
			}
			maxAge := latestMaxAge
			switch {
			case a.Reverified:
				maxAge = 0
			case a.Pinned:
				maxAge = pinnedMaxAge
			}
			respond(c, maxAge)(a.Body, e)
		}
		r.POST("/v1/"+path+"/query", func(c *gin.Context) {
			body, e := readBody(c)
			if e != nil {
				writeErr(c, e)
				return
			}
			req, e := service.ParseBody(body)
			if e != nil {
				writeErr(c, e)
				return
			}
			query(c, req)
		})
		r.GET("/v1/"+path+"/query", func(c *gin.Context) {
			req, e := service.ParseRawQuery(c.Request.URL.RawQuery)
			if e != nil {
				writeErr(c, e)
				return
			}
			query(c, req)
		})
	}
	r.POST("/v1/evidence/source-row", func(c *gin.Context) {
		body, e := readBody(c)
		if e != nil {
			writeErr(c, e)
			return
		}
		respond(c, 0)(svc.Evidence(c.Request.Context(), body))
	})
	registerAggregateEvidence(r, svc)
	// MCP over the streamable HTTP transport: the same service, the same payloads.
	mcpHTTP := mcp.New(svc, func(tool, capID string, e *apierror.Error, header http.Header) {
		logRefusal(log, tool, e, header)
		if tool != "" {
			m.tool(tool, capID, e)
		}
	}, cfg.Gate)
	mcpHandler := func(c *gin.Context) {
		// The MCP tools count queries like REST: they see the connection's client address.
		c.Request.Header.Set(mcp.ClientAddrHeader, c.ClientIP())
		mcpHTTP.ServeHTTP(c.Writer, c.Request)
	}
	registerServerCard(r)
	r.POST("/mcp", mcpHandler)
	r.GET("/mcp", mcpHandler)
	r.DELETE("/mcp", mcpHandler)
	if cfg.Gate != nil {
		registerWebhooks(r, svc, cfg.Gate, cfg.Guard)
	}
	r.NoRoute(func(c *gin.Context) {
		if p := c.Request.URL.Path; len(p) > 1 && strings.HasSuffix(p, "/") {
			writeErr(c, &apierror.Error{Status: 404, Code: apierror.CodeNotFound,
				Message: "no endpoint at " + p + "; use the path without the trailing slash (" + strings.TrimRight(p, "/") + "); GET /v1/capabilities lists every path"})
			return
		}
		p := strings.TrimPrefix(c.Request.URL.Path, "/v1/")
		suffix := ""
		for _, end := range []string{"/query", "/schema"} {
			if strings.HasSuffix(p, end) {
				p, suffix = strings.TrimSuffix(p, end), end
			}
		}
		if capability.ByPath(p) != nil {
			// A capability's own path, without its endpoint.
			writeErr(c, &apierror.Error{Status: 404, Code: apierror.CodeNotFound,
				Message: "no endpoint at " + c.Request.URL.Path + ": /v1/" + p + " is a capability, whose endpoints are GET /v1/" + p + "/schema and POST or GET /v1/" + p + "/query"})
			return
		}
		writeErr(c, &apierror.Error{Status: 404, Code: apierror.CodeNotFound,
			Message: "no endpoint at " + c.Request.URL.Path + " (capability path " + p + " unknown); " + service.DidYouMean(p, suffix) +
				"GET /v1/capabilities lists what is served, each with its /schema and /query paths"})
	})
	r.NoMethod(func(c *gin.Context) {
		writeErr(c, &apierror.Error{Status: 405, Code: apierror.CodeMethodNotAllowed,
			Message: c.Request.Method + " is not served at " + c.Request.URL.Path + "; schema is GET, query is POST or GET, evidence is POST"})
	})
	return r, nil
}

// KeyHeader is the header some services read an API key from. citeq reads a key only from
// "Authorization: Bearer <key>", so a request to an endpoint that reads keys (queries, MCP,
// webhooks) carrying a key there and no Authorization is refused, never answered as a
// caller without a key.
const KeyHeader = "X-Api-Key"

// refuseOtherKeyHeaders refuses a request whose key is in KeyHeader instead of Authorization.
func refuseOtherKeyHeaders(c *gin.Context) {
	p := c.Request.URL.Path
	readsKey := strings.HasSuffix(p, "/query") || p == "/mcp" || strings.HasPrefix(p, "/v1/webhooks")
	if !readsKey || c.GetHeader(KeyHeader) == "" || c.GetHeader("Authorization") != "" {
		c.Next()
		return
	}
	writeErr(c, &apierror.Error{Status: 401, Code: apierror.CodeInvalidKey,
		Message: "the request carries an API key in the header " + KeyHeader + ", which citeq does not read: send it as the header \"Authorization: Bearer <key>\" instead " +
			"(with curl: -H \"Authorization: Bearer $(cat var/operator.key)\" for the operator key of a server started with make run). " +
			"The request is refused rather than answered as a caller without a key, whose queries count against the free quota of its address"})
	c.Abort()
}

// bodyTooLarge refuses a request body over MaxBody.
func bodyTooLarge() *apierror.Error {
	return apierror.New(413, apierror.CodeInvalidRequest, "the request body is over %d MiB; send a params object", MaxBody>>20)
}

func readBody(c *gin.Context) ([]byte, *apierror.Error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, bodyTooLarge()
	case err != nil:
		return nil, apierror.New(400, apierror.CodeInvalidRequest, "the request body could not be read whole (it was cut short or sent too slowly); send the whole body at once, no longer than its Content-Length says").Because(fmt.Errorf("read the request body: %w", err))
	}
	return body, nil
}

// Cache lifetimes: an answer for a pinned as_of never changes; a latest answer may change
// when a new snapshot is promoted.
const (
	pinnedMaxAge = 365 * 24 * 3600
	latestMaxAge = 60
)

// respond writes a service result: the payload with its ETag (a hash of the body) and cache
// lifetime — or 304 when the client already holds it — or the structured error. maxAge 0
// means the answer must be revalidated every time (evidence re-hashes the file).
func respond(c *gin.Context, maxAge int) func([]byte, *apierror.Error) {
	return func(body []byte, e *apierror.Error) {
		if e != nil {
			writeErr(c, e)
			return
		}
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		c.Header("ETag", etag)
		// Answers to a key holder are for that holder only; shared caches may keep the others.
		scope := "public"
		if c.GetHeader("Authorization") != "" {
			scope = "private"
		}
		switch {
		case maxAge >= pinnedMaxAge:
			c.Header("Cache-Control", scope+", max-age="+strconv.Itoa(maxAge)+", immutable")
		case maxAge > 0:
			c.Header("Cache-Control", scope+", max-age="+strconv.Itoa(maxAge))
		default:
			c.Header("Cache-Control", "no-cache")
		}
		if etagMatch(c.GetHeader("If-None-Match"), etag) {
			c.Status(http.StatusNotModified)
			return
		}
		c.Data(http.StatusOK, "application/json", body)
	}
}

// etagMatch implements If-None-Match: a list of entity tags, or *.
func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "W/"))
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// writeErr writes e as the answer; the request log (requestLog) records its code and, once,
// its cause.
func writeErr(c *gin.Context, e *apierror.Error) {
	c.Set("error_code", e.Code)
	c.Set(errorKey, e)
	if e.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	c.Data(e.Status, "application/json", e.Body())
}

// requestLog gives every request an id (the caller's X-Request-Id or a new one), echoes it,
// and logs the request once when it ends.
func requestLog(log zerolog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		id := c.GetHeader(RequestIDHeader)
		if id == "" || len(id) > 64 {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Header(RequestIDHeader, id)
		// The handlers behind (MCP's tools among them) read the id from the request.
		c.Request.Header.Set(RequestIDHeader, id)
		c.Next()
		var cause error
		if v, ok := c.Get(errorKey); ok {
			cause = v.(*apierror.Error).Cause
		}
		ev := log.Info()
		switch {
		case c.Writer.Status() >= 500:
			ev = log.Error()
		case cause != nil:
			ev = log.Warn()
		}
		code, _ := c.Get("error_code")
		ev = ev.Str("request_id", id).Str("method", c.Request.Method).Str("path", c.Request.URL.Path).
			Int("status", c.Writer.Status()).Int("bytes", c.Writer.Size()).Float64("latency_ms", float64(time.Since(start).Microseconds())/1000).
			Interface("error_code", code)
		if cause != nil {
			ev = ev.AnErr("cause", cause)
		}
		ev.Msg("request")
	}
}

// errorKey is the gin context key of the error a request was answered with.
const errorKey = "error"

// logRefusal logs the cause of a refusal MCP wrote (a tool call's, a resource read's), once,
// with the id of the request that carried it; a refusal without a cause is the request log's
// alone.
func logRefusal(log zerolog.Logger, tool string, e *apierror.Error, header http.Header) {
	if e == nil || e.Cause == nil {
		return
	}
	ev := log.Warn()
	if e.Status >= 500 {
		ev = log.Error()
	}
	ev.Str("request_id", header.Get(RequestIDHeader)).Str("tool", tool).Str("error_code", e.Code).AnErr("cause", e.Cause).Msg("mcp refusal")
}

// openAPICache keeps the OpenAPI document of the snapshots served now.
type openAPICache struct {
	svc  *service.Service
	mu   sync.Mutex
	key  string
	body []byte
}

func newOpenAPICache(svc *service.Service) *openAPICache { return &openAPICache{svc: svc} }

func (o *openAPICache) get() []byte {
	key := o.svc.ServedKey()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.body == nil || key != o.key {
		o.body, o.key = OpenAPI(o.svc), key
	}
	return o.body
}

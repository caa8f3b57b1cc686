package api

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citeq/citeq/apierror"
)

// Limits bound what one client connection may hold: how long the server waits for a request
// head and body, how long it may take to write an answer, how long an idle keep-alive
// connection stays open, and how many connections are open at once.
type Limits struct {
	// ReadHeader bounds reading a request's head.
	ReadHeader time.Duration
	// Read bounds reading a whole request, head and body (a body is at most MaxBody).
	Read time.Duration
	// Write bounds the time from the end of the request head to the end of the answer.
	Write time.Duration
	// Idle closes a keep-alive connection that sends no new request for this long.
	Idle time.Duration
	// MaxConns is the most connections open at once; one more is answered 503 and closed.
	MaxConns int
}

// DefaultLimits are the limits of citeq serve. The largest legitimate answer (a query with
// 5,000 records and include_evidence, a few MB) is computed in well under a second and
// written to a client reading at 100 KB/s in under a minute; the largest legitimate body is
// MaxBody (1 MiB), read at 40 KB/s within Read.
func DefaultLimits() Limits {
	return Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second, Idle: 60 * time.Second, MaxConns: 1024}
}

// NewHTTPServer returns the http.Server that serves handler under limits.
func NewHTTPServer(handler http.Handler, l Limits) *http.Server {
	return &http.Server{Handler: handler, ReadHeaderTimeout: l.ReadHeader, ReadTimeout: l.Read, WriteTimeout: l.Write,
		IdleTimeout: l.Idle, MaxHeaderBytes: 64 << 10}
}

// Listen wraps ln so that at most max connections are open at once. A connection beyond that
// is answered at once with 503 and a JSON error, and closed; it never waits in the accept
// queue holding a file descriptor. max <= 0 means no cap.
func Listen(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &capListener{Listener: ln, max: int64(max)}
}

// overCapacity is the whole answer to a connection over the cap.
var overCapacity = func() []byte {
	body := string(apierror.New(503, apierror.CodeOverCapacity, "the server holds its maximum of open connections; retry in a second").Body())
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 1\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

type capListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

// Accept returns the next connection within the cap; connections over it are refused here.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			go refuse(c)
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// refuse answers a connection over the cap and closes it, without reading its request.
func refuse(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(overCapacity)
	_ = c.Close()
}

type countedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

// Close closes the connection and frees its place under the cap.
func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

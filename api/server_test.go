package api_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/testenv"
	"github.com/citeq/citeq/service"
)

// testLimits are DefaultLimits scaled down so that a test sees each one act within a second.
var testLimits = api.Limits{ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond, Write: 2 * time.Second,
	Idle: 300 * time.Millisecond, MaxConns: 4}

// serveLimited serves the data directory over loopback exactly as citeq serve does, under l.
func serveLimited(t *testing.T, l api.Limits) string {
	t.Helper()
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewHTTPServer(api.New(svc, zerolog.Nop()), l)
	go func() { _ = srv.Serve(api.Listen(ln, l.MaxConns)) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// closedBy reports whether the server closes conn (after any answer) within wait; the answer
// read, if any, is returned.
func closedBy(t *testing.T, conn net.Conn, wait time.Duration) (string, bool) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	b, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return string(b), false
	}
	return string(b), true
}

// TestSlowClientsAreCutOff: a body shorter than its Content-Length, a body trickled one byte
// at a time, a request head never finished and an idle keep-alive connection are each closed
// by the server once its limit passes, instead of being held for ever.
func TestSlowClientsAreCutOff(t *testing.T) {
	addr := serveLimited(t, testLimits)
	const wait = 5 * time.Second // far beyond every limit of testLimits
	cases := []struct {
		name string
		send func(c net.Conn)
	}{
		{"short body", func(c net.Conn) {
			io.WriteString(c, "POST /v1/power/capacity/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}")
		}},
		{"trickled body", func(c net.Conn) {
			io.WriteString(c, "POST /v1/evidence/source-row HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
			go func() {
				for i := 0; i < 50; i++ {
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
		}},
		{"unfinished head", func(c net.Conn) { io.WriteString(c, "GET /v1/health HTTP/1.1\r\nHost: x\r\n") }},
		{"idle keep-alive", func(c net.Conn) {
			io.WriteString(c, "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
		}},
		{"silent connection", func(net.Conn) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			tc.send(c)
			got, closed := closedBy(t, c, wait)
			if !closed {
				t.Fatalf("connection still open after %v (read so far: %q)", wait, got)
			}
			status, _, _ := strings.Cut(got, "\r\n")
			t.Logf("closed by the server after %v (answer: %q)", time.Since(start).Round(10*time.Millisecond), status)
		})
	}
}

// TestConnectionCap: beyond MaxConns open connections, a new one is answered 503 with a JSON
// error at once; once a connection closes, new ones are served again.
func TestConnectionCap(t *testing.T) {
	l := testLimits
	l.Idle, l.ReadHeader, l.Read = time.Minute, time.Minute, time.Minute // the held connections must stay open
	addr := serveLimited(t, l)
	var held []net.Conn
	for i := 0; i < l.MaxConns; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// A served request proves the connection was accepted and counted.
		io.WriteString(c, "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("connection %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
		held = append(held, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, closed := closedBy(t, c, 5*time.Second)
	if !closed || !strings.HasPrefix(got, "HTTP/1.1 503") || !strings.Contains(got, "application/json") || !strings.Contains(got, `"code":"over_capacity"`) {
		t.Fatalf("connection over the cap: closed %v, answer %q", closed, got)
	}
	held[0].Close()
	// The freed place is taken by the next connection (the close reaches the server shortly).
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/v1/health")
		if err == nil && resp.StatusCode == 200 {
			resp.Body.Close()
			break
		}
		if resp != nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection served after one closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeUsesLimits: citeq serve builds its server from DefaultLimits, each limit set.
func TestServeUsesLimits(t *testing.T) {
	l := api.DefaultLimits()
	if l.ReadHeader <= 0 || l.Read <= 0 || l.Write <= 0 || l.Idle <= 0 || l.MaxConns <= 0 {
		t.Fatalf("a default limit is unset: %+v", l)
	}
	srv := api.NewHTTPServer(http.NotFoundHandler(), l)
	if srv.ReadTimeout != l.Read || srv.WriteTimeout != l.Write || srv.IdleTimeout != l.Idle || srv.ReadHeaderTimeout != l.ReadHeader {
		t.Fatalf("server limits %+v", srv)
	}
}

// TestRequestContextReachesTheService: a request whose context has ended (its client gone)
// is not answered: the handler passes the request's context, not a bare *gin.Context, down
// to the service and the stores.
func TestRequestContextReachesTheService(t *testing.T) {
	svc, err := service.New(testenv.Data(t))
	if err != nil {
		t.Fatal(err)
	}
	h := api.New(svc, zerolog.Nop())
	cases := []struct{ method, path, body string }{
		{"POST", "/v1/power/capacity/query", `{"group_by":["state"]}`},
		{"GET", "/v1/natural-gas/prices/query?group_by=atom", ""},
		{"POST", "/v1/evidence/source-row", `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body)).WithContext(ctx)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"request_cancelled"`) {
				t.Errorf("a cancelled request answered %d: %.200s", rec.Code, rec.Body.String())
			}
		})
	}
}

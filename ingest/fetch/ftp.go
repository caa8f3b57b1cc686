package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Some agencies publish their bulk files on FTP only (the FCC's IBFS database export is at
// ftp://ftp.fcc.gov/pub/...). downloadFTP fetches such an address anonymously, in binary
// mode, over a passive data connection (EPSV, else PASV), to the same checks as an HTTP
// download: the server's refusal of the file, the size cap, the size the server announces
// (SIZE) and a stall of two minutes. A mirror (Options.Mirror) serves the same path over
// HTTP instead.

// ftpTimeout bounds each exchange on the control connection.
const ftpTimeout = time.Minute

// ftpConn is a control connection.
type ftpConn struct {
	c    net.Conn
	tp   *textproto.Conn
	host string // the server's address, for the data connections
	u    string // the URL, for messages
}

// cmd sends one command and reads its reply; it refuses a reply that is not one of want.
func (f *ftpConn) cmd(want []int, format string, args ...any) (int, string, error) {
	_ = f.c.SetDeadline(time.Now().Add(ftpTimeout))
	if err := f.tp.PrintfLine(format, args...); err != nil {
		return 0, "", fmt.Errorf("ftp %s: %w", f.u, err)
	}
	return f.reply(want, strings.Fields(format)[0])
}

// reply reads one reply and checks its code.
func (f *ftpConn) reply(want []int, what string) (int, string, error) {
	_ = f.c.SetDeadline(time.Now().Add(ftpTimeout))
	code, msg, err := f.tp.ReadResponse(0)
	if err != nil && code == 0 {
		return 0, "", fmt.Errorf("ftp %s: %s: %w", f.u, what, err)
	}
	for _, w := range want {
		if code == w {
			return code, msg, nil
		}
	}
	advice := "try again later"
	if code == 550 || code == 450 {
		advice = "the file may have moved; check the URL on the agency's site"
	} else if code == 530 {
		advice = "the server refused anonymous access; check the URL"
	}
	return code, msg, &RefusedError{URL: f.u, Reason: fmt.Sprintf("the FTP server answered %s with %d %s", what, code, msg), Advice: advice}
}

var (
	epsvReply = regexp.MustCompile(`\(\|\|\|(\d+)\|\)`)
	pasvReply = regexp.MustCompile(`(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)`)
)

// dataConn opens a passive data connection to the server's own host.
func (f *ftpConn) dataConn(ctx context.Context, d *net.Dialer) (net.Conn, error) {
	port := 0
	if _, msg, err := f.cmd([]int{229}, "EPSV"); err == nil {
		if m := epsvReply.FindStringSubmatch(msg); m != nil {
			port, _ = strconv.Atoi(m[1])
		}
	}
	if port == 0 {
		_, msg, err := f.cmd([]int{227}, "PASV")
		if err != nil {
			return nil, err
		}
		m := pasvReply.FindStringSubmatch(msg)
		if m == nil {
			return nil, &RefusedError{URL: f.u, Reason: "the FTP server's PASV reply names no port: " + msg, Advice: "try again later"}
		}
		hi, _ := strconv.Atoi(m[5])
		lo, _ := strconv.Atoi(m[6])
		port = hi<<8 | lo
	}
	// The host the control connection reached, not the address a PASV reply names (a
	// server behind NAT often names a private one).
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(f.host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("ftp %s: data connection: %w", f.u, err)
	}
	return c, nil
}

// deadlineReader extends a connection's read deadline whenever data arrives, so that only a
// stall ends the transfer.
type deadlineReader struct {
	c net.Conn
	d time.Duration
}

func (r deadlineReader) Read(p []byte) (int, error) {
	_ = r.c.SetReadDeadline(time.Now().Add(r.d))
	return r.c.Read(p)
}

// downloadFTP downloads the ftp:// address u into a new temporary file in dir and returns
// its path (also on error, when one was created).
func downloadFTP(ctx context.Context, u *url.URL, dir string, src Source, opt Options, maxBytes int64) (string, error) {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "21")
	}
	ctx, pc := startPace(ctx, u.String(), opt)
	defer pc.stop()
	var d net.Dialer
	d.Timeout = 30 * time.Second
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("download %s: %w", u, pc.cause(ctx, err))
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	f := &ftpConn{c: c, tp: textproto.NewConn(c), host: u.Hostname(), u: u.String()}
	if _, _, err := f.reply([]int{220}, "the greeting"); err != nil {
		return "", err
	}
	user, pass := "anonymous", "anonymous@"
	if u.User != nil {
		user = u.User.Username()
		if p, ok := u.User.Password(); ok {
			pass = p
		}
	}
	if code, _, err := f.cmd([]int{230, 331}, "USER %s", user); err != nil {
		return "", err
	} else if code == 331 {
		if _, _, err := f.cmd([]int{230, 202}, "PASS %s", pass); err != nil {
			return "", err
		}
	}
	if _, _, err := f.cmd([]int{200}, "TYPE I"); err != nil {
		return "", err
	}
	path := u.Path
	if path == "" {
		return "", &RefusedError{URL: f.u, Reason: "the address names no file", Advice: "check the URL"}
	}
	size := int64(-1)
	if _, msg, err := f.cmd([]int{213}, "SIZE %s", path); err == nil {
		if n, perr := strconv.ParseInt(strings.TrimSpace(msg), 10, 64); perr == nil {
			size = n
		}
	} else if re := (*RefusedError)(nil); errors.As(err, &re) && strings.Contains(re.Reason, " 550 ") {
		return "", err
	}
	if size > maxBytes {
		return "", &RefusedError{URL: f.u,
			Reason: fmt.Sprintf("the server announced %s (SIZE %d), above the size cap of %s", humanBytes(size), size, humanBytes(maxBytes)),
			Advice: "check the URL, or raise Options.MaxBytes if the file really is this large"}
	}
	data, err := f.dataConn(ctx, &d)
	if err != nil {
		return "", err
	}
	defer data.Close()
	stopData := context.AfterFunc(ctx, func() { _ = data.SetDeadline(time.Unix(1, 0)) })
	defer stopData()
	if _, _, err := f.cmd([]int{125, 150}, "RETR %s", path); err != nil {
		return "", err
	}
	tmp, n, copyErr, err := saveBody(dir, src, opt, size, pc.body(deadlineReader{data, stallTimeout}, size), maxBytes)
	data.Close()
	switch {
	case err != nil:
		return tmp, err
	case n > maxBytes:
		return tmp, overCap(f.u, "the file", maxBytes)
	case copyErr != nil:
		if cause := pc.cause(ctx, nil); cause != nil {
			var re *RefusedError
			if errors.As(cause, &re) {
				return tmp, re
			}
			copyErr = cause
		} else if ctx.Err() != nil {
			copyErr = ctx.Err()
		}
		return tmp, fmt.Errorf("download %s: failed after %d bytes: %w", f.u, n, copyErr)
	}
	if _, _, err := f.reply([]int{226, 250}, "the transfer"); err != nil {
		return tmp, err
	}
	if size >= 0 && n != size {
		return tmp, &RefusedError{URL: f.u,
			Reason: fmt.Sprintf("the file was truncated: received %d of the %d bytes the server announced (SIZE)", n, size),
			Advice: "the connection was probably cut; try again later"}
	}
	_, _, _ = f.cmd([]int{221}, "QUIT")
	return tmp, nil
}

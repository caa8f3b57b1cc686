package fetch

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Validators identify the version of a file a server sent: its ETag and Last-Modified
// headers, as the server wrote them. Sent back with the next request for the same address
// (If-None-Match, If-Modified-Since), they let the server answer 304 Not Modified when the file
// has not changed since, so nothing is downloaded.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// IsZero reports whether v holds no validator.
func (v Validators) IsZero() bool { return v.ETag == "" && v.LastModified == "" }

// Modified is the time Last-Modified names (zero when there is none or it does not parse).
func (v Validators) Modified() time.Time {
	t, err := http.ParseTime(v.LastModified)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// StatusNotModified is the Result.Status of a conditional request the server answered 304
// Not Modified: the destination holds the version the validators name and is left as it is.
const StatusNotModified = "not_modified"

// exchange watches the HTTP exchanges of one download: it makes the request conditional when
// validators are to be sent, and records what the last response said about the version of the
// file (its validators, whether it was 304 Not Modified) and its status.
type exchange struct {
	base http.RoundTripper
	send Validators

	mu          sync.Mutex
	got         Validators
	status      int
	notModified bool
}

// RoundTrip implements http.RoundTripper.
func (x *exchange) RoundTrip(req *http.Request) (*http.Response, error) {
	if !x.send.IsZero() {
		req = req.Clone(req.Context())
		if x.send.ETag != "" {
			req.Header.Set("If-None-Match", x.send.ETag)
		}
		if x.send.LastModified != "" {
			req.Header.Set("If-Modified-Since", x.send.LastModified)
		}
	}
	resp, err := x.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.status = resp.StatusCode
	switch {
	case resp.StatusCode == http.StatusNotModified && !x.send.IsZero():
		// A 304 may repeat either validator (RFC 9110 asks for the ETag); what it leaves out
		// stays as sent.
		x.notModified = true
		x.got = x.send
		if e := resp.Header.Get("ETag"); e != "" {
			x.got.ETag = e
		}
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			x.got.LastModified = lm
		}
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		x.got = Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	}
	return resp, nil
}

// result is what the exchange saw: the validators of the file sent (or confirmed by a 304),
// whether the answer was 304 Not Modified, and the last status.
func (x *exchange) result() (Validators, bool, int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.got, x.notModified, x.status
}

// watch returns opt with a client whose requests go through a new exchange sending send (when
// the destination exists: a conditional request for a file that is not there would be
// answered 304 with nothing to keep).
func watch(opt Options, dest string, send Validators) (Options, *exchange) {
	if _, err := os.Stat(dest); err != nil {
		send = Validators{}
	}
	client := opt.Client
	if client == nil {
		client = defaultClient
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	x := &exchange{base: base, send: send}
	c := *client
	c.Transport = x
	opt.Client = &c
	return opt, x
}

// notModified is the Result of a conditional request answered 304: the destination as it is,
// hashed, with the validators that name its version.
func notModified(res Result, v Validators) (Result, error) {
	size, sum, err := hashFile(res.Path)
	if err != nil {
		return res, err
	}
	res.Bytes, res.SHA256, res.Status, res.Validators = size, sum, StatusNotModified, v
	return res, nil
}

// samePublished reports whether the destination was downloaded from the version of the file
// the publisher's listing dates published (its modification time is that date, to the second).
func samePublished(dest string, published time.Time) bool {
	if published.IsZero() {
		return false
	}
	fi, err := os.Stat(dest)
	return err == nil && fi.Mode().IsRegular() && fi.ModTime().Unix() == published.Unix()
}

// markPublished sets the destination's modification time to the date the listing gives its
// version, so that the next walk of the listing does not ask for it again.
func markPublished(dest string, published time.Time) error {
	if published.IsZero() {
		return nil
	}
	return os.Chtimes(dest, published, published)
}

// NotPublished reports whether err says that the address holds no file (yet): the server
// answered 404 Not Found or 410 Gone, or sent an HTML page where the file should be (as EIA
// does for a month it has not published, or no longer keeps at that address). A dated
// address probed before its document is released fails so; any other failure does not.
func NotPublished(err error) bool {
	var re *RefusedError
	if !errors.As(err, &re) {
		return false
	}
	return strings.Contains(re.Reason, "answered 404") || strings.Contains(re.Reason, "answered 410") ||
		strings.Contains(re.Reason, "HTML page")
}

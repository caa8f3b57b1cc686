// Package fetch downloads official agency source files into the raw data
// directory, safely.
//
// A download goes to a temporary file next to its destination and is only
// renamed over the destination after it has been checked: a 2xx status, no
// HTML error or login page, the magic bytes (or text form) expected for its
// Kind, the full length announced by Content-Length, and a size cap. A file
// that fails any check is refused with an error that says what was received
// and what to do, and the destination is left untouched. A download whose
// bytes equal the existing destination leaves the destination alone and is
// reported as unchanged. A redirect leaves neither the host asked nor its
// publisher's own hosts, nor goes from https to http, and a download that
// comes too slowly, or not whole by its deadline, is cut off (pace.go).
package fetch

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Kind is the file type a source is expected to be.
type Kind string

// The kinds of file a Source can name.
const (
	XLSX Kind = "xlsx" // Office Open XML workbook (a zip container)
	XLS  Kind = "xls"  // legacy Excel workbook (an OLE2 compound file)
	CSV  Kind = "csv"  // comma-separated UTF-8 (or ASCII) text
	ZIP  Kind = "zip"  // zip archive
	JSON Kind = "json" // a JSON document (an API response body)
	PDF  Kind = "pdf"  // a PDF document
	TEXT Kind = "text" // UTF-8 (or ASCII) text of any other layout: delimited exports, notices
	ANSI Kind = "ansi" // text in a single-byte Windows code page (Windows-1252), as legacy database exports are
	// LISTING (listing.go) is a listing read page by page, whose pages name the files to download.
)

// valid reports whether k is one of the known kinds.
func (k Kind) valid() bool {
	switch k {
	case XLSX, XLS, CSV, ZIP, JSON, PDF, TEXT, ANSI, LISTING:
		return true
	}
	return false
}

// Source names one file to download.
type Source struct {
	URL       string // official URL (agency address)
	Kind      Kind   // expected type of the downloaded body (or of the zip member)
	ZipMember string // when set, URL is a zip archive and this member is extracted
	Dest      string // path relative to the raw directory, e.g. "eia/eia860m/may_generator2016.xlsx"
	// Listing reads the pages of a LISTING source (Kind LISTING only): Dest is where its
	// first page is stored.
	Listing *Listing
	// Published, when set, is the date the publisher's listing gives this version of the
	// file: a destination downloaded from that version (its modification time is that date)
	// is not asked for again, and a download takes it as its modification time.
	Published time.Time
}

// DefaultMaxBytes is the size cap used when Options.MaxBytes is zero or
// negative: 512 MiB.
const DefaultMaxBytes int64 = 512 << 20

// DefaultUserAgent is the User-Agent header sent when Options.UserAgent is
// empty.
const DefaultUserAgent = "citeq-fetch (+https://github.com/citeq/citeq)"

// stallTimeout is how long a download may go without receiving a single byte
// before it is abandoned.
const stallTimeout = 2 * time.Minute

// Options controls how Fetch downloads.
type Options struct {
	// Mirror, when non-empty (e.g. "http://127.0.0.1:8099"), replaces the
	// scheme and host of every URL; path and query are kept. A path in
	// Mirror (e.g. "http://mirror/eia") is put in front of the URL's path.
	Mirror string
	// Client sends the requests. Nil means a client with connect, TLS
	// handshake and response-header timeouts. With any client, a download
	// that receives no data for two minutes is abandoned, and a redirect is
	// followed only to the host asked or another host of the same publisher
	// (PublisherDomains), never from https to http: the client's own
	// CheckRedirect is not used.
	Client *http.Client
	// Deadline is the most one file may take, from its request to its last
	// byte; zero or negative means DefaultDeadline.
	Deadline time.Duration
	// MinRate is the fewest bytes a download must receive in every
	// RateWindow once its body flows; zero or negative means DefaultMinRate
	// and DefaultRateWindow.
	MinRate    int64
	RateWindow time.Duration
	// Progress, when non-nil, receives a progress bar per file showing the
	// bytes received and the total when the server announces it.
	Progress io.Writer
	// UserAgent is the User-Agent header; empty means DefaultUserAgent.
	UserAgent string
	// MaxBytes caps the size of a download (and of an extracted zip
	// member); zero or negative means DefaultMaxBytes.
	MaxBytes int64
	// Validators, when set, make the request conditional (If-None-Match,
	// If-Modified-Since) if the destination exists: a 304 answer leaves it as
	// it is, with Status StatusNotModified (conditional.go). A listing's pages
	// and the files they name are asked unconditionally.
	Validators Validators
}

// Status values reported in Result.Status.
const (
	StatusDownloaded = "downloaded" // the destination was written
	StatusUnchanged  = "unchanged"  // the destination already held identical bytes
)

// Result says what happened to one source.
type Result struct {
	Source Source
	Path   string // the destination file: rawDir joined with Source.Dest
	Bytes  int64  // size of the destination file
	SHA256 string // lower-case hex SHA-256 of the destination file
	Status string // StatusDownloaded or StatusUnchanged
	// Files are the results of the files a LISTING source's pages name.
	Files []Result
	// Validators are the version of the file the server named (ETag,
	// Last-Modified), to send back with the next request for it.
	Validators Validators
}

// ErrRefused is matched (with errors.Is) by every error that refuses a
// download because of what the server sent.
var ErrRefused = errors.New("download refused")

// RefusedError is the error for a download refused because of what the
// server sent: a non-2xx status, an HTML page, the wrong kind of file, a
// truncated body, a body over the size cap or a missing zip member.
type RefusedError struct {
	URL    string // the URL requested (after Mirror rewriting)
	Reason string // what was received
	Advice string // what to do about it
}

// Error implements error.
func (e *RefusedError) Error() string {
	s := "refused " + e.URL + ": " + e.Reason
	if e.Advice != "" {
		s += "; " + e.Advice
	}
	return s
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

var defaultClient = newDefaultClient()

func newDefaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 15 * time.Second
	t.ResponseHeaderTimeout = time.Minute
	t.IdleConnTimeout = 90 * time.Second
	return &http.Client{Transport: t}
}

// Fetch downloads src into rawDir/src.Dest. It creates the destination
// directory, downloads to a temporary file in it, checks the body against
// src.Kind (after extracting src.ZipMember when set) and atomically renames
// it over the destination. If the destination already holds identical bytes
// it is left alone and the status is StatusUnchanged. On any error the
// destination is untouched and no temporary file remains; errors caused by
// what the server sent match ErrRefused.
func Fetch(ctx context.Context, rawDir string, src Source, opt Options) (Result, error) {
	res := Result{Source: src}
	name := src.Dest
	if name == "" {
		name = src.URL
	}
	if err := checkSource(src); err != nil {
		return res, fmt.Errorf("fetch %s: %w", name, err)
	}
	if src.Kind == LISTING {
		opt.Validators = Validators{}
		return fetchListing(ctx, rawDir, src, opt)
	}
	u, err := resolveURL(src.URL, opt.Mirror)
	if err != nil {
		return res, fmt.Errorf("fetch %s: %w", name, err)
	}
	dest := filepath.Join(rawDir, filepath.FromSlash(src.Dest))
	res.Path = dest
	dir := filepath.Dir(dest)
	if fi, err := os.Stat(dest); err == nil && !fi.Mode().IsRegular() {
		return res, fmt.Errorf("fetch %s: destination %s exists and is not a regular file", name, dest)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("fetch %s: create directory: %w", name, err)
	}
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if samePublished(dest, src.Published) {
		return notModified(res, Validators{})
	}

	var tmp string
	var x *exchange
	if pu, _ := url.Parse(u); pu != nil && pu.Scheme == "ftp" {
		tmp, err = downloadFTP(ctx, pu, dir, src, opt, maxBytes)
	} else {
		opt, x = watch(opt, dest, opt.Validators)
		tmp, err = download(ctx, u, dir, src, opt, maxBytes)
	}
	if tmp != "" {
		defer os.Remove(tmp) // a no-op once renamed
	}
	if x != nil {
		if v, unchanged, _ := x.result(); unchanged {
			return notModified(res, v)
		}
		res.Validators, _, _ = x.result()
	}
	if err != nil {
		return res, fmt.Errorf("fetch %s: %w", name, err)
	}

	final := tmp
	if src.ZipMember != "" {
		member, err := extractMember(tmp, u, dir, src, maxBytes)
		if member != "" {
			defer os.Remove(member)
		}
		if err != nil {
			return res, fmt.Errorf("fetch %s: %w", name, err)
		}
		final = member
	} else if err := checkFile(final, src.Kind, u, ""); err != nil {
		return res, fmt.Errorf("fetch %s: %w", name, err)
	}

	size, sum, err := hashFile(final)
	if err != nil {
		return res, fmt.Errorf("fetch %s: hash download: %w", name, err)
	}
	res.Bytes, res.SHA256 = size, sum

	changed, err := replace(final, dest, size, sum)
	if err != nil {
		return res, fmt.Errorf("fetch %s: %w", name, err)
	}
	res.Status = StatusUnchanged
	if changed {
		syncDir(dir)
		res.Status = StatusDownloaded
	}
	return res, markPublished(dest, src.Published)
}

// replace renames tmp, of size bytes with SHA-256 sum, over dest, unless dest already holds
// those bytes; it reports whether dest changed.
func replace(tmp, dest string, size int64, sum string) (bool, error) {
	same, err := sameContent(dest, size, sum)
	if err != nil {
		return false, fmt.Errorf("compare with existing file: %w", err)
	}
	if same {
		return false, nil
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return false, fmt.Errorf("replace destination: %w", err)
	}
	return true, nil
}

// checkSource rejects sources that cannot be fetched at all.
func checkSource(src Source) error {
	if src.URL == "" {
		return errors.New("source has no URL")
	}
	if !src.Kind.valid() {
		return fmt.Errorf("unknown kind %q (want xlsx, xls, csv, zip, json, pdf, text, ansi or listing)", src.Kind)
	}
	if src.Dest == "" {
		return errors.New("source has no destination path")
	}
	local := filepath.FromSlash(src.Dest)
	if !filepath.IsLocal(local) || filepath.Clean(local) == "." {
		return fmt.Errorf("destination %q must be a relative path inside the raw directory", src.Dest)
	}
	return nil
}

// resolveURL parses raw and, when mirror is set, replaces its scheme and
// host with the mirror's (prefixing the mirror's path, if any): an ftp
// address is then fetched from the mirror over HTTP.
func resolveURL(raw, mirror string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ftp" || u.Host == "" {
		return "", fmt.Errorf("bad URL %q: want an http, https or ftp address", raw)
	}
	if mirror == "" {
		return u.String(), nil
	}
	m, err := url.Parse(mirror)
	if err != nil {
		return "", fmt.Errorf("bad mirror %q: %w", mirror, err)
	}
	if m.Scheme != "http" && m.Scheme != "https" || m.Host == "" {
		return "", fmt.Errorf("bad mirror %q: want an address such as http://127.0.0.1:8099", mirror)
	}
	u.Scheme, u.Host, u.User = m.Scheme, m.Host, m.User
	if prefix := strings.TrimSuffix(m.EscapedPath(), "/"); prefix != "" {
		p, err := url.Parse(prefix + u.EscapedPath())
		if err != nil {
			return "", fmt.Errorf("bad mirror %q: %w", mirror, err)
		}
		u.Path, u.RawPath = p.Path, p.RawPath
	}
	return u.String(), nil
}

// download GETs u into a new temporary file in dir and returns its path
// (also on error, when one was created, so that the caller can remove it).
// It refuses non-2xx statuses, HTML content types, bodies over maxBytes,
// bodies shorter than their Content-Length, a redirect to another host or
// from https to http, and a body that comes too slowly (pace).
func download(ctx context.Context, u, dir string, src Source, opt Options, maxBytes int64) (string, error) {
	ctx, pc := startPace(ctx, u, opt)
	defer pc.stop()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("build request for %s: %w", u, err)
	}
	ua := opt.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)
	resp, err := guarded(opt.Client, req.URL).Do(req)
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return "", re
		}
		return "", fmt.Errorf("download %s: %w", u, pc.cause(ctx, err))
	}
	defer resp.Body.Close()

	want := src.Kind.noun()
	if src.ZipMember != "" {
		want = ZIP.noun()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &RefusedError{URL: u, Reason: "the server answered " + resp.Status, Advice: statusAdvice(resp.StatusCode)}
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt == "" {
			mt = strings.ToLower(strings.TrimSpace(strings.SplitN(ct, ";", 2)[0]))
		}
		if mt == "text/html" || mt == "application/xhtml+xml" {
			return "", &RefusedError{URL: u,
				Reason: fmt.Sprintf("the server returned an HTML page (Content-Type %s), not %s (an error or login page?)", ct, want),
				Advice: "check the URL or try again later"}
		}
	}
	if resp.ContentLength > maxBytes {
		return "", &RefusedError{URL: u,
			Reason: fmt.Sprintf("the server announced %s (Content-Length %d), above the size cap of %s", humanBytes(resp.ContentLength), resp.ContentLength, humanBytes(maxBytes)),
			Advice: "check the URL, or raise Options.MaxBytes if the file really is this large"}
	}

	tmp, n, copyErr, err := saveBody(dir, src, opt, resp.ContentLength, pc.body(resp.Body, resp.ContentLength), maxBytes)
	switch {
	case err != nil:
		return tmp, err
	case n > maxBytes:
		return tmp, overCap(u, "the body", maxBytes)
	case copyErr != nil:
		if cause := pc.cause(ctx, nil); cause != nil {
			var re *RefusedError
			if errors.As(cause, &re) {
				return tmp, re
			}
			copyErr = cause
		} else if errors.Is(copyErr, io.ErrUnexpectedEOF) && resp.ContentLength >= 0 {
			return tmp, truncated(u, n, resp.ContentLength)
		}
		return tmp, fmt.Errorf("download %s: failed after %d bytes: %w", u, n, copyErr)
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return tmp, truncated(u, n, resp.ContentLength)
	}
	return tmp, nil
}

func truncated(u string, got, want int64) error {
	return &RefusedError{URL: u,
		Reason: fmt.Sprintf("the body was truncated: received %d of the %d bytes announced by Content-Length", got, want),
		Advice: "the connection was probably cut; try again later"}
}

func statusAdvice(code int) string {
	switch {
	case code == http.StatusNotFound || code == http.StatusGone:
		return "the file may have moved; check the URL on the agency's site"
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return "the server denied access; check the URL, or try again later (some sites block automated downloads)"
	case code == http.StatusTooManyRequests || code >= 500:
		return "the server is busy or failing; try again later"
	case code >= 300 && code < 400:
		return "the server redirected but the redirect was not followed; check the URL"
	}
	return "check the URL or try again later"
}

// saveBody copies r into a new temporary file in dir, at most maxBytes+1 bytes, with a
// progress bar of total bytes (-1: unknown). It returns the file (also on error, when one was
// created), the bytes copied, the error of reading r, and the error of writing the file.
func saveBody(dir string, src Source, opt Options, total int64, r io.Reader, maxBytes int64) (tmp string, n int64, copyErr, err error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(filepath.FromSlash(src.Dest))+".*.part")
	if err != nil {
		return "", 0, nil, fmt.Errorf("create temporary file: %w", err)
	}
	tmp = f.Name()
	bar := newBar(opt.Progress, src.Dest, total)
	var w io.Writer = f
	if bar != nil {
		w = io.MultiWriter(f, bar)
	}
	n, copyErr = io.Copy(w, io.LimitReader(r, maxBytes+1))
	bar.finish(copyErr == nil && n <= maxBytes)
	if copyErr == nil {
		copyErr = f.Sync()
	}
	if cerr := f.Close(); copyErr == nil && cerr != nil {
		return tmp, n, nil, fmt.Errorf("write temporary file: %w", cerr)
	}
	return tmp, n, copyErr, nil
}

// overCap refuses a download of what (the body, the file) larger than the size cap.
func overCap(u, what string, maxBytes int64) error {
	return &RefusedError{URL: u,
		Reason: fmt.Sprintf("%s is larger than the size cap of %s", what, humanBytes(maxBytes)),
		Advice: "check the URL, or raise Options.MaxBytes if the file really is this large"}
}

// extractMember checks that the downloaded file archive is a zip archive
// containing src.ZipMember, extracts that member to a new temporary file in
// dir and checks it against src.Kind. It returns the temporary file's path
// (also on error, when one was created).
func extractMember(archive, u, dir string, src Source, maxBytes int64) (string, error) {
	if err := checkFile(archive, ZIP, u, ""); err != nil {
		var re *RefusedError
		if errors.As(err, &re) && strings.HasSuffix(re.Advice, "Source.Kind") {
			re.Advice = "check the URL: Source.ZipMember is set, so it must give a zip archive"
		}
		return "", err
	}
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return "", &RefusedError{URL: u, Reason: "the body cannot be read as a zip archive (" + err.Error() + ")", Advice: "try again later"}
	}
	defer zr.Close()
	zf := findMember(zr.File, src.ZipMember)
	if zf == nil {
		return "", &RefusedError{URL: u,
			Reason: fmt.Sprintf("the zip archive has no member %q; it contains %s", src.ZipMember, listMembers(zr.File)),
			Advice: "check Source.ZipMember (the archive's layout may have changed)"}
	}
	if zf.FileInfo().IsDir() {
		return "", &RefusedError{URL: u, Reason: fmt.Sprintf("zip member %q is a directory", zf.Name), Advice: "check Source.ZipMember"}
	}
	if zf.UncompressedSize64 > uint64(maxBytes) {
		return "", &RefusedError{URL: u,
			Reason: fmt.Sprintf("zip member %q is %s uncompressed, above the size cap of %s", zf.Name, humanBytes(int64(min(zf.UncompressedSize64, 1<<62))), humanBytes(maxBytes)),
			Advice: "raise Options.MaxBytes if the file really is this large"}
	}
	rc, err := zf.Open()
	if err != nil {
		return "", &RefusedError{URL: u, Reason: fmt.Sprintf("zip member %q cannot be opened (%v)", zf.Name, err), Advice: "the archive may be damaged; try again later"}
	}
	defer rc.Close()
	f, err := os.CreateTemp(dir, "."+filepath.Base(filepath.FromSlash(src.Dest))+".*.part")
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	tmp := f.Name()
	n, copyErr := io.Copy(f, io.LimitReader(rc, maxBytes+1))
	if copyErr == nil {
		copyErr = f.Sync()
	}
	if cerr := f.Close(); copyErr == nil && cerr != nil {
		return tmp, fmt.Errorf("write temporary file: %w", cerr)
	}
	if n > maxBytes {
		return tmp, &RefusedError{URL: u,
			Reason: fmt.Sprintf("zip member %q is larger than the size cap of %s", zf.Name, humanBytes(maxBytes)),
			Advice: "raise Options.MaxBytes if the file really is this large"}
	}
	if copyErr != nil {
		var pe *os.PathError
		if errors.As(copyErr, &pe) {
			return tmp, fmt.Errorf("extract zip member %q: %w", zf.Name, copyErr)
		}
		return tmp, &RefusedError{URL: u, Reason: fmt.Sprintf("zip member %q cannot be extracted (%v)", zf.Name, copyErr), Advice: "the archive may be damaged; try again later"}
	}
	return tmp, checkFile(tmp, src.Kind, u, zf.Name)
}

// findMember finds the member called name, ignoring a leading "./" or "/"
// and the direction of slashes.
func findMember(files []*zip.File, name string) *zip.File {
	norm := func(s string) string {
		s = strings.ReplaceAll(s, `\`, "/")
		return strings.TrimLeft(strings.TrimPrefix(s, "./"), "/")
	}
	for _, f := range files {
		if f.Name == name {
			return f
		}
	}
	want := norm(name)
	for _, f := range files {
		if norm(f.Name) == want {
			return f
		}
	}
	return nil
}

// listMembers describes the members of an archive for an error message.
func listMembers(files []*zip.File) string {
	const show = 20
	var names []string
	for _, f := range files {
		if f.FileInfo().IsDir() {
			continue
		}
		names = append(names, fmt.Sprintf("%q", f.Name))
	}
	if len(names) == 0 {
		return "no files"
	}
	more := ""
	if len(names) > show {
		more = fmt.Sprintf(" and %d more", len(names)-show)
		names = names[:show]
	}
	return strings.Join(names, ", ") + more
}

// hashFile returns the size and hex SHA-256 of a file.
func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// sameContent reports whether path exists with the given size and SHA-256.
func sameContent(path string, size int64, sum string) (bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fi.Size() != size {
		return false, nil
	}
	_, got, err := hashFile(path)
	if err != nil {
		return false, err
	}
	return got == sum, nil
}

// syncDir flushes a directory entry after a rename, where supported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

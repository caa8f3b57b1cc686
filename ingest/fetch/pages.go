package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Pages names a JSON API request read page by page with a key: each page is asked with
// offset and length parameters (and the key), and stored as its own file, as the API sent it,
// until the rows read reach the total the API reports. The key never reaches a stored file,
// a message or a citation: it is added to the request only when it is sent, taken out of any
// error, and taken out of a body that echoes it.
type Pages struct {
	// URL is the official request without offset, length and key.
	URL string
	// Dest is where the first page (offset 0) goes, relative to the raw directory (e.g.
	// eia/eia923_api/eia923_2022.json); the page at offset n > 0 goes beside it as
	// <stem>_<n><ext> (eia923_2022_5000.json).
	Dest string
	// Length is the rows asked per page.
	Length int
	// KeyParam is the query parameter that carries the key (api_key).
	KeyParam string
	// KeyEnv is the environment variable that holds the key (CITEQ_EIA_API_KEY); citeq
	// ingest also reads it from the file --api-key-file <KeyEnv>=<path> names.
	KeyEnv string
	// KeyHelp says where a key is obtained, for the message when none is configured.
	KeyHelp string
	// Count reads a page body: the total rows the API reports for the request, and the rows
	// the page holds.
	Count func(body []byte) (total, rows int, err error)
	// MaxPages is the most pages one walk reads; zero or negative means DefaultMaxPages. A
	// first page reporting more rows than MaxPages pages of Length hold stops the walk there.
	MaxPages int
}

// ErrNoKey is matched (with errors.Is) by the error of FetchPages called without a key.
var ErrNoKey = errors.New("no API key configured")

// PageDest is where the page at offset goes: Dest itself for offset 0, else
// <stem>_<offset><ext> beside it.
func (p Pages) PageDest(offset int) string {
	if offset == 0 {
		return p.Dest
	}
	ext := filepath.Ext(p.Dest)
	return strings.TrimSuffix(p.Dest, ext) + "_" + strconv.Itoa(offset) + ext
}

// maxPages bounds a listing's walk, whatever its pages say.
const maxPages = 10000

// DefaultMaxPages is the most pages a paged walk reads when Pages.MaxPages is zero or
// negative: 1,000 pages (5,000,000 rows of the EIA API's 5,000).
const DefaultMaxPages = 1000

// FetchPages downloads every page of p into rawDir with key: the page at offset 0, then at
// offset+rows, until the rows read reach the page's total. The first page's total must be a
// count that the walk can read within p.MaxPages pages; a later page that reports another
// total, or holds no row before it, stops the walk. Each page is checked as a JSON document
// and held in a temporary file; only once the whole walk has succeeded do the pages replace
// their destinations (a page equal to the file there leaves it alone), and page files of an
// earlier walk beyond the last page are removed, so that the folder holds exactly the pages
// of one walk, and a walk that fails leaves the pages of the last one as they were. It
// returns one Result per page stored.
func FetchPages(ctx context.Context, rawDir string, p Pages, key string, opt Options) ([]Result, error) {
	name := p.Dest
	if key == "" {
		return nil, fmt.Errorf("fetch %s: %w: set %s, or give citeq ingest --api-key-file %s=<file holding the key> (%s); the files already there are kept", name, ErrNoKey, p.KeyEnv, p.KeyEnv, p.KeyHelp)
	}
	if p.Length <= 0 || p.KeyParam == "" || p.Count == nil {
		return nil, fmt.Errorf("fetch %s: the paged source needs a page length, a key parameter and a page reader", name)
	}
	base, err := url.Parse(p.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: bad URL %q: %w", name, p.URL, err)
	}
	limit := p.MaxPages
	if limit <= 0 {
		limit = DefaultMaxPages
	}
	var staged []stagedPage
	defer func() {
		for _, sp := range staged {
			os.Remove(sp.tmp) // a no-op once renamed
		}
	}()
	const kept = " (nothing was replaced: the pages of the last walk are kept)"
	total := -1
	for offset, n := 0, 0; total < 0 || offset < total; n++ {
		if n >= limit {
			return nil, fmt.Errorf("fetch %s: %d pages read and the rows still short of the %d the API reports (%d read): the walk stops at %d pages; check the request%s", name, n, total, offset, limit, kept)
		}
		q := base.Query()
		q.Set("offset", strconv.Itoa(offset))
		q.Set("length", strconv.Itoa(p.Length))
		shown := *base
		shown.RawQuery = q.Encode()
		q.Set(p.KeyParam, key)
		keyed := *base
		keyed.RawQuery = q.Encode()
		src := Source{URL: keyed.String(), Kind: JSON, Dest: p.PageDest(offset)}
		sp, body, err := stagePage(ctx, rawDir, src, key, shown.String()+" ("+p.KeyParam+" omitted)", opt)
		if sp.tmp != "" {
			staged = append(staged, sp)
		}
		if err != nil {
			return nil, redact(fmt.Errorf("%w%s", err, kept), key, p.KeyParam)
		}
		staged[len(staged)-1].res.Source.URL = shown.String()
		pageTotal, rows, err := p.Count(body)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: the page at offset %d does not read as the API's response (%v)%s", name, offset, err, kept)
		}
		if total < 0 {
			switch {
			case pageTotal < 0:
				return nil, fmt.Errorf("fetch %s: the API reports %d rows in all, not a count of rows; check the request%s", name, pageTotal, kept)
			case int64(pageTotal) > int64(limit)*int64(p.Length):
				return nil, fmt.Errorf("fetch %s: the API reports %d rows in all, which would take more than %d pages of %d rows, the most a walk reads; check the request (narrow it, e.g. by date or facet)%s", name, pageTotal, limit, p.Length, kept)
			}
			total = pageTotal
		} else if pageTotal != total {
			return nil, fmt.Errorf("fetch %s: the page at offset %d reports %d rows in all, the first page %d: the data changed during the walk; fetch again%s", name, offset, pageTotal, total, kept)
		}
		if rows == 0 && offset < total {
			return nil, fmt.Errorf("fetch %s: the page at offset %d holds no row, though the API reports %d in all%s", name, offset, total, kept)
		}
		offset += rows
	}
	results := make([]Result, 0, len(staged))
	names := map[string]bool{}
	for _, sp := range staged {
		res, err := sp.store()
		if err != nil {
			return results, err
		}
		results = append(results, res)
		names[filepath.Base(res.Path)] = true
	}
	if len(staged) > 0 {
		syncDir(filepath.Dir(staged[0].res.Path))
	}
	return results, removeStalePages(rawDir, p, names)
}

// stagedPage is one page of a walk, checked and waiting in its temporary file.
type stagedPage struct {
	res Result
	tmp string
}

// stagePage downloads one page like Fetch does into a temporary file beside its
// destination, except that the key is taken out of a body that echoes it, and leaves it
// there. It returns the page (its tmp set once a file was made, also on error) and its bytes
// as they will be stored.
func stagePage(ctx context.Context, rawDir string, src Source, key, shown string, opt Options) (stagedPage, []byte, error) {
	sp := stagedPage{res: Result{Source: src}}
	u, err := resolveURL(src.URL, opt.Mirror)
	if err != nil {
		return sp, nil, err
	}
	dest := filepath.Join(rawDir, filepath.FromSlash(src.Dest))
	sp.res.Path = dest
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sp, nil, fmt.Errorf("fetch %s: create directory: %w", src.Dest, err)
	}
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	sp.tmp, err = download(ctx, u, dir, src, opt, maxBytes)
	if err != nil {
		return sp, nil, fmt.Errorf("fetch %s: %w", src.Dest, err)
	}
	if err := checkFile(sp.tmp, JSON, shown, ""); err != nil {
		return sp, nil, fmt.Errorf("fetch %s: %w", src.Dest, err)
	}
	body, err := os.ReadFile(sp.tmp)
	if err != nil {
		return sp, nil, fmt.Errorf("fetch %s: %w", src.Dest, err)
	}
	if clean := scrubKey(body, key); !bytes.Equal(clean, body) {
		body = clean
		if err := os.WriteFile(sp.tmp, body, 0o600); err != nil {
			return sp, nil, fmt.Errorf("fetch %s: %w", src.Dest, err)
		}
	}
	size, sum, err := hashFile(sp.tmp)
	if err != nil {
		return sp, nil, fmt.Errorf("fetch %s: hash download: %w", src.Dest, err)
	}
	sp.res.Bytes, sp.res.SHA256 = size, sum
	return sp, body, nil
}

// store moves a staged page into place, unless its destination already holds its bytes.
func (sp stagedPage) store() (Result, error) {
	res := sp.res
	changed, err := replace(sp.tmp, res.Path, res.Bytes, res.SHA256)
	if err != nil {
		return res, fmt.Errorf("fetch %s: %w", res.Source.Dest, err)
	}
	res.Status = StatusUnchanged
	if changed {
		res.Status = StatusDownloaded
	}
	return res, nil
}

// scrubKey takes every occurrence of key out of body (a response that echoes its request's
// parameters): the key is never stored.
func scrubKey(body []byte, key string) []byte {
	if key == "" {
		return body
	}
	out := bytes.ReplaceAll(body, []byte(key), nil)
	if esc := url.QueryEscape(key); esc != key {
		out = bytes.ReplaceAll(out, []byte(esc), nil)
	}
	return out
}

// redactedError is an error whose text has the key taken out; it still matches ErrRefused
// when the error it replaces did.
type redactedError struct {
	msg     string
	refused bool
}

func (e *redactedError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrRefused) true for a refused download.
func (e *redactedError) Is(target error) bool { return e.refused && target == ErrRefused }

// redact returns err with every spelling of key in its text replaced by "<param omitted>".
// The error is not wrapped, so nothing holding the key can be reached from it.
func redact(err error, key, param string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, k := range []string{key, url.QueryEscape(key)} {
		msg = strings.ReplaceAll(msg, k, "<"+param+" omitted>")
	}
	return &redactedError{msg: msg, refused: errors.Is(err, ErrRefused)}
}

// removeStalePages removes the page files of an earlier walk (<stem>_<n><ext> beside Dest)
// that this walk did not write.
func removeStalePages(rawDir string, p Pages, kept map[string]bool) error {
	dir := filepath.Join(rawDir, filepath.FromSlash(filepath.Dir(p.Dest)))
	ext := filepath.Ext(p.Dest)
	stem := strings.TrimSuffix(filepath.Base(p.Dest), ext)
	page := regexp.MustCompile(`^` + regexp.QuoteMeta(stem) + `_\d+` + regexp.QuoteMeta(ext) + `$`)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("fetch %s: %w", p.Dest, err)
	}
	for _, e := range entries {
		if page.MatchString(e.Name()) && !kept[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("fetch %s: remove the page of an earlier fetch: %w", p.Dest, err)
			}
		}
	}
	return nil
}

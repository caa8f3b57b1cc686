package fetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// LISTING is the kind of a Source that is a publisher's listing read page by page (a JSON
// document per page, or text such as an RSS feed: Listing.PageKind): Fetch walks its pages
// with Source.Listing, downloads every file the pages name, and stores the pages beside
// Source.Dest.
const LISTING Kind = "listing"

// Listing reads the pages of a listing Source. The files a page names are downloaded by Fetch
// like any Source (into their own destinations, checked against their own kinds).
type Listing struct {
	// Read reads one page, fetched from the official address pageURL: the files it names to
	// download, and the official address of the next page ("" after the last page).
	Read func(page []byte, pageURL string) (files []Source, next string, err error)
	// PageKind is the kind every page is checked as: JSON when empty, TEXT for a feed.
	PageKind Kind
}

// ListingPageDest is where page n (1, 2, ...) of a listing whose first page goes to dest is
// stored: dest itself for page 1, else <stem>_p<n><ext> beside it.
func ListingPageDest(dest string, n int) string {
	if n <= 1 {
		return dest
	}
	ext := filepath.Ext(dest)
	return strings.TrimSuffix(dest, ext) + "_p" + strconv.Itoa(n) + ext
}

// listingPage is one page of a walk, read and checked, waiting in its temporary file.
type listingPage struct {
	src Source
	tmp string
}

// fetchListing walks the listing src: it downloads every page (each checked as a JSON
// document and read by src.Listing.Read) before anything is written, then downloads each file
// the pages name, and only then stores the pages, so that a listing that fails to read, or a
// file that fails to download, leaves the listing stored before untouched and the next run
// walks it again. Page files of an earlier, longer walk are removed. The Result is page 1's;
// its Files are the results of the files downloaded, and its Status is StatusDownloaded when
// any page or file was written.
func fetchListing(ctx context.Context, rawDir string, src Source, opt Options) (Result, error) {
	res := Result{Source: src, Path: filepath.Join(rawDir, filepath.FromSlash(src.Dest))}
	if src.Listing == nil || src.Listing.Read == nil {
		return res, fmt.Errorf("fetch %s: a listing source needs Source.Listing with a page reader", src.Dest)
	}
	dir := filepath.Dir(res.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("fetch %s: create directory: %w", src.Dest, err)
	}
	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	var pages []listingPage
	defer func() {
		for _, p := range pages {
			os.Remove(p.tmp) // a no-op once renamed
		}
	}()
	var files []Source
	seen := map[string]bool{}
	pageKind := src.Listing.PageKind
	if pageKind == "" {
		pageKind = JSON
	}
	for pageURL := src.URL; pageURL != ""; {
		n := len(pages) + 1
		if n > maxPages {
			return res, fmt.Errorf("fetch %s: more than %d pages; check the listing request", src.Dest, maxPages)
		}
		if seen[pageURL] {
			return res, fmt.Errorf("fetch %s: page %d asks for %s again: the listing does not advance", src.Dest, n, pageURL)
		}
		seen[pageURL] = true
		page := Source{URL: pageURL, Kind: pageKind, Dest: ListingPageDest(src.Dest, n)}
		u, err := resolveURL(pageURL, opt.Mirror)
		if err != nil {
			return res, fmt.Errorf("fetch %s: %w", page.Dest, err)
		}
		tmp, err := download(ctx, u, dir, page, opt, maxBytes)
		if tmp != "" {
			pages = append(pages, listingPage{src: page, tmp: tmp})
		}
		if err == nil {
			err = checkFile(tmp, pageKind, u, "")
		}
		if err != nil {
			return res, fmt.Errorf("fetch %s: page %d of the listing: %w (nothing was replaced)", page.Dest, n, err)
		}
		body, err := os.ReadFile(tmp)
		if err != nil {
			return res, fmt.Errorf("fetch %s: %w", page.Dest, err)
		}
		found, next, err := src.Listing.Read(body, pageURL)
		if err != nil {
			return res, fmt.Errorf("fetch %s: page %d of the listing (%s) does not read as the listing: %w (nothing was replaced)", page.Dest, n, pageURL, err)
		}
		files = append(files, found...)
		pageURL = next
	}

	changed := false
	dests := map[string]string{}
	var unique []Source // a file listed on two pages is downloaded once
	for _, f := range files {
		if f.Kind == LISTING {
			return res, fmt.Errorf("fetch %s: the listing names another listing (%s)", src.Dest, f.URL)
		}
		if other, dup := dests[f.Dest]; dup {
			if other != f.URL {
				return res, fmt.Errorf("fetch %s: %s and %s would both be stored as %s", src.Dest, other, f.URL, f.Dest)
			}
			continue
		}
		dests[f.Dest] = f.URL
		unique = append(unique, f)
	}
	files = unique
	var failed fileErrors
	for _, f := range files {
		r, err := Fetch(ctx, rawDir, f, opt)
		if err != nil {
			failed = append(failed, err)
			continue
		}
		res.Files = append(res.Files, r)
		changed = changed || r.Status == StatusDownloaded
	}
	if len(failed) > 0 {
		return res, fmt.Errorf("fetch %s: %d of the %d files the listing names failed (the listing is walked again next run): %w", src.Dest, len(failed), len(files), failed)
	}

	kept := map[string]bool{}
	for i, p := range pages {
		dest := filepath.Join(rawDir, filepath.FromSlash(p.src.Dest))
		kept[filepath.Base(dest)] = true
		size, sum, err := hashFile(p.tmp)
		if err != nil {
			return res, fmt.Errorf("fetch %s: hash download: %w", p.src.Dest, err)
		}
		if i == 0 {
			res.Bytes, res.SHA256 = size, sum
		}
		moved, err := replace(p.tmp, dest, size, sum)
		if err != nil {
			return res, fmt.Errorf("fetch %s: %w", p.src.Dest, err)
		}
		changed = changed || moved
	}
	syncDir(dir)
	if err := removeStaleListingPages(res.Path, kept); err != nil {
		return res, fmt.Errorf("fetch %s: %w", src.Dest, err)
	}
	res.Status = StatusUnchanged
	if changed {
		res.Status = StatusDownloaded
	}
	return res, nil
}

// fileErrors are the failures of the files a listing names, on one line; errors.Is and
// errors.As see each of them.
type fileErrors []error

func (e fileErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

func (e fileErrors) Unwrap() []error { return e }

// removeStaleListingPages removes the page files of an earlier walk (<stem>_p<n><ext> beside
// the first page) that this walk did not store.
func removeStaleListingPages(first string, kept map[string]bool) error {
	dir := filepath.Dir(first)
	ext := filepath.Ext(first)
	stem := strings.TrimSuffix(filepath.Base(first), ext)
	page := regexp.MustCompile(`^` + regexp.QuoteMeta(stem) + `_p\d+` + regexp.QuoteMeta(ext) + `$`)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if page.MatchString(e.Name()) && !kept[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove the page of an earlier walk: %w", err)
			}
		}
	}
	return nil
}

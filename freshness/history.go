package freshness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/fetch/archive"
)

// ParseSince reads the --since of a backfill: YYYY, YYYY-MM or YYYY-MM-DD (the first day of a
// year or month).
func ParseSince(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want YYYY, YYYY-MM or YYYY-MM-DD (e.g. 2020-01)", s)
}

// Backfill downloads into rawDir the documents of srcs' publishers' archives from since to
// now: every period of a dated document (a period not published at any of its addresses is
// said and skipped), and every posting of a listing for periods from since on. One failure
// does not stop the others; the error names each. A document already held is not downloaded
// again (a listing's posting by its date, a dated document by its bytes).
func Backfill(ctx context.Context, rawDir string, srcs []Source, since, now time.Time, opt fetch.Options, out io.Writer) error {
	var failed []string
	line := func(dest, status string, res fetch.Result) {
		if res.SHA256 != "" {
			fmt.Fprintf(out, "fetch %-45s %s (%d bytes, sha256 %s…)\n", dest, status, res.Bytes, res.SHA256[:12])
			return
		}
		fmt.Fprintf(out, "fetch %-45s %s\n", dest, status)
	}
	for _, s := range srcs {
		if ctx.Err() != nil {
			break
		}
		if s.Dated != nil {
			periods := s.Dated.Periods(since, now)
			fmt.Fprintf(out, "history %s: %d %ss of %s from %s\n", s.ID, len(periods), s.Dated.Period, s.Dated.Name, s.Dated.Period.Label(periods[0]))
			for _, p := range periods {
				res, err := s.Dated.Fetch(ctx, rawDir, p, opt)
				dest := s.Dated.Sources(p)[0].Dest
				switch {
				case errors.Is(err, archive.ErrNotPublished):
					fmt.Fprintf(out, "fetch %-45s not published (%s)\n", dest, strings.Join(s.Dated.Addresses(p), ", "))
				case err != nil:
					fmt.Fprintf(out, "fetch %-45s FAILED: %v\n", dest, err)
					failed = append(failed, dest)
				default:
					line(dest, res.Status, res)
				}
			}
		}
		if s.Listing != nil {
			src := s.Listing.Source(since)
			fmt.Fprintf(out, "history %s: the postings its listing names from %s\n", s.ID, since.Format("2006-01"))
			res, err := fetch.Fetch(ctx, rawDir, src, opt)
			for _, f := range res.Files {
				line(f.Source.Dest, f.Status, f)
			}
			if err != nil {
				fmt.Fprintf(out, "fetch %-45s FAILED: %v\n", src.Dest, err)
				failed = append(failed, src.Dest)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d archive downloads failed (%s); nothing was replaced for them", len(failed), strings.Join(failed, ", "))
	}
	return ctx.Err()
}

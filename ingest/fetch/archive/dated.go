// Package archive knows where publishers keep their earlier documents at stable addresses, so
// that a data directory can be filled with years of them (citeq ingest --fetch --since) and a
// sync loop can find the next one: documents published each period at an address of their
// own (Dated: EIA-860M's monthly inventories, EIA-930's six-month BALANCE files), and listings that date each document (ERCOT's
// Market Information System: the yearly price workbooks and the monthly GIS reports).
package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/citeq/citeq/ingest/fetch"
)

// Period is how often a dated document is published.
type Period string

// Periods of dated documents.
const (
	Monthly Period = "month"
	// HalfYearly is a half of a calendar year, January to June or July to December.
	HalfYearly Period = "half-year"
	Yearly     Period = "year"
)

// start is the first instant of the period of p holding t (UTC).
func (p Period) start(t time.Time) time.Time {
	t = t.UTC()
	switch p {
	case Yearly:
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	case HalfYearly:
		return time.Date(t.Year(), (t.Month()-1)/6*6+1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// months is the length of the period in months.
func (p Period) months() int {
	switch p {
	case Yearly:
		return 12
	case HalfYearly:
		return 6
	}
	return 1
}

// next is the period after the one starting at t.
func (p Period) next(t time.Time) time.Time { return t.AddDate(0, p.months(), 0) }

// prev is the period before the one starting at t.
func (p Period) prev(t time.Time) time.Time { return t.AddDate(0, -p.months(), 0) }

// Label names the period starting at t as the publisher dates it (2016-05, 2016, 2016
// Jan-Jun).
func (p Period) Label(t time.Time) string {
	switch p {
	case Yearly:
		return t.Format("2006")
	case HalfYearly:
		if t.Month() < time.July {
			return t.Format("2006") + " Jan-Jun"
		}
		return t.Format("2006") + " Jul-Dec"
	}
	return t.Format("2006-01")
}

// Dated is a document a publisher releases each period at an address of its own, and keeps
// there (or at an archive address) afterwards.
type Dated struct {
	// Name says what the document is, for messages.
	Name   string
	Period Period
	// First is the first period the publisher's archive holds.
	First time.Time
	// Folder is where in the raw directory the documents are stored.
	Folder string
	// Sources are the addresses the document of the period starting at p may be at, tried in
	// order; each names the same destination.
	Sources func(p time.Time) []fetch.Source
	// Held reads the period a stored file name holds (false: not one of these documents).
	Held func(name string) (time.Time, bool)
}

// ErrNotPublished is matched (with errors.Is) by the error of Fetch when no address holds the
// period's document: it is not released yet, or was never published.
var ErrNotPublished = errors.New("not published")

// Periods lists the periods from the one holding from to the one holding to, oldest first,
// none before First.
func (d Dated) Periods(from, to time.Time) []time.Time {
	p := d.Period.start(from)
	if first := d.Period.start(d.First); p.Before(first) {
		p = first
	}
	var out []time.Time
	for end := d.Period.start(to); !p.After(end); p = d.Period.next(p) {
		out = append(out, p)
	}
	return out
}

// Due lists the periods whose documents a check looks for: those after the newest held in
// rawDir up to the one holding now; with none held, the period holding now and the one before
// (a publisher releases a period's document after it ends). Backfilling earlier periods is
// Periods' work.
func (d Dated) Due(rawDir string, now time.Time) ([]time.Time, error) {
	held, err := d.HeldPeriods(rawDir)
	if err != nil {
		return nil, err
	}
	cur := d.Period.start(now)
	if len(held) == 0 {
		return d.Periods(d.Period.prev(cur), cur), nil
	}
	return d.Periods(d.Period.next(held[len(held)-1]), cur), nil
}

// HeldPeriods lists the periods whose documents rawDir holds, oldest first.
func (d Dated) HeldPeriods(rawDir string) ([]time.Time, error) {
	entries, err := os.ReadDir(filepath.Join(rawDir, filepath.FromSlash(d.Folder)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	var out []time.Time
	for _, e := range entries {
		if p, ok := d.Held(e.Name()); ok && !e.IsDir() {
			out = append(out, d.Period.start(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out, nil
}

// Fetch downloads the document of the period starting at p from the first of its addresses
// that holds it. When none does (each answers 404, 410 or an HTML page), the error matches
// ErrNotPublished; any other failure at an address that does not hold it is the error.
func (d Dated) Fetch(ctx context.Context, rawDir string, p time.Time, opt fetch.Options) (fetch.Result, error) {
	var failure error
	var last fetch.Result
	for _, src := range d.Sources(p) {
		res, err := fetch.Fetch(ctx, rawDir, src, opt)
		if err == nil {
			return res, nil
		}
		last = res
		if !fetch.NotPublished(err) && failure == nil {
			failure = err
		}
	}
	if failure != nil {
		return last, failure
	}
	return last, fmt.Errorf("%s of %s: %w at any of its addresses", d.Name, d.Period.Label(p), ErrNotPublished)
}

// Addresses lists the addresses of the period starting at p, for messages and the schema.
func (d Dated) Addresses(p time.Time) []string {
	var out []string
	for _, s := range d.Sources(p) {
		out = append(out, s.URL)
	}
	return out
}

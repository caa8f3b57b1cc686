package freshness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/ingest/fetch/archive"
	"github.com/citeq/citeq/snapshots"
)

// Locker is the data directory's write lock: the loop holds it from an ingest's first
// snapshot to its last event queued, as citeq ingest does, and a Lock that another process
// holds fails at once (the check is tried again after its backoff).
type Locker interface {
	Lock() error
	Unlock() error
}

// DefaultStaleAfter is how many checks of a source may fail in a row before it is stale.
const DefaultStaleAfter = 3

// Loop checks each source when it is due, downloads what changed, and ingests, gates and
// promotes it. Each source is checked on its own, so a failing or slow source never holds up
// the others; ingests are one at a time.
type Loop struct {
	// Raw is the raw directory files are downloaded into and ingested from.
	Raw string
	// Store is the data directory (snapshots, catalog, and the loop's state file).
	Store *snapshots.Store
	// Sources are the sources checked.
	Sources []Bound
	// Lock is the data directory's write lock (nil: the loop's ingests exclude one another,
	// and nothing else).
	Lock Locker
	// Queue queues the snapshot.promoted events of the promotions an ingest made (with the
	// webhook outbox of the state store), so that the subscribers' deliveries follow.
	Queue func(ctx context.Context) error
	// Fetch are the download options (a mirror, a client); Validators are set per file.
	Fetch fetch.Options
	// StaleAfter is how many checks may fail in a row before a source is stale (0:
	// DefaultStaleAfter).
	StaleAfter int
	Log        zerolog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu      sync.Mutex
	state   *State
	running bool
	// ingestMu makes ingests one at a time.
	ingestMu sync.Mutex
	// changed is signalled after every check (tests and the server wait on it).
	changed chan struct{}
}

func (l *Loop) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

func (l *Loop) staleAfter() int {
	if l.StaleAfter > 0 {
		return l.StaleAfter
	}
	return DefaultStaleAfter
}

// Load reads the state a previous loop left in the data directory; Run calls it when it has
// not been called.
func (l *Loop) Load() error {
	st, err := ReadState(l.Store.Dir)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.state = st
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	l.mu.Unlock()
	return nil
}

// Run checks every source when due until ctx ends: first at once when the state says it is
// due (or has never been checked), or holds a download not yet ingested, then on its
// schedule, and after a failure with backoff.
func (l *Loop) Run(ctx context.Context) error {
	l.mu.Lock()
	loaded := l.state != nil
	l.mu.Unlock()
	if !loaded {
		if err := l.Load(); err != nil {
			return err
		}
	}
	l.mu.Lock()
	l.running = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
	}()
	var wg sync.WaitGroup
	for _, b := range l.Sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.runSource(ctx, b)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// runSource checks b whenever it is due until ctx ends.
func (l *Loop) runSource(ctx context.Context, b Bound) {
	for {
		l.mu.Lock()
		next := l.state.source(b.ID).NextCheck
		l.mu.Unlock()
		if wait := next.Sub(l.now()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		if ctx.Err() != nil {
			return
		}
		l.Check(ctx, b)
	}
}

// Check checks source b once: it asks for its files (conditionally), ingests what changed (and
// what an earlier check downloaded but did not ingest), and records the outcome and the next
// check in the state file.
func (l *Loop) Check(ctx context.Context, b Bound) {
	start := l.now()
	l.mu.Lock()
	st := l.state.source(b.ID)
	held := st.clone()
	l.mu.Unlock()

	files, changed, err := l.fetchSource(ctx, b, &held)
	if ctx.Err() != nil {
		return // the server is stopping: this check neither failed nor happened
	}
	l.mu.Lock()
	st.LastChecked, st.Checks = start, st.Checks+1
	for dest, f := range files {
		st.Files[dest] = f
	}
	if changed {
		st.Pending = true
	}
	pending := st.Pending
	shas := map[string]bool{}
	for _, f := range st.Files {
		shas[f.SHA256] = true
	}
	l.save()
	l.mu.Unlock()
	if changed {
		l.Log.Info().Str("source", b.ID).Msg("sync: a new version was downloaded")
	}

	var refused string
	if err == nil && pending {
		refused, err = l.ingest(ctx, b, shas)
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if err != nil {
		st.Failures++
		st.LastError = err.Error()
		if st.FailuresByReason == nil {
			st.FailuresByReason = map[string]int{}
		}
		st.FailuresByReason[Reason(err)]++
		st.NextCheck = now.Add(l.backoff(b, st.Failures))
		l.Log.Warn().Str("source", b.ID).Int("consecutive_failures", st.Failures).Str("reason", Reason(err)).
			Time("next_check", st.NextCheck).Err(err).Msg("sync: check failed; the other sources go on")
	} else {
		if pending {
			st.Pending, st.Refused = false, refused
		}
		st.Failures, st.LastError, st.LastSucceeded = 0, "", now
		st.NextCheck = b.Check.Next(now)
	}
	l.save()
	l.signal()
}

// backoff is the wait after the n-th failure in a row: d = base·2^(n−1), base the smaller of
// the check interval and a minute, d at most the check interval, drawn from [d/2, d] so that
// sources failing together do not retry together.
func (l *Loop) backoff(b Bound, n int) time.Duration {
	base := min(b.Check.Every, time.Minute)
	d := base
	for i := 1; i < n && d < b.Check.Every; i++ {
		d *= 2
	}
	d = min(d, b.Check.Every)
	return d/2 + rand.N(d/2+1)
}

// save writes the state (l.mu held). A state that cannot be written is logged: the checks go
// on, and a restart repeats what the file missed.
func (l *Loop) save() {
	l.state.Written = l.now()
	if err := l.state.write(l.Store.Dir); err != nil {
		l.Log.Error().Err(err).Msg("sync: the state is not saved; a restart checks again what it missed")
	}
}

// signal wakes whoever waits for a check (l.mu held).
func (l *Loop) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Checked returns a channel closed after the next check ends.
func (l *Loop) Checked() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.changed
}

// fetchSource asks for b's files: its current files with the validators of the versions
// held, the periods of a dated document after the newest held, or the postings a listing names
// that are not held. It returns the state of every file it downloaded or confirmed, and
// whether any changed. A dated period not yet released is not a failure.
func (l *Loop) fetchSource(ctx context.Context, b Bound, held *SourceState) (map[string]*FileState, bool, error) {
	files := map[string]*FileState{}
	changed := false
	now := l.now()
	record := func(res fetch.Result, published time.Time) {
		dest := res.Source.Dest
		f := &FileState{Validators: res.Validators, SHA256: res.SHA256}
		prev := held.Files[dest]
		switch {
		case !published.IsZero():
			f.Changed = published
		case !res.Validators.Modified().IsZero():
			f.Changed = res.Validators.Modified()
		case prev != nil && prev.SHA256 == res.SHA256:
			f.Changed = prev.Changed
		default:
			f.Changed = now
		}
		if prev != nil && prev.SHA256 == res.SHA256 && res.Validators.IsZero() {
			f.Validators = prev.Validators
		}
		files[dest] = f
		if res.Status == fetch.StatusDownloaded || prev == nil || prev.SHA256 != res.SHA256 {
			changed = true
		}
	}
	var errs []error
	for _, src := range b.Files {
		opt := l.Fetch
		if f := held.Files[src.Dest]; f != nil {
			opt.Validators = f.Validators
		}
		res, err := fetch.Fetch(ctx, l.Raw, src, opt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		record(res, time.Time{})
		for _, f := range res.Files {
			record(f, f.Source.Published)
		}
	}
	if b.Dated != nil {
		due, err := b.Dated.Due(l.Raw, now)
		if err != nil {
			errs = append(errs, err)
		}
		for _, p := range due {
			opt := l.Fetch
			res, err := b.Dated.Fetch(ctx, l.Raw, p, opt)
			if errors.Is(err, archive.ErrNotPublished) {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				break // a later period is not looked for before an earlier one is held
			}
			record(res, time.Time{})
		}
	}
	if b.Listing != nil {
		res, err := fetch.Fetch(ctx, l.Raw, b.Listing.Source(now.Add(-b.Lookback)), l.Fetch)
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range res.Files {
			record(f, f.Source.Published)
		}
	}
	return files, changed, errors.Join(errs...)
}

// ingest ingests the capabilities b feeds, under the data directory's write lock, and queues
// the events of what it promoted. It returns why the newest version b holds was not promoted
// ("" when it was, or was already), and an error when the ingest could not run.
func (l *Loop) ingest(ctx context.Context, b Bound, shas map[string]bool) (string, error) {
	l.ingestMu.Lock()
	defer l.ingestMu.Unlock()
	if l.Lock != nil {
		if err := l.Lock.Lock(); err != nil {
			return "", &lockError{err}
		}
		defer l.Lock.Unlock()
		if _, err := l.Store.CleanStale(); err != nil {
			return "", &ingestError{err}
		}
	}
	var log bytes.Buffer
	outcomes, runErr := ingest.Run(l.Raw, l.Store, b.Adapters, &log)
	var queueErr error
	if l.Queue != nil {
		queueErr = l.Queue(ctx)
	}
	var refused []string
	for _, o := range outcomes {
		if !o.Unchanged {
			ev := l.Log.Info()
			if o.Status != snapshots.Promoted {
				ev = l.Log.Warn().Strs("reasons", o.Reasons)
			}
			ev.Str("source", b.ID).Str("capability", o.Capability).Str("as_of", o.AsOf).Int("rows", o.Rows).Str("status", o.Status).
				Msg("sync: ingested")
		}
		if o.Status == snapshots.Promoted || !citesAny(o, shas) || l.servedAlready(o) {
			continue
		}
		refused = append(refused, fmt.Sprintf("%s %s %s: %s", o.Capability, o.AsOf, o.Status, strings.Join(o.Reasons, "; ")))
	}
	if runErr != nil {
		return "", &ingestError{runErr}
	}
	if queueErr != nil {
		// The promotions are recorded; the next ingest or the server's reload queues their
		// events. The check itself succeeded.
		l.Log.Error().Err(queueErr).Str("source", b.ID).Msg("sync: events not queued yet; the server queues them at its next reload")
	}
	slices.Sort(refused)
	return strings.Join(slices.Compact(refused), " | "), nil
}

// servedAlready reports whether outcome o was refused only because its as_of is already
// served from a snapshot of the same data files (the same bytes under another name: a dated
// copy placed by hand, and the publisher's current file downloaded under its stable name).
// Nothing newer is withheld then.
func (l *Loop) servedAlready(o ingest.Outcome) bool {
	if o.Manifest == nil {
		return false
	}
	for _, g := range o.Manifest.Gates {
		if !g.Passed && g.Name != "as_of_immutable" {
			return false
		}
	}
	cat, err := l.Store.ReadCatalog()
	if err != nil {
		return false
	}
	fp, ok := cat.Promoted[o.Capability][o.AsOf]
	if !ok {
		return false
	}
	served, err := snapshots.ReadManifest(l.Store.SnapshotDir(o.Capability, o.AsOf, fp))
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, s := range served.Sources {
		have[s.SHA256] = true
	}
	for _, s := range o.Manifest.Sources {
		if s.Role == "data" && !have[s.SHA256] {
			return false
		}
	}
	return true
}

// citesAny reports whether outcome o was built from a file with one of the hashes.
func citesAny(o ingest.Outcome, shas map[string]bool) bool {
	if o.Manifest == nil {
		return o.Status == ingest.Failed
	}
	for _, s := range o.Manifest.Sources {
		if shas[s.SHA256] {
			return true
		}
	}
	return false
}

type lockError struct{ err error }

func (e *lockError) Error() string {
	return "the data directory is being written by another process (the ingest is tried again after the backoff): " + e.err.Error()
}
func (e *lockError) Unwrap() error { return e.err }

type ingestError struct{ err error }

func (e *ingestError) Error() string { return "ingest: " + e.err.Error() }
func (e *ingestError) Unwrap() error { return e.err }

// Reason classifies a failed check for the metrics: locked (another process writes the data
// directory), ingest, http_4xx and http_5xx (the server's status), refused (what the server
// sent is not the file: an HTML page, the wrong kind, cut short), network (no answer: refused
// connection, timeout, DNS), error (anything else).
func Reason(err error) string {
	var le *lockError
	var ie *ingestError
	var re *fetch.RefusedError
	var ne net.Error
	switch {
	case errors.As(err, &le):
		return "locked"
	case errors.As(err, &ie):
		return "ingest"
	case errors.As(err, &re):
		if i := strings.Index(re.Reason, "answered "); i >= 0 && len(re.Reason) > i+9 {
			switch re.Reason[i+9] {
			case '4':
				return "http_4xx"
			case '5':
				return "http_5xx"
			}
		}
		return "refused"
	case errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded):
		return "network"
	}
	return "error"
}

package freshness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// expected is how long after a release the publisher releases the next (period) and how much
// later than that it may be before it is overdue (grace): a release may slip over a weekend,
// a holiday or a month of irregular length. An irregular publisher is never overdue.
func expected(c capability.Cadence) (period, grace time.Duration) {
	const day = 24 * time.Hour
	switch c {
	case capability.SubHourly:
		return 5 * time.Minute, time.Hour
	case capability.Hourly:
		return time.Hour, 6 * time.Hour
	case capability.Daily:
		return day, 3 * day
	case capability.Weekly:
		return 7 * day, 4 * day
	case capability.Monthly:
		return 31 * day, 20 * day
	case capability.Quarterly:
		return 92 * day, 45 * day
	case capability.Annual:
		return 366 * day, 120 * day
	}
	return 0, 0
}

// judge says why source b is stale given its state at now ("" when it is not): its checks
// have failed staleAfter times in a row; the newest version it holds was refused by ingest;
// its publisher is overdue (the version held dates from longer ago than its cadence and
// grace); or it has not been checked since long after it was due (no loop runs).
func judge(b Bound, st *SourceState, now time.Time, staleAfter int) string {
	if st == nil {
		return ""
	}
	if st.Failures >= staleAfter {
		return fmt.Sprintf("%d checks in a row failed, the last at %s: %s", st.Failures, stamp(st.LastChecked), st.LastError)
	}
	if st.Refused != "" {
		return "the newest version held was not promoted: " + st.Refused
	}
	if !b.Fixed {
		period, grace := expected(b.Cadence)
		if b.Grace > 0 {
			grace = b.Grace
		}
		if changed := st.LastChanged(); period > 0 && !changed.IsZero() && now.After(changed.Add(period+grace)) {
			return fmt.Sprintf("the publisher is overdue: it releases a new version %s, and the newest held was released %s (expected by %s)",
				cadenceWords(b.Cadence), stamp(changed), stamp(changed.Add(period+grace)))
		}
	}
	if !st.NextCheck.IsZero() && now.After(st.NextCheck.Add(max(b.Check.Every, time.Hour))) {
		return fmt.Sprintf("not checked since %s although due at %s: no sync loop is checking it", stamp(st.LastChecked), stamp(st.NextCheck))
	}
	return ""
}

func cadenceWords(c capability.Cadence) string {
	switch c {
	case capability.SubHourly:
		return "several times an hour"
	case capability.Quarterly:
		return "every quarter"
	case capability.Annual:
		return "every year"
	}
	return string(c)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

// report is what the sources in bounds that feed capability c say of it, from state st at now.
func report(bounds []Bound, st *State, c *capability.Capability, now time.Time, running bool, staleAfter int) (service.Freshness, bool) {
	fr := service.Freshness{Running: running}
	for _, b := range bounds {
		if !slices.Contains(b.Feeds, c.ID) {
			continue
		}
		var ss *SourceState
		if st != nil {
			ss = st.Sources[b.ID]
		}
		src := service.SourceFreshness{SourceID: b.ID, Publisher: b.Publisher, Cadence: b.Cadence, Check: b.Check.String(),
			Addresses: b.Addresses(now), Cites: b.CitesID}
		if ss != nil {
			src.LastChecked, src.LastSucceeded, src.LastChanged, src.NextCheck = ss.LastChecked, ss.LastSucceeded, ss.LastChanged(), ss.NextCheck
			src.Failures, src.LastError = ss.Failures, ss.LastError
			src.Stale = judge(b, ss, now, staleAfter)
		}
		fr.Sources = append(fr.Sources, src)
	}
	fr.Unchecked = func(id string) string {
		for _, u := range UncheckedSources {
			if cites(u.Cites, id) {
				return u.Reason
			}
		}
		return ""
	}
	return fr, true
}

// Freshness is what the loop says of capability c (service.FreshnessFunc).
func (l *Loop) Freshness(c *capability.Capability) (service.Freshness, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return report(l.Sources, l.state, c, l.now(), l.running, l.staleAfter())
}

// Reader reports freshness from the state file a sync loop keeps in a data directory, for a
// server that runs no loop itself (citeq serve without --sync): it shows what the loop last
// recorded, and a source the loop stopped checking turns stale.
type Reader struct {
	Dir     string
	Sources []Bound
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	mu    sync.Mutex
	stamp time.Time
	state *State
}

// Freshness is what the state file says of capability c (service.FreshnessFunc); it is read
// again when it changes.
func (r *Reader) Freshness(c *capability.Capability) (service.Freshness, bool) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if fi, err := os.Stat(filepath.Join(r.Dir, StateFile)); err == nil && !fi.ModTime().Equal(r.stamp) {
		if st, err := ReadState(r.Dir); err == nil {
			r.state, r.stamp = st, fi.ModTime()
		}
	}
	return report(r.Sources, r.state, c, now.UTC(), false, DefaultStaleAfter)
}

// Snapshot is a copy of the state of every source (for the metrics).
func (l *Loop) Snapshot() map[string]SourceState {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]SourceState{}
	if l.state == nil {
		return out
	}
	for id, s := range l.state.Sources {
		out[id] = s.clone()
	}
	return out
}

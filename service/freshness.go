package service

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/citeq/citeq/capability"
)

// SourceFreshness is what is known of one source of a capability: how often its publisher
// releases it, when and where it is checked, and what the last checks found.
type SourceFreshness struct {
	SourceID  string
	Publisher string
	// Cadence is how often the publisher releases a new version of the source.
	Cadence capability.Cadence
	// Check says when the source is checked ("every 24h at 14:00 UTC").
	Check string
	// Addresses are the official addresses checked.
	Addresses []string
	// LastChecked is the last check, LastSucceeded the last that did not fail, LastChanged
	// when the publisher released the version held (its Last-Modified date, else when a
	// check first found it), NextCheck when it is checked next; zero when unknown.
	LastChecked, LastSucceeded, LastChanged, NextCheck time.Time
	// Failures counts the checks that failed in a row; LastError is the last one's error.
	Failures  int
	LastError string
	// Stale, when set, is why the source is stale: its checks have failed past the
	// threshold, its publisher is overdue, or it is no longer checked.
	Stale string
	// Cites reports whether rows citing a source id come from this source's files (nil: the
	// id is SourceID).
	Cites func(sourceID string) bool
}

// cites reports whether rows citing source id come from src's files.
func (src SourceFreshness) cites(id string) bool {
	if src.Cites == nil {
		return id == src.SourceID
	}
	return src.Cites(id)
}

// Freshness is what a sync loop knows of a capability's sources.
type Freshness struct {
	// Running says whether a sync loop checks the sources in this process (citeq serve
	// --sync); otherwise the state described is the one the last loop recorded.
	Running bool
	// Sources are the sources with an official address the loop checks.
	Sources []SourceFreshness
	// Unchecked says why a source no loop checks is not checked ("": its files are placed
	// by hand); nil: by hand.
	Unchecked func(sourceID string) string
}

// FreshnessFunc returns what is known of the sources of capability c (false: nothing, as for
// a capability none of whose sources has an address to check).
type FreshnessFunc func(c *capability.Capability) (Freshness, bool)

// freshnessFunc holds the FreshnessFunc a server set (nil: none, and answers say nothing of
// freshness).
type freshnessFunc struct{ f atomic.Pointer[FreshnessFunc] }

// SetFreshness makes the capabilities, schema and answers of capabilities over their latest
// snapshot say how fresh each capability is, from f: /v1/capabilities and the schema gain a
// freshness member, and an answer over the latest snapshot of a stale capability a stale note.
// Without it (nil), they say nothing of freshness.
func (s *Service) SetFreshness(f FreshnessFunc) {
	if f == nil {
		s.fresh.f.Store(nil)
		return
	}
	s.fresh.f.Store(&f)
}

// freshness is what is known of c's sources, its inputs' for a derived capability; false
// when no FreshnessFunc is set.
func (s *Service) freshness(c *capability.Capability) (Freshness, bool) {
	p := s.fresh.f.Load()
	if p == nil {
		return Freshness{}, false
	}
	if len(c.Inputs) == 0 {
		fr, _ := (*p)(c)
		return fr, true
	}
	var out Freshness
	for _, id := range c.Inputs {
		if in := capability.ByID(id); in != nil {
			fr, _ := (*p)(in)
			out.Running = out.Running || fr.Running
			out.Sources = append(out.Sources, fr.Sources...)
			out.Unchecked = fr.Unchecked
		}
	}
	return out, true
}

// staleReasons are the reasons the sources of fr are stale, each naming its source.
func staleReasons(fr Freshness) []string {
	var out []string
	for _, src := range fr.Sources {
		if src.Stale != "" {
			out = append(out, src.SourceID+": "+src.Stale)
		}
	}
	return out
}

// freshnessDoc is the freshness member of capability c's entry in /v1/capabilities and its
// schema (nil when no FreshnessFunc is set): whether a sync loop checks its sources, when
// they were last checked and last changed and are checked next, whether it is stale and why,
// and each source (a served source without an address to check says so).
func (s *Service) freshnessDoc(c *capability.Capability, snap *Snapshot) Obj {
	fr, ok := s.freshness(c)
	if !ok {
		return nil
	}
	sync := "running: the sources below are checked on their publishers' cadence, and a new version is ingested, gated and promoted as it appears"
	if !fr.Running {
		sync = "not running in this server (citeq serve --sync runs it): the capability changes when citeq ingest runs; what is below is what the last sync loop on this data directory recorded, if any"
	}
	var lastChecked, lastChanged, nextCheck time.Time
	var sources []Obj
	for i, src := range fr.Sources {
		if i == 0 || src.LastChecked.Before(lastChecked) {
			lastChecked = src.LastChecked
		}
		if src.LastChanged.After(lastChanged) {
			lastChanged = src.LastChanged
		}
		if !src.NextCheck.IsZero() && (nextCheck.IsZero() || src.NextCheck.Before(nextCheck)) {
			nextCheck = src.NextCheck
		}
		o := Obj{{"source_id", src.SourceID}, {"publisher", src.Publisher}, {"checked", true}, {"cadence", src.Cadence},
			{"check", src.Check}, {"addresses", orEmpty(src.Addresses)},
			{"last_checked", instant(src.LastChecked)}, {"last_succeeded", instant(src.LastSucceeded)},
			{"last_changed", instant(src.LastChanged)}, {"next_check", instant(src.NextCheck)},
			{"consecutive_failures", src.Failures}, {"last_error", nullIfBlank(src.LastError)},
			{"stale", src.Stale != ""}}
		if src.Stale != "" {
			o = append(o, KV{"stale_reason", src.Stale})
		}
		sources = append(sources, o)
	}
	if snap != nil {
		seen := map[string]bool{}
		for _, m := range snap.Manifest.Sources {
			if m.Role != "data" || seen[m.SourceID] || slices.ContainsFunc(fr.Sources, func(src SourceFreshness) bool { return src.cites(m.SourceID) }) {
				continue
			}
			seen[m.SourceID] = true
			reason := "no official address to check: its files are placed in the raw directory by hand"
			if m.Derived {
				reason = "a third party's copy of the publisher's data (derived), placed in the raw directory by hand: no official address to check"
			} else if fr.Unchecked != nil && fr.Unchecked(m.SourceID) != "" {
				reason = fr.Unchecked(m.SourceID)
			}
			sources = append(sources, Obj{{"source_id", m.SourceID}, {"publisher", m.Publisher}, {"checked", false},
				{"reason", reason + "; it is not checked and never judged stale, and changes when citeq ingest reads a new file"}})
		}
	}
	reasons := staleReasons(fr)
	doc := Obj{{"sync", sync}, {"stale", len(reasons) > 0}}
	if len(reasons) > 0 {
		doc = append(doc, KV{"stale_reasons", reasons})
	}
	if len(fr.Sources) == 0 {
		lastChecked = time.Time{}
	}
	return append(doc, KV{"last_checked", instant(lastChecked)}, KV{"last_changed", instant(lastChanged)},
		KV{"next_check", instant(nextCheck)}, KV{"sources", orEmpty(sources)})
}

// NoteStale is the code of the note an answer over the latest snapshot of a stale capability
// carries.
const NoteStale = "stale"

// staleNote is the note of an answer over the latest snapshot (as_of latest) of a capability
// whose sources are stale, nil otherwise. An answer for a date (pinned, or on:<date>) states
// the snapshot of that date and says nothing of freshness.
func (s *Service) staleNote(q *Prepared) Obj {
	if !q.latest {
		return nil
	}
	fr, ok := s.freshness(q.c)
	if !ok {
		return nil
	}
	reasons := staleReasons(fr)
	if len(reasons) == 0 {
		return nil
	}
	var ids []string
	for _, src := range fr.Sources {
		if src.Stale != "" && !slices.Contains(ids, src.SourceID) {
			ids = append(ids, src.SourceID)
		}
	}
	return Obj{{"code", NoteStale}, {"sources", ids},
		{"message", fmt.Sprintf("%s may be out of date: %s. This answer is from as_of %s, the newest snapshot served; the freshness member of GET /v1/capabilities (or of the schema) says when each source was last checked and changed",
			q.c.ID, strings.Join(reasons, "; "), q.snap.Manifest.AsOf)}}
}

// instant is t as an RFC 3339 UTC timestamp to the second, null when zero.
func instant(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

func nullIfBlank(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// latest is c's latest snapshot (nil when none is served, or for a derived capability, whose
// sources are its inputs').
func (s *Service) latest(c *capability.Capability) *Snapshot {
	if len(c.Inputs) > 0 {
		return nil
	}
	m, dates := s.served(c.ID)
	if len(dates) == 0 {
		return nil
	}
	return m[dates[len(dates)-1]]
}

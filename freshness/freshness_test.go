package freshness

import (
	"errors"
	"fmt"
	"net"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fetch"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestScheduleNext(t *testing.T) {
	for _, tc := range []struct {
		s         Schedule
		after     string
		want      string
		described string
	}{
		{Daily(16, 0), "2026-11-20T15:59:00Z", "2026-11-20T16:00:00Z", "daily at 16:00 UTC"},
		{Daily(16, 0), "2026-11-20T16:00:00Z", "2026-11-21T16:00:00Z", "daily at 16:00 UTC"},
		{Daily(14, 30), "2026-11-20T23:00:00Z", "2026-11-21T14:30:00Z", "daily at 14:30 UTC"},
		{Weekly(time.Wednesday, 15, 0), "2026-11-20T10:00:00Z", "2026-11-25T15:00:00Z", "weekly on Wednesday at 15:00 UTC"}, // a Friday
		{Weekly(time.Wednesday, 15, 0), "2026-11-25T15:00:00Z", "2026-12-02T15:00:00Z", "weekly on Wednesday at 15:00 UTC"},
		{Hourly(20), "2026-11-20T10:20:00Z", "2026-11-20T11:20:00Z", "hourly at minute 20"},
		{Schedule{Every: time.Second}, "2026-11-20T10:20:00.5Z", "2026-11-20T10:20:01Z", "every 1s"},
		{Daily(16, 0), "1969-12-31T20:00:00Z", "", ""}, // before the epoch: the next is after it, within a day
	} {
		got := tc.s.Next(at(tc.after))
		if tc.described == "" {
			if !got.After(at(tc.after)) || got.Sub(at(tc.after)) > tc.s.Every {
				t.Errorf("%v after %s: %s", tc.s, tc.after, got)
			}
			continue
		}
		if !got.Equal(at(tc.want)) {
			t.Errorf("%v after %s: %s, want %s", tc.s, tc.after, got.Format(time.RFC3339), tc.want)
		}
		if tc.s.String() != tc.described {
			t.Errorf("%v: %q, want %q", tc.s, tc.s.String(), tc.described)
		}
	}
}

// TestBackoff: after n failures the wait is drawn from [d/2, d], d = min(interval, a
// minute)·2^(n−1) capped at the interval.
func TestBackoff(t *testing.T) {
	l := &Loop{}
	for _, every := range []time.Duration{time.Second, time.Hour, 24 * time.Hour} {
		b := Bound{Source: Source{Check: Schedule{Every: every}}}
		for n := 1; n <= 14; n++ {
			d := min(every, time.Minute)
			for i := 1; i < n; i++ {
				d *= 2
			}
			d = min(d, every)
			seen := map[time.Duration]bool{}
			for range 50 {
				got := l.backoff(b, n)
				if got < d/2 || got > d {
					t.Fatalf("every %v, failure %d: %v outside [%v, %v]", every, n, got, d/2, d)
				}
				seen[got] = true
			}
			if d >= time.Second && len(seen) < 2 {
				t.Fatalf("every %v, failure %d: no jitter", every, n)
			}
		}
	}
}

func TestJudge(t *testing.T) {
	now := at("2026-11-20T12:00:00Z")
	monthly := Bound{Source: Source{ID: "m", Cadence: capability.Monthly, Check: Daily(16, 0)}}
	fixed := Bound{Source: Source{ID: "f", Cadence: capability.Annual, Check: Daily(16, 0), Fixed: true}}
	irregular := Bound{Source: Source{ID: "i", Cadence: capability.Irregular, Check: Daily(16, 0)}}
	held := func(changed string) map[string]*FileState {
		return map[string]*FileState{"x": {SHA256: "s", Changed: at(changed)}}
	}
	next := now.Add(time.Hour)
	for _, tc := range []struct {
		name string
		b    Bound
		st   *SourceState
		want string
	}{
		{"never checked", monthly, nil, ""},
		{"fine", monthly, &SourceState{Files: held("2026-11-01T00:00:00Z"), NextCheck: next}, ""},
		{"two failures", monthly, &SourceState{Failures: 2, LastError: "503", Files: held("2026-11-01T00:00:00Z"), NextCheck: next}, ""},
		{"three failures", monthly, &SourceState{Failures: 3, LastError: "the server answered 503", LastChecked: now, NextCheck: next},
			"3 checks in a row failed, the last at 2026-11-20T12:00:00Z: the server answered 503"},
		{"refused", monthly, &SourceState{Refused: "power.capacity 2026-10-31 rejected: row_count_not_collapsed", NextCheck: next},
			"the newest version held was not promoted: power.capacity 2026-10-31 rejected: row_count_not_collapsed"},
		{"overdue", monthly, &SourceState{Files: held("2026-09-20T00:00:00Z"), NextCheck: next},
			"the publisher is overdue: it releases a new version monthly, and the newest held was released 2026-09-20T00:00:00Z (expected by 2026-11-10T00:00:00Z)"},
		{"within grace", monthly, &SourceState{Files: held("2026-10-01T00:00:00Z"), NextCheck: next}, ""},
		{"fixed documents are never overdue", fixed, &SourceState{Files: held("2019-01-01T00:00:00Z"), NextCheck: next}, ""},
		{"irregular publishers are never overdue", irregular, &SourceState{Files: held("2019-01-01T00:00:00Z"), NextCheck: next}, ""},
		{"no longer checked", monthly, &SourceState{Files: held("2026-11-01T00:00:00Z"), LastChecked: at("2026-11-10T16:00:00Z"), NextCheck: at("2026-11-11T16:00:00Z")},
			"not checked since 2026-11-10T16:00:00Z although due at 2026-11-11T16:00:00Z: no sync loop is checking it"},
	} {
		if got := judge(tc.b, tc.st, now, DefaultStaleAfter); got != tc.want {
			t.Errorf("%s: %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestBindSources: every declared source names files an adapter knows, or a dated document
// or listing, and feeds a capability; each capability fed has its adapters bound.
func TestBindSources(t *testing.T) {
	bounds, err := Bind(Sources, adapters.All())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Bound{}
	for _, b := range bounds {
		byID[b.ID] = b
		for _, id := range b.Feeds {
			if capability.ByID(id) == nil {
				t.Errorf("%s feeds %s, which is not defined", b.ID, id)
			}
			found := false
			for _, a := range b.Adapters {
				found = found || a.Capability().ID == id
			}
			if !found {
				t.Errorf("%s feeds %s but no adapter of it is bound", b.ID, id)
			}
		}
	}
	for id, want := range map[string]string{"caiso_queue": "power.interconnection_queue_caiso", "eia860m": "power.capacity",
		"ercot_dam_spp_lzhb": "power.price_ercot", "census_trade_api": "ai_infrastructure.equipment_trade"} {
		if !strings.Contains(strings.Join(byID[id].Feeds, " "), want) {
			t.Errorf("%s feeds %v, want %s among them", id, byID[id].Feeds, want)
		}
	}
	// Every file an adapter downloads belongs to a source that declares its publisher's
	// cadence: a current file, or a month of a dated document.
	for _, a := range adapters.All() {
		for _, k := range a.Known() {
			declared := false
			for _, b := range bounds {
				if slices.Contains(b.Current, k.Dest) {
					declared = true
				}
				if b.Dated != nil && path.Dir(k.Dest) == b.Dated.Folder {
					_, declared = b.Dated.Held(path.Base(k.Dest))
				}
				if declared {
					break
				}
			}
			if !declared {
				t.Errorf("%s downloads %s, which no source declares (freshness.Sources)", a.Capability().ID, k.Dest)
			}
		}
	}
	if _, err := Bind([]Source{{ID: "x", Check: Daily(1, 0), Current: []string{"nowhere/file.xlsx"}}}, adapters.All()); err == nil ||
		!strings.Contains(err.Error(), "no adapter knows the file nowhere/file.xlsx") {
		t.Errorf("an unknown file: %v", err)
	}
	if _, err := Bind([]Source{{ID: "x", Current: []string{"iso/caiso/PublicQueueReport.xlsx"}}}, adapters.All()); err == nil {
		t.Error("a source without a schedule was bound")
	}
	if !byID["fcc_sat_notices"].CitesID("FCC:EDOCS:DOC-408811A1") || byID["fcc_ibfs"].CitesID("FCC:EDOCS:x") || !byID["caiso_queue"].CitesID("caiso_queue") {
		t.Error("CitesID")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestReason(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("fetch x: %w", &fetch.RefusedError{Reason: "the server answered 503 Service Unavailable"}), "http_5xx"},
		{&fetch.RefusedError{Reason: "the server answered 404 Not Found"}, "http_4xx"},
		{&fetch.RefusedError{Reason: "the server returned an HTML page, not an xlsx file"}, "refused"},
		{fmt.Errorf("download: %w", &net.OpError{Op: "dial", Err: timeoutErr{}}), "network"},
		{&lockError{errors.New("held by pid 7")}, "locked"},
		{&ingestError{errors.New("1 adapters failed")}, "ingest"},
		{errors.New("something else"), "error"},
	} {
		if got := Reason(tc.err); got != tc.want {
			t.Errorf("Reason(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
}

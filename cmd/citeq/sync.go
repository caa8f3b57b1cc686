package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/citeq/citeq/freshness"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// syncFlags are serve's options of the sync loop (--sync and what goes with it).
type syncFlags struct {
	on         bool
	raw        string
	mirror     string
	every      everyFlag
	only       string
	staleAfter int
}

func (f *syncFlags) register(fs *flag.FlagSet) {
	f.every = everyFlag{}
	fs.BoolVar(&f.on, "sync", false, "check every source on its publisher's cadence, download what changed into --raw, and ingest, gate and promote it (webhooks fire with nothing run by hand)")
	fs.StringVar(&f.raw, "raw", defaultRaw(), "with --sync: the raw directory the files are downloaded into and ingested from")
	fs.StringVar(&f.mirror, "mirror", os.Getenv("CITEQ_FETCH_MIRROR"), "with --sync: fetch from this scheme://host instead of the publishers' hosts (a mirror; default $CITEQ_FETCH_MIRROR)")
	fs.Var(f.every, "sync-every", "with --sync: check every DURATION instead of on the declared schedule: ID=DURATION for one source, DURATION for all (repeatable; e.g. caiso_queue=10m)")
	fs.StringVar(&f.only, "sync-only", "", "with --sync: check only these sources (comma-separated ids; default every source)")
	fs.IntVar(&f.staleAfter, "sync-stale-after", freshness.DefaultStaleAfter, "with --sync: a source whose checks failed this many times in a row is stale")
}

// everyFlag is --sync-every: check intervals by source id ("" for every source).
type everyFlag map[string]time.Duration

func (e everyFlag) String() string {
	var parts []string
	for id, d := range e {
		parts = append(parts, id+"="+d.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func (e everyFlag) Set(v string) error {
	id, dur, ok := strings.Cut(v, "=")
	if !ok {
		id, dur = "", v
	}
	d, err := time.ParseDuration(dur)
	if err != nil || d <= 0 {
		return fmt.Errorf("want DURATION or ID=DURATION with a positive duration such as 10m, got %q", v)
	}
	e[id] = d
	return nil
}

// setupSync binds the declared sources to the adapters and makes the service say how fresh
// each capability is: with --sync from a loop it returns (to run until ctx ends) and whose
// metrics it returns, without it from the state file a loop keeps in the data directory.
func (f *syncFlags) setup(svc *service.Service, st state.Store, log zerolog.Logger) (*freshness.Loop, []prometheus.Collector, error) {
	bounds, err := freshness.Bind(freshness.Sources, adapters.All())
	if err != nil {
		return nil, nil, err
	}
	if !f.on {
		r := &freshness.Reader{Dir: svc.Store().Dir, Sources: bounds}
		svc.SetFreshness(r.Freshness)
		return nil, nil, nil
	}
	if f.staleAfter < 1 {
		return nil, nil, fmt.Errorf("--sync-stale-after must be at least 1")
	}
	if f.only != "" {
		var kept []freshness.Bound
		for _, id := range strings.Split(f.only, ",") {
			i := slices.IndexFunc(bounds, func(b freshness.Bound) bool { return b.ID == strings.TrimSpace(id) })
			if i < 0 {
				return nil, nil, fmt.Errorf("--sync-only: no source %q; the sources are %s", id, sourceIDs(bounds))
			}
			kept = append(kept, bounds[i])
		}
		bounds = kept
	}
	for id := range f.every {
		if id != "" && !slices.ContainsFunc(bounds, func(b freshness.Bound) bool { return b.ID == id }) {
			return nil, nil, fmt.Errorf("--sync-every: no source %q checked; the sources are %s", id, sourceIDs(bounds))
		}
	}
	for i := range bounds {
		if d, ok := f.every[bounds[i].ID]; ok {
			bounds[i].Check = freshness.Schedule{Every: d}
		} else if d, ok := f.every[""]; ok {
			bounds[i].Check = freshness.Schedule{Every: d}
		}
	}
	if _, err := os.Stat(f.raw); err != nil {
		if err := os.MkdirAll(f.raw, 0o755); err != nil {
			return nil, nil, fmt.Errorf("--raw: %w", err)
		}
	}
	if _, err := freshness.Claim(svc.Store().Dir); err != nil {
		return nil, nil, err
	}
	loop := &freshness.Loop{
		Raw:        f.raw,
		Store:      svc.Store(),
		Lock:       svc.Store(),
		Sources:    bounds,
		Fetch:      fetch.Options{Mirror: f.mirror},
		StaleAfter: f.staleAfter,
		Log:        log,
		// The server serves what an ingest promoted before its subscribers hear of it, so
		// that a query made on delivery answers from the new snapshot.
		Queue: func(ctx context.Context) error {
			if _, err := svc.Reload(); err != nil {
				log.Error().Err(err).Msg("reload: keeping the snapshots already served")
			}
			_, _, err := webhooks.Reconcile(ctx, st, svc.Store())
			return err
		},
	}
	if err := loop.Load(); err != nil {
		return nil, nil, err
	}
	svc.SetFreshness(loop.Freshness)
	return loop, []prometheus.Collector{loop.Collector()}, nil
}

func sourceIDs(bounds []freshness.Bound) string {
	var ids []string
	for _, b := range bounds {
		ids = append(ids, b.ID)
	}
	return strings.Join(ids, ", ")
}

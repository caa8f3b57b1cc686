package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/freshness"
	"github.com/citeq/citeq/ingest"
	"github.com/citeq/citeq/ingest/adapters"
	"github.com/citeq/citeq/ingest/fetch"
	"github.com/citeq/citeq/snapshots"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

func runIngest(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	raw := fs.String("raw", defaultRaw(), "directory holding the agencies' source files")
	data := fs.String("data", "var", "data directory: raw store, snapshots, catalog")
	doFetch := fs.Bool("fetch", false, "first download every known source file from its official URL into --raw")
	mirror := fs.String("mirror", os.Getenv("CITEQ_FETCH_MIRROR"), "with --fetch: fetch from this scheme://host instead of the agencies' hosts (a mirror; default $CITEQ_FETCH_MIRROR)")
	stateDSN := fs.String("state", "", "state store whose webhook outbox receives snapshot.promoted events: empty for SQLite at DATA/state.db, or postgres://…")
	since := fs.String("since", "", "with --fetch: also download the publishers' archives from this date on (YYYY, YYYY-MM or YYYY-MM-DD): every EIA-860M month, every EIA-930 six-month BALANCE file, every ERCOT price workbook and GIS report, each its own document")
	keyFiles := keyFileFlag{}
	fs.Var(keyFiles, "api-key-file", "with --fetch: NAME=PATH, a file holding the API key otherwise read from the environment variable NAME (e.g. CITEQ_EIA_API_KEY=/run/secrets/eia); repeatable")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var from time.Time
	if *since != "" {
		if !*doFetch {
			return fmt.Errorf("--since needs --fetch: it names how far back the publishers' archives are downloaded")
		}
		var err error
		if from, err = freshness.ParseSince(*since); err != nil {
			return err
		}
	}
	// One ingest at a time writes a data directory: the lock is held from the first download
	// to the last event queued, and another ingest is refused with the holder's pid.
	store := &snapshots.Store{Dir: *data}
	if err := store.Lock(); err != nil {
		return err
	}
	defer store.Unlock()
	if *doFetch {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		fetchErr := fetchAll(ctx, *raw, *mirror, keyFiles, stdout, stderr)
		if *since != "" {
			fetchErr = errors.Join(fetchErr, freshness.Backfill(ctx, *raw, freshness.Sources, from, time.Now(), fetch.Options{Mirror: *mirror, Progress: stderr}, stdout))
		}
		if fetchErr != nil {
			return fetchErr
		}
	}
	stale, err := store.CleanStale()
	for _, p := range stale {
		fmt.Fprintf(stdout, "removed %s, left by an interrupted ingest\n", p)
	}
	if err != nil {
		return err
	}
	all := planned(*raw, adapters.All(), stdout)
	outcomes, runErr := ingest.Run(*raw, store, all, stdout)
	if runErr == nil || len(outcomes) > 0 {
		printOutcomes(stdout, outcomes, runErr == nil)
	}
	// Every promotion, of this run or of an interrupted one, gets its event, even when this
	// run (or one of its adapters) fails.
	return errors.Join(runErr, queuePromotions(*stateDSN, store, stdout))
}

// plannedAdapter is an adapter whose plan was made before the run: Run is handed the plan
// (or the planning error) instead of planning again.
type plannedAdapter struct {
	ingest.Adapter
	plans []ingest.Plan
	err   error
}

func (p plannedAdapter) Plan(*ingest.Finder) ([]ingest.Plan, error) { return p.plans, p.err }

// planned plans every adapter over raw and says what the run is about to read (files,
// bytes, snapshots), so that a long ingest says at once how much is ahead of it.
func planned(raw string, all []ingest.Adapter, w io.Writer) []ingest.Adapter {
	out := make([]ingest.Adapter, len(all))
	files := map[string]int64{}
	snaps, caps := 0, 0
	for i, a := range all {
		plans, err := a.Plan(ingest.NewFinder(raw, a.Folders()))
		out[i] = plannedAdapter{Adapter: a, plans: plans, err: err}
		if len(plans) > 0 {
			caps++
		}
		snaps += len(plans)
		for _, p := range plans {
			for _, f := range p.Files {
				if _, seen := files[f.Path]; !seen {
					files[f.Path] = 0
					if fi, err := os.Stat(f.Path); err == nil {
						files[f.Path] = fi.Size()
					}
				}
			}
		}
	}
	var bytes int64
	for _, n := range files {
		bytes += n
	}
	fmt.Fprintf(w, "ingest: %s (%s bytes) under %s for %s of %s; one line per file as it is read, then each snapshot's gates\n\n",
		count(int64(len(files)), "source file"), formatNumber(strconv.FormatInt(bytes, 10)), raw, count(int64(snaps), "snapshot"), count(int64(caps), "capability"))
	return out
}

// queuePromotions queues a snapshot.promoted event for every promotion not yet queued (this
// run's, and any an interrupted ingest left); a running server's delivery worker sends them
// to the subscribers.
func queuePromotions(dsn string, store *snapshots.Store, stdout io.Writer) error {
	pending, err := webhooks.Pending(store)
	if err != nil || !pending {
		return err
	}
	ctx := context.Background()
	st, err := state.Open(ctx, dsn, store.Dir)
	if err != nil {
		return fmt.Errorf("snapshots promoted, but the webhook outbox cannot be opened (the events are queued by the next ingest or server start): %w", err)
	}
	defer st.Close()
	events, deliveries, err := webhooks.Reconcile(ctx, st, store)
	if err != nil {
		return fmt.Errorf("%w (the events not queued are queued by the next ingest or server start)", err)
	}
	fmt.Fprintf(stdout, "%d snapshot.promoted events queued: %d webhook deliveries\n", events, deliveries)
	return nil
}

func fetchAll(ctx context.Context, raw, mirror string, keyFiles keyFileFlag, stdout, stderr io.Writer) error {
	var failed []string
	for _, a := range adapters.All() {
		for _, src := range a.Known() {
			res, err := fetch.Fetch(ctx, raw, src, fetch.Options{Mirror: mirror, Progress: stderr})
			if err != nil {
				fmt.Fprintf(stdout, "fetch %-45s FAILED: %v\n", src.Dest, err)
				failed = append(failed, src.Dest)
				continue
			}
			fmt.Fprintf(stdout, "fetch %-45s %s (%d bytes, sha256 %s…)\n", src.Dest, res.Status, res.Bytes, res.SHA256[:12])
		}
		pager, ok := a.(ingest.Pager)
		if !ok {
			continue
		}
		for _, p := range pager.Paged() {
			key, notice, err := keyFiles.key(p.KeyEnv)
			if notice != "" {
				fmt.Fprintf(stdout, "fetch %-45s %s\n", p.Dest, notice)
			}
			if err != nil {
				fmt.Fprintf(stdout, "fetch %-45s FAILED: %v\n", p.Dest, err)
				failed = append(failed, p.Dest)
				continue
			}
			results, err := fetch.FetchPages(ctx, raw, p, key, fetch.Options{Mirror: mirror, Progress: stderr})
			for _, res := range results {
				fmt.Fprintf(stdout, "fetch %-45s %s (%d bytes, sha256 %s…)\n", res.Source.Dest, res.Status, res.Bytes, res.SHA256[:12])
			}
			switch {
			case errors.Is(err, fetch.ErrNoKey):
				// No key configured: the API is not asked, and the files there are kept.
				fmt.Fprintf(stdout, "fetch %-45s SKIPPED: %v\n", p.Dest, err)
			case err != nil:
				fmt.Fprintf(stdout, "fetch %-45s FAILED: %v\n", p.Dest, err)
				failed = append(failed, p.Dest)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d downloads refused or failed (%s); nothing was replaced for them", len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// printOutcomes writes the closing table; complete says whether the run finished, so that
// "nothing changed" is never claimed by a run that stopped on an error.
func printOutcomes(w io.Writer, outcomes []ingest.Outcome, complete bool) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CAPABILITY\tAS_OF\tROWS\tGATES\tRESULT")
	changed := 0
	for _, o := range outcomes {
		if o.Status == ingest.Failed {
			changed++
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tFAILED\n", o.Capability, orDash(o.AsOf))
			for _, r := range o.Reasons {
				fmt.Fprintf(tw, "\t\t\t\t  %s\n", r)
			}
			continue
		}
		passed, total := 0, 0
		for _, g := range o.Manifest.Gates {
			total++
			if g.Passed {
				passed++
			}
		}
		result := o.Status
		if o.Unchanged {
			result += " (unchanged)"
		} else {
			changed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d passed\t%s\n", o.Capability, o.AsOf, o.Rows, passed, total, result)
		for _, r := range o.Reasons {
			fmt.Fprintf(tw, "\t\t\t\t  %s\n", r)
		}
	}
	tw.Flush()
	if changed == 0 && complete {
		fmt.Fprintln(w, "\nnothing changed: every snapshot was already built from these exact files")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runSnapshots(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("snapshots", flag.ContinueOnError)
	data := fs.String("data", "var", "data directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store := &snapshots.Store{Dir: *data}
	all, err := store.AllManifests()
	if err != nil {
		return err
	}
	cat, err := store.ReadCatalog()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CAPABILITY\tAS_OF\tSNAPSHOT\tSTATUS\tROWS\tSOURCES")
	for _, m := range all {
		status := m.Status
		if m.Status == snapshots.Promoted && cat.Promoted[m.Capability][m.AsOf] == m.Fingerprint {
			status += " (served)"
		}
		var files []string
		for _, s := range m.Sources {
			files = append(files, s.File)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", m.Capability, m.AsOf, m.Fingerprint, status, m.Rows, strings.Join(files, ", "))
		for _, g := range m.Gates {
			mark := "pass"
			if !g.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(tw, "\t\t\t  %s %s\t\t%s\n", mark, g.Name, g.Detail)
		}
	}
	if len(all) == 0 {
		fmt.Fprintf(tw, "no snapshots under %s: run citeq ingest first\n", filepath.Clean(*data))
	}
	return tw.Flush()
}

// keyFileFlag is --api-key-file NAME=PATH: files holding API keys, by the environment
// variable that otherwise holds each.
type keyFileFlag map[string]string

func (k keyFileFlag) String() string {
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	return strings.Join(names, ",")
}

func (k keyFileFlag) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want NAME=PATH (e.g. CITEQ_EIA_API_KEY=/run/secrets/eia), got %q", v)
	}
	k[name] = path
	return nil
}

// key is the API key named env: from the file --api-key-file gives for it, else from the
// environment; "" when neither has one. The key is never printed. A file that others than its
// owner could have written is refused (access.ReadKeyFile); one others could read is used,
// and notice warns of it.
func (k keyFileFlag) key(env string) (key, notice string, err error) {
	if path, ok := k[env]; ok {
		kf, err := access.ReadKeyFile(path, false)
		if err != nil {
			return "", "", fmt.Errorf("read the API key file for %s: %w", env, err)
		}
		if kf.Secret == "" {
			return "", kf.Notice, fmt.Errorf("the API key file for %s (%s) is empty", env, path)
		}
		return kf.Secret, kf.Notice, nil
	}
	return strings.TrimSpace(os.Getenv(env)), "", nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/access"
	"github.com/citeq/citeq/api"
	"github.com/citeq/citeq/internal/bytesize"
	"github.com/citeq/citeq/service"
	"github.com/citeq/citeq/state"
	"github.com/citeq/citeq/webhooks"
)

// reloadEvery is how often the server looks for newly promoted snapshots.
const reloadEvery = 2 * time.Second

func runServe(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	data := fs.String("data", "var", "data directory written by citeq ingest")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	stateDSN := fs.String("state", "", "state store: empty for SQLite at DATA/state.db, or postgres://… to share keys, quotas and subscriptions between replicas")
	insecure := fs.Bool("allow-insecure-callbacks", false, "FOR LOCAL TESTING ONLY: accept http and loopback webhook callbacks")
	var proxies listFlag
	fs.Var(&proxies, "trusted-proxy", "a proxy address or CIDR whose X-Forwarded-For names the client (repeatable; none by default)")
	operatorKey := fs.String("operator-key", "", "keep the operator's key in this file (created with mode 0600 when absent or no longer live, printed once): its queries are not limited by the free quota of this server; citeq query, describe and verify send it by themselves to a server on this machine when it is var/operator.key (make run uses it)")
	evidenceInFlight := fs.Int("evidence-in-flight", service.DefaultAggregateInFlight, "aggregate verifications (POST /v1/evidence/aggregate, verify_aggregate_v1) run at once; more are refused with 503 over_capacity and Retry-After")
	var syncing syncFlags
	syncing.register(fs)
	warmRows := fs.Int("warm-rows", 16<<20, "after start and after each reload, decode in the background every queryable column of the snapshots with at most this many rows, newest first and up to three quarters of the tables' share of --memory-budget (0: none; the others decode a column when a query first needs it)")
	budget := bytesize.Size(service.DefaultMemoryBudget)
	fs.Var(&budget, "memory-budget", "the server's memory: half for decoded columns (least recently used dropped first), a sixteenth each for record pages and cached answers, and the Go heap's soft limit at seven eighths less 48 MiB unless GOMEMLIMIT is set; e.g. 512MiB, 4GiB; 0: no bound")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := zerolog.New(os.Stderr).With().Timestamp().Logger()
	svc, err := service.New(*data)
	if err != nil {
		return err
	}
	plan := service.PlanMemory(int64(budget))
	svc.ApplyMemory(plan)
	goLimit := "GOMEMLIMIT"
	if os.Getenv("GOMEMLIMIT") == "" && plan.GoLimit > 0 {
		debug.SetMemoryLimit(plan.GoLimit)
		goLimit = bytesize.Size(plan.GoLimit).String()
	}
	log.Info().Str("memory_budget", bytesize.Size(plan.Total).String()).Str("tables", bytesize.Size(plan.Tables).String()).Str("pages", bytesize.Size(plan.Pages).String()).
		Str("responses", bytesize.Size(plan.Responses).String()).Str("go_limit", goLimit).Msg("memory")
	if *evidenceInFlight < 1 {
		return fmt.Errorf("serve: --evidence-in-flight must be at least 1, not %d", *evidenceInFlight)
	}
	svc.SetAggregateInFlight(*evidenceInFlight)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	store, err := state.Open(ctx, *stateDSN, *data)
	if err != nil {
		return err
	}
	defer store.Close()
	guard := webhooks.Guard{AllowInsecure: *insecure}
	if *insecure {
		log.Warn().Msg("--allow-insecure-callbacks: http and loopback webhook callbacks are accepted; never use this in production")
	}
	gate := &access.Gate{Store: store}
	if *operatorKey != "" {
		op, err := access.LoadOperatorKey(ctx, store, *operatorKey)
		if err != nil {
			return err
		}
		gate.Operator, gate.OperatorFile = op.Key.ID, *operatorKey
		if op.Notice != "" {
			log.Warn().Str("file", op.File).Msg("operator key: " + op.Notice)
		}
		printOperatorKey(stdout, op)
		log.Info().Str("key_id", op.Key.ID).Str("file", op.File).Bool("created", op.Created).Msg("operator key: not limited by the free quota")
	}
	loop, collectors, err := syncing.setup(svc, store, log)
	if err != nil {
		return err
	}
	handler, err := api.NewWith(svc, api.Config{Log: log, Gate: gate, Guard: guard, TrustedProxies: proxies, Metrics: collectors})
	if err != nil {
		return err
	}
	// A promotion whose event an interrupted ingest never queued is queued now, after every
	// catalog change, and, while queuing fails (a full disk under the state store), at every
	// reload tick until it succeeds.
	retry := false
	reconcile := func() {
		events, deliveries, err := webhooks.Reconcile(ctx, store, svc.Store())
		switch {
		case err != nil && !retry:
			log.Error().Err(err).Msg("queue the events of promotions: retried every reload interval until it succeeds")
		case err == nil && retry:
			log.Info().Msg("queue the events of promotions: succeeded on retry")
		}
		retry = err != nil
		if err == nil && events > 0 {
			log.Info().Int("events", events).Int("deliveries", deliveries).Msg("snapshot.promoted events queued for promotions an ingest left unqueued")
		}
	}
	reconcile()
	worker := &webhooks.Worker{Store: store, Guard: guard, Log: &log}
	go worker.Run(ctx)
	loopDone := make(chan struct{})
	if loop != nil {
		log.Info().Int("sources", len(loop.Sources)).Str("raw", syncing.raw).Msg("sync: checking each source on its schedule")
		go func() {
			defer close(loopDone)
			loop.Run(ctx)
		}()
	} else {
		close(loopDone)
	}
	for _, s := range svc.SnapshotsServed() {
		log.Info().Str("capability", s.Cap.ID).Str("as_of", s.Manifest.AsOf).Int("rows", s.Table.Rows).Msg("snapshot loaded")
	}
	warm := func() {
		start := time.Now()
		if err := svc.Warm(*warmRows); err != nil {
			log.Error().Err(err).Msg("warm: those columns decode when a query first needs them")
			return
		}
		log.Info().Int64("took_ms", time.Since(start).Milliseconds()).Msg("snapshots warmed")
	}
	if *warmRows > 0 {
		go warm()
	}
	limits := api.DefaultLimits()
	srv := api.NewHTTPServer(handler, limits)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	go func() {
		t := time.NewTicker(reloadEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if changed, err := svc.Reload(); err != nil {
					log.Error().Err(err).Msg("reload: keeping the snapshots already served")
				} else if changed {
					log.Info().Msg("catalog changed: snapshots reloaded")
					reconcile()
					if *warmRows > 0 {
						go warm()
					}
				} else if retry {
					reconcile()
				}
			}
		}
	}()
	fmt.Fprintf(stdout, "serving %s at http://%s (the log follows on stderr; Ctrl-C stops the server)\n",
		count(int64(len(svc.SnapshotsServed())), "snapshot"), ln.Addr())
	errc := make(chan error, 1)
	go func() {
		log.Info().Str("addr", ln.Addr().String()).Int64("read_timeout_ms", limits.Read.Milliseconds()).Int64("write_timeout_ms", limits.Write.Milliseconds()).
			Int64("idle_timeout_ms", limits.Idle.Milliseconds()).Int("max_conns", limits.MaxConns).Msg("serving")
		errc <- srv.Serve(api.Listen(ln, limits.MaxConns))
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info().Msg("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// An ingest the sync loop has begun ends before the process does, within the same grace
	// (an ingest cut short is completed or cleaned by the next one).
	select {
	case <-loopDone:
	case <-sctx.Done():
		log.Warn().Msg("sync: an ingest was still running at shutdown; the next ingest completes or cleans what it left")
	}
	return nil
}

// printOperatorKey says where the operator key is and, when it was made now, prints it: the
// only time it is shown (a key read from its file is named by its id alone).
func printOperatorKey(w io.Writer, op access.OperatorKey) {
	if !op.Created {
		fmt.Fprintf(w, "operator key %s, kept in %s: its queries are not limited by the free quota of this server\n", op.Key.ID, op.File)
		return
	}
	fmt.Fprintf(w, `operator key (shown only now; kept in %s, readable by you alone):

    %s

Its queries are not limited by the free quota of this server; every other caller keeps the
quota. bin/citeq sends it by itself to a server on this machine (from var/operator.key, or the
file $CITEQ_API_KEY_FILE names); with curl: -H "Authorization: Bearer $(cat %s)".

`, op.File, op.Secret, op.File)
}

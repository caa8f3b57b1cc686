package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/citeq/citeq/state"
)

// Retry policy defaults: attempt n (1-based) that fails is retried after a delay drawn
// uniformly from [d/2, d] where d = BaseDelay·2^(n-1) capped at MaxDelay ("equal jitter");
// after MaxAttempts failed attempts the delivery is dead.
const (
	DefaultBaseDelay   = 5 * time.Second
	DefaultMaxDelay    = time.Hour
	DefaultMaxAttempts = 8
	DefaultTimeout     = 10 * time.Second
	DefaultPoll        = 500 * time.Millisecond
	DefaultLease       = time.Minute
)

// Worker drains the outbox: it claims due deliveries, POSTs each signed event to its
// callback, and records the outcome.
type Worker struct {
	Store       state.Store
	Guard       Guard
	Log         *zerolog.Logger // nil: no logging
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	MaxAttempts int
	Timeout     time.Duration
	Poll        time.Duration
	Lease       time.Duration
	// Now returns the time (tests may replace it).
	Now    func() time.Time
	client *http.Client
}

func (w *Worker) defaults() {
	if w.BaseDelay == 0 {
		w.BaseDelay = DefaultBaseDelay
	}
	if w.MaxDelay == 0 {
		w.MaxDelay = DefaultMaxDelay
	}
	if w.MaxAttempts == 0 {
		w.MaxAttempts = DefaultMaxAttempts
	}
	if w.Timeout == 0 {
		w.Timeout = DefaultTimeout
	}
	if w.Poll == 0 {
		w.Poll = DefaultPoll
	}
	if w.Lease == 0 {
		w.Lease = DefaultLease
	}
	if w.Now == nil {
		w.Now = time.Now
	}
	if w.Log == nil {
		nop := zerolog.Nop()
		w.Log = &nop
	}
	if w.client == nil {
		dialer := &net.Dialer{Timeout: w.Timeout, Control: w.Guard.Control}
		w.client = &http.Client{
			Timeout: w.Timeout,
			Transport: &http.Transport{
				DialContext:         dialer.DialContext,
				TLSHandshakeTimeout: w.Timeout,
				MaxIdleConns:        16,
				IdleConnTimeout:     30 * time.Second,
			},
			// A redirect is an answer, not a new target: it counts as a failed delivery.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
}

// Run delivers until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	w.defaults()
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		if _, err := w.RunOnce(ctx); err != nil && ctx.Err() == nil {
			w.Log.Error().Err(err).Msg("webhook deliveries")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce claims the deliveries due now and attempts each once; it returns how many it
// attempted.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	w.defaults()
	ds, err := w.Store.ClaimDeliveries(ctx, w.Now(), 32, w.Lease)
	if err != nil {
		return 0, err
	}
	for _, d := range ds {
		w.attempt(ctx, d)
	}
	return len(ds), nil
}

func (w *Worker) attempt(ctx context.Context, d state.Delivery) {
	attempt := d.Attempts + 1
	err := w.post(ctx, d, attempt)
	now := w.Now()
	if err == nil {
		if err := w.Store.MarkDelivered(ctx, d.ID, now); err != nil {
			w.Log.Error().Err(err).Int64("delivery", d.ID).Msg("record delivery")
		}
		w.Log.Info().Int64("delivery", d.ID).Str("event", d.EventID).Str("subscription", d.SubscriptionID).Int("attempt", attempt).Msg("webhook delivered")
		return
	}
	dead := attempt >= w.MaxAttempts
	next := now.Add(w.Backoff(attempt))
	if err := w.Store.MarkFailed(ctx, d.ID, attempt, next, err.Error(), dead); err != nil {
		w.Log.Error().Err(err).Int64("delivery", d.ID).Msg("record failed delivery")
	}
	ev := w.Log.Warn()
	if dead {
		ev = w.Log.Error()
	}
	ev.Int64("delivery", d.ID).Str("event", d.EventID).Int("attempt", attempt).Bool("dead", dead).Time("next_attempt", next).Str("error", err.Error()).Msg("webhook delivery failed")
}

// Backoff is the delay before retrying after failed attempt n (1-based).
func (w *Worker) Backoff(n int) time.Duration {
	w.defaults()
	d := w.BaseDelay
	for i := 1; i < n && d < w.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, w.MaxDelay)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func (w *Worker) post(ctx context.Context, d state.Delivery, attempt int) error {
	// DNS may have changed since subscription: check the URL again; the dialer's Control
	// then refuses a forbidden address whatever the resolver answers at connection time.
	if err := w.Guard.CheckURL(ctx, d.CallbackURL); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.CallbackURL, bytes.NewReader(d.Payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "citeq-webhooks/1")
	req.Header.Set(EventIDHeader, d.EventID)
	req.Header.Set(EventTypeHeader, EventSnapshotPromoted)
	req.Header.Set(AttemptHeader, strconv.Itoa(attempt))
	req.Header.Set(SignatureHeader, Sign(d.Secret, w.Now(), d.Payload))
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("callback answered %s", resp.Status)
	}
	return nil
}

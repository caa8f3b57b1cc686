package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultDeadline is the time one file may take, from its request to its last byte, when
// Options.Deadline is zero or negative.
const DefaultDeadline = time.Hour

// DefaultMinRate and DefaultRateWindow are the throughput a download must keep once its body
// flows, when Options.MinRate or Options.RateWindow is zero or negative: at least 16 KiB in
// every minute.
const (
	DefaultMinRate    int64 = 16 << 10
	DefaultRateWindow       = time.Minute
)

// pace bounds one download: no byte at all for stallTimeout, fewer than minRate bytes in a
// window once the body flows, or the whole file not done by the deadline cancels its context
// with an error naming the URL and what was received.
type pace struct {
	u        string
	start    time.Time
	deadline time.Duration
	minRate  int64
	window   time.Duration
	cancel   context.CancelCauseFunc
	stall    *time.Timer
	dead     *time.Timer
	n        atomic.Int64 // bytes received
	total    atomic.Int64 // bytes announced, -1 when unknown
	flowing  sync.Once
	done     chan struct{}
	stopOnce sync.Once
}

// startPace returns ctx bounded by opt's deadline, throughput and the stall timeout for the
// download of u, and the pace that reads its body. Call stop once the download is over.
func startPace(ctx context.Context, u string, opt Options) (context.Context, *pace) {
	ctx, cancel := context.WithCancelCause(ctx)
	p := &pace{u: u, start: time.Now(), deadline: opt.Deadline, minRate: opt.MinRate, window: opt.RateWindow,
		cancel: cancel, done: make(chan struct{})}
	if p.deadline <= 0 {
		p.deadline = DefaultDeadline
	}
	if p.minRate <= 0 {
		p.minRate = DefaultMinRate
	}
	if p.window <= 0 {
		p.window = DefaultRateWindow
	}
	p.total.Store(-1)
	p.stall = time.AfterFunc(stallTimeout, func() {
		cancel(fmt.Errorf("no data received for %v (%s)", stallTimeout, p.received()))
	})
	p.dead = time.AfterFunc(p.deadline, func() {
		cancel(&RefusedError{URL: u,
			Reason: fmt.Sprintf("the download was not complete after %v, the most one file may take: %s", p.deadline, p.received()),
			Advice: "the server is too slow; try again later"})
	})
	return ctx, p
}

// stop ends the pace's timers and its throughput checks.
func (p *pace) stop() {
	p.stopOnce.Do(func() {
		p.stall.Stop()
		p.dead.Stop()
		close(p.done)
		p.cancel(nil)
	})
}

// received says what has arrived so far, for a message.
func (p *pace) received() string {
	n, total := p.n.Load(), p.total.Load()
	s := fmt.Sprintf("%d bytes received", n)
	if total >= 0 {
		s = fmt.Sprintf("%d of the %d bytes announced received", n, total)
	}
	return s + fmt.Sprintf(" in %v", time.Since(p.start).Round(time.Millisecond))
}

// body wraps r, the body of a response announcing total bytes (-1: unknown): each byte
// read counts, resets the stall timer, and from the first read on every window must bring
// at least minRate bytes.
func (p *pace) body(r io.Reader, total int64) io.Reader {
	p.total.Store(total)
	return paced{r: r, p: p}
}

// watch checks the throughput once per window until the pace stops.
func (p *pace) watch() {
	t := time.NewTicker(p.window)
	defer t.Stop()
	last := p.n.Load()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			n := p.n.Load()
			if got := n - last; got < p.minRate {
				p.cancel(&RefusedError{URL: p.u,
					Reason: fmt.Sprintf("the server sent %d bytes in the last %v, below the minimum of %d bytes per %v (%s)", got, p.window, p.minRate, p.window, p.received()),
					Advice: "the server is too slow or stalled; try again later"})
				return
			}
			last = n
		}
	}
}

// cause is the error to report for err, a failure of the download under ctx: the pace's own
// reason when it cancelled ctx, else err.
func (p *pace) cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && c != ctx.Err() {
		return c
	}
	return err
}

type paced struct {
	r io.Reader
	p *pace
}

func (r paced) Read(b []byte) (int, error) {
	r.p.flowing.Do(func() { go r.p.watch() })
	n, err := r.r.Read(b)
	if n > 0 {
		r.p.n.Add(int64(n))
		r.p.stall.Reset(stallTimeout)
	}
	return n, err
}

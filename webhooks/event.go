package webhooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/citeq/citeq/jsonw"
	"github.com/citeq/citeq/snapshots"
	"github.com/citeq/citeq/state"
)

// EventSnapshotPromoted is the event emitted when a data point's snapshot changes.
const EventSnapshotPromoted = "snapshot.promoted"

// Promotion describes one promoted snapshot.
type Promotion struct {
	DataPoint    string
	AsOf         string
	PreviousAsOf string
	Rows         int
	PreviousRows int
	Snapshot     string // fingerprint
}

// NewEvent builds the snapshot.promoted event of a promotion. Its id is derived from the data
// point and snapshot, so the same promotion is never queued twice.
func NewEvent(p Promotion, now time.Time) state.Event {
	sum := sha256.Sum256([]byte(p.DataPoint + "\x00" + p.AsOf + "\x00" + p.Snapshot))
	id := "evt_" + hex.EncodeToString(sum[:12])
	var previousAsOf, previousRows any // null for a data point's first snapshot
	if p.PreviousAsOf != "" {
		previousAsOf, previousRows = p.PreviousAsOf, p.PreviousRows
	}
	// The delivered document: text and integers only, which always render.
	b := jsonw.MustRender(jsonw.Obj{{K: "id", V: id}, {K: "type", V: EventSnapshotPromoted}, {K: "created", V: now.UTC().Format(time.RFC3339)},
		{K: "data_point", V: p.DataPoint}, {K: "as_of", V: p.AsOf}, {K: "previous_as_of", V: previousAsOf}, {K: "rows", V: p.Rows},
		{K: "previous_rows", V: previousRows}, {K: "snapshot", V: p.Snapshot}})
	return state.Event{ID: id, Type: EventSnapshotPromoted, DataPoint: p.DataPoint, CreatedAt: now.UTC(), Payload: b}
}

// Emit queues the events of promotions in the outbox of store, returning how many deliveries
// were queued.
func Emit(ctx context.Context, store state.Store, promotions []Promotion, now time.Time) (int, error) {
	total := 0
	for _, p := range promotions {
		n, err := store.Enqueue(ctx, NewEvent(p, now))
		if err != nil {
			return total, fmt.Errorf("queue %s event of %s: %w", EventSnapshotPromoted, p.DataPoint, err)
		}
		total += n
	}
	return total, nil
}

// Reconcile queues the snapshot.promoted event of every promotion data records as not yet
// queued (a crash or a full disk between the catalog write and the outbox write leaves such a
// record), then drops the record. Queuing is idempotent (the event id is derived from the
// promotion), so ingest and a server reconciling at once queue each event once. Records of
// promotions the catalog never took are left to ingest. It returns the events and deliveries
// queued.
func Reconcile(ctx context.Context, store state.Store, data *snapshots.Store) (events, deliveries int, err error) {
	pending, err := data.PendingPromotions()
	if err != nil {
		return 0, 0, err
	}
	for _, p := range pending {
		if !p.Promoted {
			continue
		}
		n, err := store.Enqueue(ctx, NewEvent(Promotion{DataPoint: p.Capability, AsOf: p.AsOf, PreviousAsOf: p.PreviousAsOf,
			Rows: p.Rows, PreviousRows: p.PreviousRows, Snapshot: p.Fingerprint}, p.PromotedAt))
		if err != nil {
			return events, deliveries, fmt.Errorf("queue %s event of %s %s: %w", EventSnapshotPromoted, p.Capability, p.AsOf, err)
		}
		snapshots.Failpoint(snapshots.StepEventQueued)
		if err := data.Queued(p); err != nil {
			return events, deliveries, err
		}
		events, deliveries = events+1, deliveries+n
	}
	return events, deliveries, nil
}

// Pending reports whether data holds promotions whose events are not yet queued.
func Pending(data *snapshots.Store) (bool, error) {
	pending, err := data.PendingPromotions()
	for _, p := range pending {
		if p.Promoted {
			return true, err
		}
	}
	return false, err
}

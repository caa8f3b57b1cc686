// Package state keeps what the service must not lose: API keys and plans, free-query
// counters, webhook subscriptions and the delivery outbox. One interface, two stores:
// embedded SQLite (the default, DATA/state.db) and PostgreSQL (several replicas sharing keys,
// quotas and subscriptions). Both apply versioned migrations when opened.
package state

import (
	"context"
	"errors"
	"time"
)

// Plans.
const (
	PlanFree    = "free"
	PlanMonthly = "monthly"
	PlanAnnual  = "annual"
)

// FreeQueries is the number of queries a free key (or a caller without a key) may make.
const FreeQueries = 25

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

// MaxSubscriptionsPerKey is the most active webhook subscriptions one key may hold (each is
// one delivery per promotion).
const MaxSubscriptionsPerKey = 100

// Errors.
var (
	ErrNotFound = errors.New("state: not found")
	// ErrLimit is returned when a key already holds MaxSubscriptionsPerKey subscriptions.
	ErrLimit   = errors.New("state: subscription limit reached")
	ErrRevoked = errors.New("state: key revoked")
	ErrBadPlan = errors.New("state: unknown plan (free, monthly or annual)")
)

// Key is an API key as stored: never the secret itself, only its hash.
type Key struct {
	ID        string     `json:"id"`
	Plan      string     `json:"plan"`
	Owner     string     `json:"owner"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// Subscription is a webhook subscription of one key to one data point.
type Subscription struct {
	ID          string    `json:"id"`
	KeyID       string    `json:"-"`
	DataPoint   string    `json:"data_point"`
	CallbackURL string    `json:"callback_url"`
	CreatedAt   time.Time `json:"created_at"`
	// Secret signs the deliveries; it is returned to the caller once, at creation.
	Secret string `json:"-"`
}

// Event is one snapshot.promoted event as queued in the outbox.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	DataPoint string    `json:"data_point"`
	CreatedAt time.Time `json:"created_at"`
	// Payload is the JSON body delivered to every subscriber.
	Payload []byte `json:"-"`
}

// Delivery is one event to deliver to one subscription.
type Delivery struct {
	ID             int64
	EventID        string
	SubscriptionID string
	KeyID          string
	CallbackURL    string
	Secret         string
	Payload        []byte
	Attempts       int
	Status         string
	NextAttempt    time.Time
	LastError      string
	DeliveredAt    *time.Time
}

// Store is the state store. Every method is safe for concurrent use by many goroutines and,
// for a shared database, many processes.
type Store interface {
	// CreateKey makes a key for plan and owner and returns its secret (shown once) and record.
	// The secret has the form cq_<id>_<random>; only a hash of it is stored.
	CreateKey(ctx context.Context, plan, owner string) (secret string, key Key, err error)
	// LookupKey finds the key a secret belongs to, comparing hashes in constant time:
	// ErrNotFound for an unknown or malformed secret, ErrRevoked for a revoked key.
	LookupKey(ctx context.Context, secret string) (Key, error)
	// ListKeys lists every key, oldest first.
	ListKeys(ctx context.Context) ([]Key, error)
	// SetPlan changes a key's plan (ErrNotFound, ErrBadPlan).
	SetPlan(ctx context.Context, keyID, plan string) error
	// RevokeKey revokes a key (ErrNotFound).
	RevokeKey(ctx context.Context, keyID string) error

	// ConsumeQuery atomically counts one query for subject (e.g. "key:<id>" or "ip:<addr>")
	// if fewer than limit have been counted; it returns the count after the call and whether
	// the query was allowed. Exact under any concurrency, across processes sharing a database.
	ConsumeQuery(ctx context.Context, subject string, limit int) (used int, allowed bool, err error)
	// QueriesUsed returns the count of subject (0 when never counted).
	QueriesUsed(ctx context.Context, subject string) (int, error)

	// CreateSubscription stores a subscription of keyID with a new id and signing secret.
	CreateSubscription(ctx context.Context, keyID, dataPoint, callbackURL string) (Subscription, error)
	// ListSubscriptions lists keyID's active subscriptions, oldest first.
	ListSubscriptions(ctx context.Context, keyID string) ([]Subscription, error)
	// DeleteSubscription deletes keyID's subscription id; ErrNotFound when there is none
	// (unknown, already deleted, or another key's: indistinguishable by design).
	DeleteSubscription(ctx context.Context, keyID, id string) error

	// Enqueue stores ev and one pending delivery for every active subscription of
	// ev.DataPoint, in one transaction; enqueuing an event id twice adds nothing. It returns
	// the number of deliveries queued.
	Enqueue(ctx context.Context, ev Event) (int, error)
	// ClaimDeliveries leases up to limit pending deliveries due at now (NextAttempt <= now and
	// no unexpired lease) for lease, so that no other worker, in this process or another,
	// takes them meanwhile; a worker that dies loses its lease and the deliveries come due
	// again.
	ClaimDeliveries(ctx context.Context, now time.Time, limit int, lease time.Duration) ([]Delivery, error)
	// MarkDelivered records a successful delivery.
	MarkDelivered(ctx context.Context, id int64, at time.Time) error
	// MarkFailed records a failed attempt: attempts is the number made so far; the delivery
	// is retried at next, or marked dead when dead is true.
	MarkFailed(ctx context.Context, id int64, attempts int, next time.Time, lastError string, dead bool) error
	// ListDeliveries lists keyID's deliveries, newest first (at most limit).
	ListDeliveries(ctx context.Context, keyID string, limit int) ([]Delivery, error)

	// Close releases the store.
	Close() error
}

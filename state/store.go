package state

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// errNoRows is what a backend's row.Scan returns when the query returned no row.
var errNoRows = errors.New("state: no rows")

// querier runs SQL, on the database or inside a transaction. The SQL is rendered already.
type querier interface {
	exec(ctx context.Context, q string, args ...any) (rowsAffected int64, err error)
	query(ctx context.Context, q string, args ...any) (rows, error)
	queryRow(ctx context.Context, q string, args ...any) row
}

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

type row interface {
	Scan(dest ...any) error // errNoRows when there is none
}

// backend is a database: SQLite through database/sql, or PostgreSQL through pgxpool.
type backend interface {
	querier
	// inTx runs fn in a read-write transaction, committed when fn returns nil. In SQLite
	// the transaction begins with BEGIN IMMEDIATE: it holds the write lock from the start.
	inTx(ctx context.Context, fn func(querier) error) error
	// lockWrites serialises this process's writers where the database would otherwise make
	// them wait for each other (SQLite); it returns the function that releases the lock.
	lockWrites(ctx context.Context) (unlock func(), err error)
	// retryable reports whether an operation that failed with err may simply be run again
	// (SQLITE_BUSY, a PostgreSQL serialization failure or deadlock).
	retryable(err error) bool
	close() error
}

// sqlStore implements Store on either backend; the SQL is shared.
type sqlStore struct {
	b         backend
	d         *dialect
	rendered  sync.Map // SQL as written → SQL for d
	closeOnce sync.Once
	closeErr  error
}

func newSQLStore(b backend, d *dialect) *sqlStore {
	return &sqlStore{b: b, d: d}
}

// sql returns q rendered for the store's dialect.
func (s *sqlStore) sql(q string) string {
	if r, ok := s.rendered.Load(q); ok {
		return r.(string)
	}
	r := s.d.render(q)
	s.rendered.Store(q, r)
	return r
}

const maxAttempts = 8

// retry runs fn until it succeeds, fails with an error that is not retryable, the context
// ends or maxAttempts have failed.
func (s *sqlStore) retry(ctx context.Context, fn func() error) error {
	delay := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == maxAttempts || !s.b.retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// read runs fn, which only reads.
func (s *sqlStore) read(ctx context.Context, fn func(querier) error) error {
	return s.retry(ctx, func() error { return fn(s.b) })
}

// write runs fn, which writes with a single statement.
func (s *sqlStore) write(ctx context.Context, fn func(querier) error) error {
	return s.retry(ctx, func() error {
		unlock, err := s.b.lockWrites(ctx)
		if err != nil {
			return err
		}
		defer unlock()
		return fn(s.b)
	})
}

// writeTx runs fn in a transaction.
func (s *sqlStore) writeTx(ctx context.Context, fn func(querier) error) error {
	return s.retry(ctx, func() error {
		unlock, err := s.b.lockWrites(ctx)
		if err != nil {
			return err
		}
		defer unlock()
		return s.b.inTx(ctx, fn)
	})
}

func (s *sqlStore) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.b.close() })
	return s.closeErr
}

// Keys.

const keyColumns = `id, secret_hash, plan, owner, created_at, revoked_at`

func scanKey(r interface{ Scan(...any) error }) (Key, string, error) {
	var k Key
	var hash string
	var created, revoked scanTime
	if err := r.Scan(&k.ID, &hash, &k.Plan, &k.Owner, &created, &revoked); err != nil {
		return Key{}, "", err
	}
	k.CreatedAt, k.RevokedAt = created.t, revoked.ptr()
	return k, hash, nil
}

func (s *sqlStore) CreateKey(ctx context.Context, plan, owner string) (string, Key, error) {
	if !validPlan(plan) {
		return "", Key{}, ErrBadPlan
	}
	// A new id colliding with an existing one is unlikely (48 random bits) but not
	// impossible: then draw again.
	for range 5 {
		id, secret, err := newKeySecret()
		if err != nil {
			return "", Key{}, err
		}
		k := Key{ID: id, Plan: plan, Owner: owner, CreatedAt: dbTime(time.Now())}
		var n int64
		err = s.write(ctx, func(q querier) (err error) {
			n, err = q.exec(ctx, s.sql(`INSERT INTO keys (id, secret_hash, plan, owner, created_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`),
				k.ID, hashSecret(secret), k.Plan, k.Owner, s.d.ts(k.CreatedAt))
			return err
		})
		if err != nil {
			return "", Key{}, fmt.Errorf("state: create key: %w", err)
		}
		if n == 1 {
			return secret, k, nil
		}
	}
	return "", Key{}, errors.New("state: create key: could not draw an unused id")
}

func (s *sqlStore) LookupKey(ctx context.Context, secret string) (Key, error) {
	id, ok := keyIDFromSecret(secret)
	if !ok {
		return Key{}, ErrNotFound
	}
	hash := hashSecret(secret)
	var k Key
	var stored string
	err := s.read(ctx, func(q querier) (err error) {
		k, stored, err = scanKey(q.queryRow(ctx, s.sql(`SELECT `+keyColumns+` FROM keys WHERE id = $1`), id))
		return err
	})
	if errors.Is(err, errNoRows) {
		// Compare anyway, so that an unknown id costs what a wrong secret costs.
		sameHash(hash, hashSecret(""))
		return Key{}, ErrNotFound
	}
	if err != nil {
		return Key{}, fmt.Errorf("state: lookup key: %w", err)
	}
	if !sameHash(hash, stored) {
		return Key{}, ErrNotFound
	}
	if k.RevokedAt != nil {
		return k, ErrRevoked
	}
	return k, nil
}

func (s *sqlStore) ListKeys(ctx context.Context) ([]Key, error) {
	var keys []Key
	err := s.read(ctx, func(q querier) error {
		keys = nil
		r, err := q.query(ctx, s.sql(`SELECT `+keyColumns+` FROM keys ORDER BY seq`))
		if err != nil {
			return err
		}
		defer r.Close()
		for r.Next() {
			k, _, err := scanKey(r)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return r.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("state: list keys: %w", err)
	}
	return keys, nil
}

func (s *sqlStore) SetPlan(ctx context.Context, keyID, plan string) error {
	if !validPlan(plan) {
		return ErrBadPlan
	}
	var n int64
	err := s.write(ctx, func(q querier) (err error) {
		n, err = q.exec(ctx, s.sql(`UPDATE keys SET plan = $2 WHERE id = $1`), keyID, plan)
		return err
	})
	if err != nil {
		return fmt.Errorf("state: set plan: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// RevokeKey revokes keyID; revoking a revoked key keeps the first revocation time.
func (s *sqlStore) RevokeKey(ctx context.Context, keyID string) error {
	var n int64
	err := s.write(ctx, func(q querier) (err error) {
		n, err = q.exec(ctx, s.sql(`UPDATE keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`),
			keyID, s.d.ts(time.Now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("state: revoke key: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Query counts.

// ConsumeQuery counts the query with one statement, which either inserts the subject's
// first count or increments its count while it is below limit; no row back means the count
// had reached limit. A limit <= 0 allows nothing and counts nothing.
func (s *sqlStore) ConsumeQuery(ctx context.Context, subject string, limit int) (int, bool, error) {
	if limit <= 0 {
		used, err := s.QueriesUsed(ctx, subject)
		return used, false, err
	}
	var used int
	err := s.write(ctx, func(q querier) error {
		return q.queryRow(ctx, s.sql(`INSERT INTO query_counts (subject, used) VALUES ($1, 1)
			ON CONFLICT (subject) DO UPDATE SET used = query_counts.used + 1 WHERE query_counts.used < $2
			RETURNING used`), subject, limit).Scan(&used)
	})
	if err == nil {
		return used, true, nil
	}
	if !errors.Is(err, errNoRows) {
		return 0, false, fmt.Errorf("state: consume query: %w", err)
	}
	used, err = s.QueriesUsed(ctx, subject)
	return used, false, err
}

func (s *sqlStore) QueriesUsed(ctx context.Context, subject string) (int, error) {
	var used int
	err := s.read(ctx, func(q querier) error {
		return q.queryRow(ctx, s.sql(`SELECT used FROM query_counts WHERE subject = $1`), subject).Scan(&used)
	})
	if errors.Is(err, errNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("state: queries used: %w", err)
	}
	return used, nil
}

// Subscriptions.

// CreateSubscription returns ErrNotFound when keyID is not a key.
func (s *sqlStore) CreateSubscription(ctx context.Context, keyID, dataPoint, callbackURL string) (Subscription, error) {
	for range 5 {
		id, err := randomHex(subIDLen)
		if err != nil {
			return Subscription{}, err
		}
		secret, err := randomHex(subSecretLen)
		if err != nil {
			return Subscription{}, err
		}
		sub := Subscription{
			ID:          subIDPrefix + id,
			KeyID:       keyID,
			DataPoint:   dataPoint,
			CallbackURL: callbackURL,
			CreatedAt:   dbTime(time.Now()),
			Secret:      subSecretPrefix + secret,
		}
		var n int64
		// The key's row is held while its subscriptions are counted, so concurrent creates
		// of one key never pass the limit together.
		err = s.writeTx(ctx, func(q querier) error {
			n = 0
			r, err := q.query(ctx, s.sql(`SELECT id FROM keys WHERE id = $1 {{lock_row}}`), keyID)
			if err != nil {
				return err
			}
			found := r.Next()
			r.Close()
			if !found {
				return ErrNotFound
			}
			var active int
			if err := q.queryRow(ctx, s.sql(`SELECT COUNT(*) FROM subscriptions WHERE key_id = $1 AND deleted_at IS NULL`), keyID).Scan(&active); err != nil {
				return err
			}
			if active >= MaxSubscriptionsPerKey {
				return ErrLimit
			}
			n, err = q.exec(ctx, s.sql(`INSERT INTO subscriptions (id, key_id, data_point, callback_url, secret, created_at)
				VALUES ($1, $2, $3, $4, $5, $6)
				ON CONFLICT (id) DO NOTHING`),
				sub.ID, sub.KeyID, sub.DataPoint, sub.CallbackURL, sub.Secret, s.d.ts(sub.CreatedAt))
			return err
		})
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrLimit) {
			return Subscription{}, err
		}
		if err != nil {
			return Subscription{}, fmt.Errorf("state: create subscription: %w", err)
		}
		if n == 1 {
			return sub, nil
		}
		var keys int
		err = s.read(ctx, func(q querier) error {
			return q.queryRow(ctx, s.sql(`SELECT COUNT(*) FROM keys WHERE id = $1`), keyID).Scan(&keys)
		})
		if err != nil {
			return Subscription{}, fmt.Errorf("state: create subscription: %w", err)
		}
		if keys == 0 {
			return Subscription{}, ErrNotFound
		}
	}
	return Subscription{}, errors.New("state: create subscription: could not draw an unused id")
}

func (s *sqlStore) ListSubscriptions(ctx context.Context, keyID string) ([]Subscription, error) {
	var subs []Subscription
	err := s.read(ctx, func(q querier) error {
		subs = nil
		r, err := q.query(ctx, s.sql(`SELECT id, key_id, data_point, callback_url, secret, created_at
			FROM subscriptions WHERE key_id = $1 AND deleted_at IS NULL ORDER BY seq`), keyID)
		if err != nil {
			return err
		}
		defer r.Close()
		for r.Next() {
			var sub Subscription
			var created scanTime
			if err := r.Scan(&sub.ID, &sub.KeyID, &sub.DataPoint, &sub.CallbackURL, &sub.Secret, &created); err != nil {
				return err
			}
			sub.CreatedAt = created.t
			subs = append(subs, sub)
		}
		return r.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("state: list subscriptions: %w", err)
	}
	return subs, nil
}

// DeleteSubscription marks the subscription deleted (the row stays, for its deliveries'
// history) and gives up its pending deliveries: they end dead, with last error
// "subscription deleted".
func (s *sqlStore) DeleteSubscription(ctx context.Context, keyID, id string) error {
	var n int64
	err := s.writeTx(ctx, func(q querier) (err error) {
		n, err = q.exec(ctx, s.sql(`UPDATE subscriptions SET deleted_at = $3
			WHERE id = $1 AND key_id = $2 AND deleted_at IS NULL`), id, keyID, s.d.ts(time.Now()))
		if err != nil || n == 0 {
			return err
		}
		_, err = q.exec(ctx, s.sql(`UPDATE deliveries SET status = 'dead', lease_until = NULL, last_error = $2
			WHERE subscription_id = $1 AND status = 'pending'`), id, "subscription deleted")
		return err
	})
	if err != nil {
		return fmt.Errorf("state: delete subscription: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Outbox.

// Enqueue queues ev for the active subscriptions of ev.DataPoint whose key is not revoked,
// due at ev.CreatedAt (now when zero).
func (s *sqlStore) Enqueue(ctx context.Context, ev Event) (int, error) {
	if ev.ID == "" {
		return 0, errors.New("state: enqueue: event without id")
	}
	if ev.CreatedAt.IsZero() {
		ev.CreatedAt = time.Now()
	}
	if ev.Payload == nil {
		ev.Payload = []byte{}
	}
	var queued int64
	err := s.writeTx(ctx, func(q querier) error {
		queued = 0
		n, err := q.exec(ctx, s.sql(`INSERT INTO events (id, type, data_point, created_at, payload)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`),
			ev.ID, ev.Type, ev.DataPoint, s.d.ts(ev.CreatedAt), ev.Payload)
		if err != nil || n == 0 {
			return err
		}
		queued, err = q.exec(ctx, s.sql(`INSERT INTO deliveries
				(event_id, subscription_id, key_id, callback_url, secret, attempts, status, next_attempt, last_error, created_at)
			SELECT CAST($1 AS TEXT), s.id, s.key_id, s.callback_url, s.secret, 0, 'pending',
				CAST($3 AS {{time}}), '', CAST($3 AS {{time}})
			FROM subscriptions s JOIN keys k ON k.id = s.key_id
			WHERE s.data_point = $2 AND s.deleted_at IS NULL AND k.revoked_at IS NULL
			ORDER BY s.seq`),
			ev.ID, ev.DataPoint, s.d.ts(ev.CreatedAt))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("state: enqueue: %w", err)
	}
	return int(queued), nil
}

const deliveryColumns = `id, event_id, subscription_id, key_id, callback_url, secret, attempts, status,
	next_attempt, last_error, delivered_at`

func scanDeliveries(r rows) ([]Delivery, error) {
	defer r.Close()
	var ds []Delivery
	for r.Next() {
		var d Delivery
		var next, delivered scanTime
		if err := r.Scan(&d.ID, &d.EventID, &d.SubscriptionID, &d.KeyID, &d.CallbackURL, &d.Secret, &d.Attempts,
			&d.Status, &next, &d.LastError, &delivered, &d.Payload); err != nil {
			return nil, err
		}
		d.NextAttempt, d.DeliveredAt = next.t, delivered.ptr()
		ds = append(ds, d)
	}
	return ds, r.Err()
}

// ClaimDeliveries leases the due deliveries with one statement, oldest first. In
// PostgreSQL the rows another claimer has locked are skipped; in SQLite the transaction
// holds the write lock (BEGIN IMMEDIATE), so claimers take turns.
func (s *sqlStore) ClaimDeliveries(ctx context.Context, now time.Time, limit int, lease time.Duration) ([]Delivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	var ds []Delivery
	err := s.writeTx(ctx, func(q querier) error {
		r, err := q.query(ctx, s.sql(`UPDATE deliveries SET lease_until = $1
			WHERE id IN (
				SELECT id FROM deliveries
				WHERE status = 'pending' AND next_attempt <= $2 AND (lease_until IS NULL OR lease_until <= $2)
				ORDER BY id LIMIT $3
				{{skip_locked}}
			)
			RETURNING `+deliveryColumns+`, (SELECT e.payload FROM events e WHERE e.id = deliveries.event_id)`),
			s.d.ts(now.Add(lease)), s.d.ts(now), limit)
		if err != nil {
			return err
		}
		ds, err = scanDeliveries(r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("state: claim deliveries: %w", err)
	}
	slices.SortFunc(ds, func(a, b Delivery) int { return cmp.Compare(a.ID, b.ID) })
	return ds, nil
}

// MarkDelivered marks delivery id delivered at at and counts the attempt. It changes
// nothing for a delivery already marked delivered.
func (s *sqlStore) MarkDelivered(ctx context.Context, id int64, at time.Time) error {
	return s.markDelivery(ctx, "mark delivered", id, `UPDATE deliveries
		SET status = 'delivered', delivered_at = $2, attempts = attempts + 1, lease_until = NULL
		WHERE id = $1 AND status <> 'delivered'`, id, s.d.ts(at))
}

// MarkFailed records a failed attempt of a pending delivery. It changes nothing for a
// delivery no longer pending (delivered meanwhile by a worker that took over an expired
// lease, or dead).
func (s *sqlStore) MarkFailed(ctx context.Context, id int64, attempts int, next time.Time, lastError string, dead bool) error {
	status := DeliveryPending
	if dead {
		status = DeliveryDead
	}
	return s.markDelivery(ctx, "mark failed", id, `UPDATE deliveries
		SET attempts = $2, next_attempt = $3, last_error = $4, status = $5, lease_until = NULL
		WHERE id = $1 AND status = 'pending'`, id, attempts, s.d.ts(next), lastError, status)
}

// markDelivery runs update on delivery id; ErrNotFound when there is no such delivery.
func (s *sqlStore) markDelivery(ctx context.Context, what string, id int64, update string, args ...any) error {
	var n int64
	err := s.write(ctx, func(q querier) (err error) {
		n, err = q.exec(ctx, s.sql(update), args...)
		return err
	})
	if err == nil && n == 0 {
		var found int
		err = s.read(ctx, func(q querier) error {
			return q.queryRow(ctx, s.sql(`SELECT COUNT(*) FROM deliveries WHERE id = $1`), id).Scan(&found)
		})
		if err == nil && found == 0 {
			return ErrNotFound
		}
	}
	if err != nil {
		return fmt.Errorf("state: %s: %w", what, err)
	}
	return nil
}

// ListDeliveries lists at most limit of keyID's deliveries, newest first; nothing when
// limit <= 0.
func (s *sqlStore) ListDeliveries(ctx context.Context, keyID string, limit int) ([]Delivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	var ds []Delivery
	err := s.read(ctx, func(q querier) error {
		r, err := q.query(ctx, s.sql(`SELECT d.id, d.event_id, d.subscription_id, d.key_id, d.callback_url, d.secret,
				d.attempts, d.status, d.next_attempt, d.last_error, d.delivered_at, e.payload
			FROM deliveries d JOIN events e ON e.id = d.event_id
			WHERE d.key_id = $1 ORDER BY d.id DESC LIMIT $2`), keyID, limit)
		if err != nil {
			return err
		}
		ds, err = scanDeliveries(r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("state: list deliveries: %w", err)
	}
	return ds, nil
}

package state

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// openPostgres connects to the PostgreSQL database of dsn (a postgres:// URL) and migrates it.
func openPostgres(ctx context.Context, dsn string) (Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("state: PostgreSQL DSN: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("state: PostgreSQL: %w", err)
	}
	s := newSQLStore(&pgBackend{pool: pool}, postgresDialect)
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("state: PostgreSQL %s@%s/%s: %w", cfg.ConnConfig.User, cfg.ConnConfig.Host, cfg.ConnConfig.Database, err)
	}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

type pgBackend struct {
	pool *pgxpool.Pool
}

// lockWrites does nothing: PostgreSQL's row locks order the writers.
func (b *pgBackend) lockWrites(context.Context) (func(), error) { return func() {}, nil }

func (b *pgBackend) retryable(err error) bool {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return true
	}
	return false
}

func (b *pgBackend) close() error {
	b.pool.Close()
	return nil
}

func (b *pgBackend) inTx(ctx context.Context, fn func(querier) error) error {
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return fn(pgQuerier{tx}) })
}

func (b *pgBackend) exec(ctx context.Context, q string, args ...any) (int64, error) {
	return pgQuerier{b.pool}.exec(ctx, q, args...)
}

func (b *pgBackend) query(ctx context.Context, q string, args ...any) (rows, error) {
	return pgQuerier{b.pool}.query(ctx, q, args...)
}

func (b *pgBackend) queryRow(ctx context.Context, q string, args ...any) row {
	return pgQuerier{b.pool}.queryRow(ctx, q, args...)
}

// pgQuerier adapts a *pgxpool.Pool or a pgx.Tx.
type pgQuerier struct {
	c interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (q pgQuerier) exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := q.c.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (q pgQuerier) query(ctx context.Context, sql string, args ...any) (rows, error) {
	return q.c.Query(ctx, sql, args...)
}

func (q pgQuerier) queryRow(ctx context.Context, sql string, args ...any) row {
	return pgRow{q.c.QueryRow(ctx, sql, args...)}
}

type pgRow struct{ r pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoRows
	}
	return err
}

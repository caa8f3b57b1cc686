package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBusyTimeout is how long a statement waits for another connection's (or process's)
// lock before failing with SQLITE_BUSY.
const sqliteBusyTimeout = 10 * time.Second

// sqliteParams configure every connection: wait on locks, WAL (readers never block the
// writer), foreign keys, durable commits, and BEGIN IMMEDIATE for every read-write
// transaction (a transaction takes the write lock when it begins rather than failing with
// SQLITE_BUSY when it first writes after another process wrote).
var sqliteParams = "?" + strings.Join([]string{
	fmt.Sprintf("_pragma=busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()),
	"_pragma=foreign_keys(1)",
	"_pragma=journal_mode(WAL)",
	"_pragma=synchronous(FULL)",
	"_txlock=immediate",
}, "&")

// openSQLite opens (creating if needed) the SQLite database at path and migrates it.
func openSQLite(ctx context.Context, path string) (Store, error) {
	if path == "" {
		return nil, errors.New("state: empty SQLite path")
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("state: SQLite path %q: must not contain '?'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	db, err := sql.Open("sqlite", path+sqliteParams)
	if err != nil {
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	// A few connections: readers run alongside the one writer that WAL allows.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	b := &sqliteBackend{db: db, writer: make(chan struct{}, 1)}
	s := newSQLStore(b, sqliteDialect)
	if err := s.retry(ctx, func() error { return db.PingContext(ctx) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	}
	return s, nil
}

type sqliteBackend struct {
	db *sql.DB
	// writer holds one token per process-local writer at work: SQLite admits one writer at
	// a time anyway, and queueing here rather than in SQLite's busy handler (which polls)
	// keeps a burst of writers fair and quick. Other processes still wait in the handler.
	writer chan struct{}
}

func (b *sqliteBackend) lockWrites(ctx context.Context) (func(), error) {
	select {
	case b.writer <- struct{}{}:
		return func() { <-b.writer }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *sqliteBackend) retryable(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

func (b *sqliteBackend) close() error { return b.db.Close() }

func (b *sqliteBackend) inTx(ctx context.Context, fn func(querier) error) error {
	tx, err := b.db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return err
	}
	if err := fn(sqlQuerier{tx}); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (b *sqliteBackend) exec(ctx context.Context, q string, args ...any) (int64, error) {
	return sqlQuerier{b.db}.exec(ctx, q, args...)
}

func (b *sqliteBackend) query(ctx context.Context, q string, args ...any) (rows, error) {
	return sqlQuerier{b.db}.query(ctx, q, args...)
}

func (b *sqliteBackend) queryRow(ctx context.Context, q string, args ...any) row {
	return sqlQuerier{b.db}.queryRow(ctx, q, args...)
}

// sqlQuerier adapts a *sql.DB or *sql.Tx.
type sqlQuerier struct {
	c interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (q sqlQuerier) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.c.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q sqlQuerier) query(ctx context.Context, query string, args ...any) (rows, error) {
	r, err := q.c.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{r}, nil
}

func (q sqlQuerier) queryRow(ctx context.Context, query string, args ...any) row {
	return sqlRow{q.c.QueryRowContext(ctx, query, args...)}
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }

type sqlRow struct{ r *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return errNoRows
	}
	return err
}

package state

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultSQLiteFile is the name of the SQLite database in the data directory.
const DefaultSQLiteFile = "state.db"

// Open opens the store dsn names and applies the migrations it lacks:
//
//	""                          SQLite at dataDir/state.db
//	"sqlite:"                   the same
//	"sqlite:PATH"               SQLite at PATH (created if missing; "sqlite://PATH" also works)
//	"postgres://…", "postgresql://…"
//	                            PostgreSQL, a libpq URL such as
//	                            postgres://user:password@host:5432/dbname?sslmode=disable
//
// Several processes may open the same database at once.
func Open(ctx context.Context, dsn, dataDir string) (Store, error) {
	switch {
	case dsn == "" || strings.HasPrefix(dsn, "sqlite:"):
		return openSQLite(ctx, sqlitePath(dsn, dataDir))
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		return openPostgres(ctx, dsn)
	}
	what := "state DSN"
	if i := strings.IndexAny(dsn, ":="); i > 0 && dsn[i] == ':' {
		// Only the scheme: the rest may hold a password.
		what = fmt.Sprintf("state DSN scheme %q", dsn[:i])
	}
	return nil, fmt.Errorf("state: unsupported %s: want \"\" or \"sqlite:\" (SQLite at <data dir>/%s), \"sqlite:PATH\", or \"postgres://…\" / \"postgresql://…\" (PostgreSQL)",
		what, DefaultSQLiteFile)
}

// sqlitePath is the database file a "" or "sqlite:…" DSN names.
func sqlitePath(dsn, dataDir string) string {
	p := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
	if p != "" {
		return p
	}
	if dataDir == "" {
		dataDir = "."
	}
	return filepath.Join(dataDir, DefaultSQLiteFile)
}

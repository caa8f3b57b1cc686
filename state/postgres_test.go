package state

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresEnv names the variable holding the DSN of a PostgreSQL role that may create
// databases; .ci/postgres.sh starts a server and prints it. Each test gets a database of
// its own, dropped when the test ends.
const postgresEnv = "CITEQ_TEST_POSTGRES"

func postgresAdminDSN(t *testing.T) string {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("PostgreSQL tests skipped: %s is not set (to run them: eval \"$(.ci/postgres.sh)\")", postgresEnv)
	}
	return dsn
}

// postgresOpener opens stores on a fresh database per test.
func postgresOpener(admin string) opener {
	return openWith(func(t *testing.T) (string, string, error) {
		u, err := url.Parse(admin)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", postgresEnv, err)
		}
		name, err := randomHex(16)
		if err != nil {
			return "", "", err
		}
		name = "citeq_test_" + name
		if err := postgresAdmin(admin, "CREATE DATABASE "+name); err != nil {
			return "", "", err
		}
		t.Cleanup(func() {
			if err := postgresAdmin(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
				t.Errorf("drop test database: %v", err)
			}
		})
		u.Path = "/" + name
		q := u.Query()
		q.Set("pool_max_conns", "8")
		u.RawQuery = q.Encode()
		return u.String(), "", nil
	})
}

// postgresAdmin runs one statement on the admin DSN's database.
func postgresAdmin(admin, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", postgresEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

func TestPostgres(t *testing.T) {
	runSuite(t, postgresOpener(postgresAdminDSN(t)))
}

func TestPostgresTimes(t *testing.T) {
	s := mustOpen(t, postgresOpener(postgresAdminDSN(t)))
	ctx := ctxT(t)
	var typ string
	if err := s.(*sqlStore).b.queryRow(ctx, `SELECT data_type FROM information_schema.columns
		WHERE table_name = 'deliveries' AND column_name = 'next_attempt'`).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	if typ != "timestamp with time zone" {
		t.Errorf("deliveries.next_attempt is %q, want timestamp with time zone", typ)
	}
}

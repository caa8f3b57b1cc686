package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PostgresEnv names the variable holding the DSN of a PostgreSQL server for tests.
const PostgresEnv = "CITEQ_TEST_POSTGRES"

// StateDSNs returns the state stores a test suite runs against: "sqlite" always, and
// "postgres" with a fresh database of its own when CITEQ_TEST_POSTGRES is set.
func StateDSNs(t *testing.T) map[string]func(t *testing.T) string {
	out := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "" },
	}
	if os.Getenv(PostgresEnv) != "" {
		out["postgres"] = FreshPostgres
	} else {
		t.Logf("%s is not set: PostgreSQL cases skipped (.ci/postgres.sh starts one)", PostgresEnv)
	}
	return out
}

// FreshPostgres creates an empty database on the CITEQ_TEST_POSTGRES server, dropped when
// the test ends, and returns its DSN.
func FreshPostgres(t *testing.T) string {
	t.Helper()
	admin := os.Getenv(PostgresEnv)
	if admin == "" {
		t.Skipf("%s not set", PostgresEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect %s: %v", PostgresEnv, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "citeq_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

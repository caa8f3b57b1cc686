// Command duckdb-bench is the DuckDB side of citeq-bench: it runs a job of SQL queries over
// one Parquet file in an in-process DuckDB and prints each query's result rows and the wall
// time of each timed run. It is its own Go module (cgo, DuckDB's bundled static library), so
// citeq itself stays pure Go; citeq-bench builds it once into bench/.cache/ and runs it with
// the job on stdin.
//
// Job (stdin):
//
//	{"parquet": "/path/facts.parquet", "threads": 2, "runs": 7, "warmup": 2, "table": false,
//	 "queries": [{"name": "total", "sql": "SELECT count(*) FROM {facts}"}]}
//
// Every occurrence of {facts} in a query is replaced by read_parquet('<parquet>'): queries
// read the Parquet file directly, so decoding it is part of every run. With table the
// program first creates an in-memory table, CREATE TABLE facts AS SELECT * FROM the file
// (timed once: DuckDB's counterpart of citeq's load), and {facts} stands for that table.
//
// Result (stdout): {"duckdb_version", "threads", "load_table_ns", "queries": [{"name",
// "columns", "rows", "runs_ns"}]}. A run is QueryContext, scanning every row of the result
// into Go values, and closing it.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	_ "github.com/marcboeker/go-duckdb" // registers the "duckdb" driver
)

// Job is what to run.
type Job struct {
	Parquet string  `json:"parquet"`
	Threads int     `json:"threads"`
	Runs    int     `json:"runs"`
	Warmup  int     `json:"warmup"`
	Table   bool    `json:"table"`
	Queries []Query `json:"queries"`
}

// Query is one named SQL statement.
type Query struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// Output is what was measured.
type Output struct {
	Version     string   `json:"duckdb_version"`
	Threads     int      `json:"threads"`
	LoadTableNs int64    `json:"load_table_ns,omitempty"`
	Queries     []Result `json:"queries"`
}

// Result is one query's answer (of the last run) and the wall time of every timed run.
type Result struct {
	Name    string   `json:"name"`
	SQL     string   `json:"sql"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	RunsNs  []int64  `json:"runs_ns"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb-bench:", err)
		os.Exit(1)
	}
}

func run() error {
	var job Job
	dec := json.NewDecoder(os.Stdin)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&job); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	if job.Parquet == "" || job.Threads < 1 || job.Runs < 1 || job.Warmup < 0 {
		return fmt.Errorf("job needs parquet, threads >= 1, runs >= 1, warmup >= 0")
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: the settings below hold for every query
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, fmt.Sprintf("SET threads = %d", job.Threads)); err != nil {
		return err
	}
	out := Output{Threads: job.Threads}
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&out.Version); err != nil {
		return err
	}
	facts := "read_parquet('" + strings.ReplaceAll(job.Parquet, "'", "''") + "')"
	if job.Table {
		start := time.Now()
		if _, err := db.ExecContext(ctx, "CREATE TABLE facts AS SELECT * FROM "+facts); err != nil {
			return fmt.Errorf("load table: %w", err)
		}
		out.LoadTableNs = time.Since(start).Nanoseconds()
		facts = "facts"
	}
	for _, q := range job.Queries {
		stmt := strings.ReplaceAll(q.SQL, "{facts}", facts)
		res := Result{Name: q.Name, SQL: stmt}
		for i := 0; i < job.Warmup+job.Runs; i++ {
			start := time.Now()
			cols, rows, err := query(ctx, db, stmt)
			d := time.Since(start)
			if err != nil {
				return fmt.Errorf("query %s: %w", q.Name, err)
			}
			if i >= job.Warmup {
				res.RunsNs = append(res.RunsNs, d.Nanoseconds())
			}
			res.Columns, res.Rows = cols, rows
		}
		out.Queries = append(out.Queries, res)
	}
	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(out)
}

// query runs stmt and reads every row of its result.
func query(ctx context.Context, db *sql.DB, stmt string) ([]string, [][]any, error) {
	rs, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range row {
			row[i] = jsonValue(v)
		}
		out = append(out, row)
	}
	return cols, out, rs.Err()
}

// jsonValue turns a scanned DuckDB value into one JSON writes faithfully: numbers stay
// numbers (integers as integers), dates become ISO text, anything else its text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, float64, float32, int64, int32, int16, int8, uint64, uint32, uint16, uint8, int, uint:
		return x
	case *big.Int:
		return x.String()
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format(time.RFC3339Nano)
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

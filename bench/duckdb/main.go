// Command duckdb-bench is the DuckDB side of citeq-bench: it runs a job of SQL queries over
// one Parquet file in an in-process DuckDB and prints each query's result rows and the wall
// time of each timed run. It is its own Go module (cgo, DuckDB's bundled static library), so
// citeq itself stays pure Go; citeq-bench builds it once into bench/.cache/ and runs it with
// the job on stdin.
//
// Job (stdin):
//
//	{"parquet": "/path/facts.parquet", "threads": 2, "runs": 7, "warmup": 2, "table": false,
//	 "columns": ["state", "nameplate_mw"], "memory_limit": "8000MB",
//	 "temp_directory": "/path/tmp",
//	 "queries": [{"name": "total", "statements": ["SELECT count(*) FROM {facts}"]}]}
//
// Every occurrence of {facts} in a statement is replaced by read_parquet('<parquet>'):
// queries read the Parquet file directly, so decoding it is part of every run. With table
// the program first creates an in-memory table, CREATE TABLE facts AS SELECT <columns> FROM
// the file (every column when columns is empty; timed once: DuckDB's counterpart of citeq's
// load), and {facts} stands for that table. With database set as well, the table is created
// in a DuckDB database file at that path instead of in memory (the file is replaced, and
// removed at the end), and a CHECKPOINT, timed with the CREATE TABLE, writes it in DuckDB's
// compressed storage; queries read it through DuckDB's buffer manager, which keeps it in
// memory as far as memory_limit allows. memory_limit and temp_directory, when set, are
// DuckDB's settings of the same names: what does not fit the limit is spilled there.
//
// A query has one or more statements, run one after the other in every run; the run's time
// is the sum of theirs (each statement's time is reported too).
//
// Result (stdout): {"duckdb_version", "threads", "memory_limit", "table_columns",
// "load_table_ns", "table_memory", "end_memory", "queries": [{"name", "statements": [{"sql",
// "columns", "rows", "runs_ns"}], "runs_ns"}]}; the memory members are duckdb_memory()
// summed: {"memory_usage_bytes", "temporary_storage_bytes"}. A statement's run is
// QueryContext, scanning every row of the result into Go values, and closing it.
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
	Parquet string `json:"parquet"`
	Threads int    `json:"threads"`
	Runs    int    `json:"runs"`
	Warmup  int    `json:"warmup"`
	Table   bool   `json:"table"`
	// Columns are the columns of the in-memory table, every column of the file when empty.
	Columns []string `json:"columns,omitempty"`
	// MemoryLimit and TempDirectory set DuckDB's memory_limit and temp_directory; empty
	// keeps DuckDB's default.
	MemoryLimit   string `json:"memory_limit,omitempty"`
	TempDirectory string `json:"temp_directory,omitempty"`
	// Database is the DuckDB database file the table is created in (with Table); empty: an
	// in-memory database.
	Database string  `json:"database,omitempty"`
	Queries  []Query `json:"queries"`
}

// Query is one named question: its statements are run in order, and a run of the query is
// a run of each.
type Query struct {
	Name       string   `json:"name"`
	Statements []string `json:"statements"`
}

// Output is what was measured.
type Output struct {
	Version      string   `json:"duckdb_version"`
	Threads      int      `json:"threads"`
	MemoryLimit  string   `json:"memory_limit"`
	TableColumns []string `json:"table_columns,omitempty"`
	LoadTableNs  int64    `json:"load_table_ns,omitempty"`
	// TableMemory is DuckDB's own account of its memory right after creating the table, and
	// EndMemory after the last query: what its buffer manager holds in memory and what it
	// has spilled to the temporary directory.
	TableMemory *Memory  `json:"table_memory,omitempty"`
	EndMemory   *Memory  `json:"end_memory,omitempty"`
	Queries     []Result `json:"queries"`
}

// Memory is the sum of duckdb_memory(): bytes in memory, and bytes in temporary storage.
type Memory struct {
	Bytes     int64 `json:"memory_usage_bytes"`
	TempBytes int64 `json:"temporary_storage_bytes"`
}

// Result is one query's answer (of the last run) and the wall time of every timed run: the
// sum of its statements' times.
type Result struct {
	Name       string      `json:"name"`
	Statements []Statement `json:"statements"`
	RunsNs     []int64     `json:"runs_ns"`
}

// Statement is one statement's answer (of the last run) and the wall time of its timed runs.
type Statement struct {
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
	dsn := ""
	if job.Table && job.Database != "" {
		dsn = job.Database
		removeDatabase(dsn)
		defer removeDatabase(dsn)
	}
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		return fmt.Errorf("open duckdb: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: the settings below hold for every query
	ctx := context.Background()
	settings := []string{fmt.Sprintf("SET threads = %d", job.Threads)}
	if job.MemoryLimit != "" {
		settings = append(settings, "SET memory_limit = "+quote(job.MemoryLimit))
	}
	if job.TempDirectory != "" {
		settings = append(settings, "SET temp_directory = "+quote(job.TempDirectory))
	}
	for _, s := range settings {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	out := Output{Threads: job.Threads}
	if err := db.QueryRowContext(ctx, "SELECT version(), current_setting('memory_limit')").Scan(&out.Version, &out.MemoryLimit); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	facts := "read_parquet(" + quote(job.Parquet) + ")"
	if job.Table {
		cols := "*"
		if len(job.Columns) > 0 {
			quoted := make([]string, len(job.Columns))
			for i, c := range job.Columns {
				quoted[i] = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			cols = strings.Join(quoted, ", ")
			out.TableColumns = job.Columns
		}
		start := time.Now()
		if _, err := db.ExecContext(ctx, "CREATE TABLE facts AS SELECT "+cols+" FROM "+facts); err != nil {
			return fmt.Errorf("load table: %w", err)
		}
		if dsn != "" {
			if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
				return fmt.Errorf("load table: checkpoint: %w", err)
			}
		}
		out.LoadTableNs = time.Since(start).Nanoseconds()
		facts = "facts"
		if out.TableMemory, err = memory(ctx, db); err != nil {
			return err
		}
	}
	for _, q := range job.Queries {
		if len(q.Statements) == 0 {
			return fmt.Errorf("query %s has no statements", q.Name)
		}
		res := Result{Name: q.Name, Statements: make([]Statement, len(q.Statements))}
		for i, s := range q.Statements {
			res.Statements[i].SQL = strings.ReplaceAll(s, "{facts}", facts)
		}
		for i := 0; i < job.Warmup+job.Runs; i++ {
			var total int64
			for si := range res.Statements {
				st := &res.Statements[si]
				start := time.Now()
				cols, rows, err := query(ctx, db, st.SQL)
				d := time.Since(start).Nanoseconds()
				if err != nil {
					return fmt.Errorf("query %s, statement %d: %w", q.Name, si+1, err)
				}
				if i >= job.Warmup {
					st.RunsNs = append(st.RunsNs, d)
				}
				st.Columns, st.Rows = cols, rows
				total += d
			}
			if i >= job.Warmup {
				res.RunsNs = append(res.RunsNs, total)
			}
		}
		out.Queries = append(out.Queries, res)
	}
	if out.EndMemory, err = memory(ctx, db); err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	return enc.Encode(out)
}

// memory is DuckDB's account of its memory (duckdb_memory(), summed over its tags).
func memory(ctx context.Context, db *sql.DB) (*Memory, error) {
	var m Memory
	err := db.QueryRowContext(ctx, "SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT, coalesce(sum(temporary_storage_bytes), 0)::BIGINT FROM duckdb_memory()").Scan(&m.Bytes, &m.TempBytes)
	if err != nil {
		return nil, fmt.Errorf("duckdb_memory: %w", err)
	}
	return &m, nil
}

// removeDatabase removes a DuckDB database file and its write-ahead log.
func removeDatabase(path string) {
	os.Remove(path)
	os.Remove(path + ".wal")
}

// quote is s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

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

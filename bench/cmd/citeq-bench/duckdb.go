package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/citeq/citeq/capability"
)

// duckJob is the job bench/duckdb runs (see bench/duckdb/main.go).
type duckJob struct {
	Parquet       string      `json:"parquet"`
	Threads       int         `json:"threads"`
	Runs          int         `json:"runs"`
	Warmup        int         `json:"warmup"`
	Table         bool        `json:"table"`
	Columns       []string    `json:"columns,omitempty"`
	MemoryLimit   string      `json:"memory_limit,omitempty"`
	TempDirectory string      `json:"temp_directory,omitempty"`
	Database      string      `json:"database,omitempty"`
	Queries       []duckQuery `json:"queries"`
}

type duckQuery struct {
	Name       string   `json:"name"`
	Statements []string `json:"statements"`
}

// duckStatement is one statement's answer and timed runs.
type duckStatement struct {
	SQL     string   `json:"sql"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	RunsNs  []int64  `json:"runs_ns"`
}

// duckOutput is what bench/duckdb prints, and the child's peak resident set.
type duckOutput struct {
	Version      string      `json:"duckdb_version"`
	Threads      int         `json:"threads"`
	MemoryLimit  string      `json:"memory_limit"`
	TableColumns []string    `json:"table_columns"`
	LoadTableNs  int64       `json:"load_table_ns"`
	TableMemory  *duckMemory `json:"table_memory"`
	EndMemory    *duckMemory `json:"end_memory"`
	Queries      []struct {
		Name       string          `json:"name"`
		Statements []duckStatement `json:"statements"`
		RunsNs     []int64         `json:"runs_ns"`
	} `json:"queries"`
	PeakRSSBytes int64 `json:"-"`
}

// duckMemory is DuckDB's account of its memory: in memory, and spilled to temporary storage.
type duckMemory struct {
	Bytes     int64 `json:"memory_usage_bytes"`
	TempBytes int64 `json:"temporary_storage_bytes"`
}

// duckSettings are the DuckDB settings of a run: the table's columns (nil: every column),
// the memory limit and spill directory (empty: DuckDB's defaults), and where the table is
// kept: TableStorage "memory" (an in-memory database) or "file" (a database file in the
// spill directory, compressed by DuckDB's storage).
type duckSettings struct {
	Columns       []string
	AllColumns    bool // Columns nil: the table holds every column
	MemoryLimit   string
	TempDirectory string
	TableStorage  string
}

// sqlLiteral matches an SQL string literal; sqlIdent an identifier, bare or double-quoted;
// sqlStar a select list of every column (SELECT *, SELECT DISTINCT *, t.*).
var (
	sqlLiteral = regexp.MustCompile(`'(?:[^']|'')*'`)
	sqlIdent   = regexp.MustCompile(`"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*`)
	sqlStar    = regexp.MustCompile(`(?i)\bselect\s+(?:distinct\s+)?\*|\.\*`)
)

// tableColumns derives the projection of DuckDB's in-memory table from the queries' SQL: the
// fact table columns (cols, in table order) that some statement names outside string
// literals, or nil (every column) when a statement selects *. A word that names a column in
// another role (an alias, say) only adds a column the table did not need.
func tableColumns(qs []Query, cols []capability.Field) []string {
	named := map[string]bool{}
	for _, q := range qs {
		for _, s := range q.statements() {
			s = sqlLiteral.ReplaceAllString(s, "''")
			if sqlStar.MatchString(s) {
				return nil
			}
			for _, id := range sqlIdent.FindAllString(s, -1) {
				if strings.HasPrefix(id, `"`) {
					id = strings.ReplaceAll(id[1:len(id)-1], `""`, `"`)
				}
				named[strings.ToLower(id)] = true
			}
		}
	}
	var out []string
	for _, f := range cols {
		if named[strings.ToLower(f.Name)] {
			out = append(out, f.Name)
		}
	}
	return out
}

// autoMemoryLimit is DuckDB's memory_limit when none is given: half of the memory available
// when DuckDB starts (MemAvailable), at least 1 GB, so DuckDB spills to its temporary
// directory before it crowds out the rest of the machine; empty when it is unknown.
func autoMemoryLimit() string {
	avail := procKB("/proc/meminfo", "MemAvailable")
	if avail <= 0 {
		return ""
	}
	return fmt.Sprintf("%dMB", max(avail/2/1e6, 1000))
}

// duckRowBytes is about what a row of the queries' columns takes in DuckDB's uncompressed
// in-memory table (measured: 168 MiB at 1M rows).
const duckRowBytes = 176

// autoStorage is where DuckDB keeps a table of rows rows under --duckdb-table-storage auto:
// in memory when its estimated size fits in half of the memory available now (the automatic
// memory_limit), so it does not spill; else in a compressed database file.
func autoStorage(rows int) string {
	if avail := procKB("/proc/meminfo", "MemAvailable"); avail > 0 && int64(rows)*duckRowBytes > avail/2 {
		return "file"
	}
	return "memory"
}

// buildDuckDB builds the bench/duckdb module into cache and returns the binary. The first
// build downloads go-duckdb and compiles its cgo bindings against the bundled static DuckDB
// library (about a minute and a half); later builds come from the Go build cache.
func buildDuckDB(goCmd, root, cache string) (string, error) {
	bin := filepath.Join(cache, "duckdb-bench")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	start := time.Now()
	fmt.Printf("duckdb    building bench/duckdb into %s (the first build takes a minute or two)\n", bin)
	cmd := exec.Command(goCmd, "build", "-o", bin, ".")
	cmd.Dir = filepath.Join(root, "bench", "duckdb")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build bench/duckdb: %w", err)
	}
	fmt.Printf("duckdb    built in %s\n", fmtDuration(time.Since(start)))
	return bin, nil
}

// newDuckJob is the job that runs the queries on DuckDB over parquet (read directly, or
// loaded into a table first), with the settings set.
func newDuckJob(qs []Query, parquet string, threads, warmup, runs int, table bool, set duckSettings) (*duckJob, error) {
	job := &duckJob{Parquet: parquet, Threads: threads, Runs: runs, Warmup: warmup, Table: table,
		MemoryLimit: set.MemoryLimit, TempDirectory: set.TempDirectory}
	if table {
		job.Columns = set.Columns
		if set.TableStorage == "file" {
			job.Database = filepath.Join(set.TempDirectory, "facts.duckdb")
		}
	}
	if job.MemoryLimit == "auto" {
		job.MemoryLimit = autoMemoryLimit()
	}
	if job.TempDirectory != "" {
		if err := os.MkdirAll(job.TempDirectory, 0o755); err != nil {
			return nil, fmt.Errorf("duckdb temp directory: %w", err)
		}
	}
	for _, q := range qs {
		job.Queries = append(job.Queries, duckQuery{q.Name, q.statements()})
	}
	return job, nil
}

// runDuckDB runs the queries on DuckDB over parquet (read directly, or loaded into a table
// first) and returns its output.
func runDuckDB(bin string, qs []Query, parquet string, threads, warmup, runs int, table bool, set duckSettings) (*duckOutput, error) {
	job, err := newDuckJob(qs, parquet, threads, warmup, runs, table, set)
	if err != nil {
		return nil, err
	}
	in, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, os.Stderr
	// The child's peak resident set (rusage) starts from this process's peak at the moment
	// it is started (Go starts it sharing this address space until exec), so that peak is
	// reset first: the dataset's own was recorded when its queries ended.
	resetPeakRSS()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	var out duckOutput
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("duckdb output: %w", err)
	}
	if rss, ok := childPeakRSS(cmd.ProcessState); ok {
		out.PeakRSSBytes = rss
	}
	if len(out.Queries) != len(qs) {
		return nil, fmt.Errorf("duckdb answered %d queries of %d", len(out.Queries), len(qs))
	}
	for i, q := range qs {
		if n := len(q.statements()); len(out.Queries[i].Statements) != n {
			return nil, fmt.Errorf("duckdb answered %d statements of %s's %d", len(out.Queries[i].Statements), q.Name, n)
		}
	}
	return &out, nil
}

// duckAnswer reads DuckDB's rows of q in the compared form: for a records query the record
// key and values by column name, else the first len(keys) columns as keys and the rest as
// values.
func duckAnswer(q Query, keys int, cols []string, rows [][]any) (Answer, error) {
	a := Answer{Groups: len(rows), Total: math.NaN(), Ordered: q.Records}
	if q.Records {
		idx := map[string]int{}
		for i, c := range cols {
			idx[c] = i
		}
		key, vals := q.RecordKey, q.RecordValues
		for _, c := range append([]string{key}, vals...) {
			if _, ok := idx[c]; !ok {
				return Answer{}, fmt.Errorf("no column %s in DuckDB's records", c)
			}
		}
		for _, r := range rows {
			row := Row{Keys: []string{keyText(r[idx[key]])}}
			for _, c := range vals {
				row.Vals = append(row.Vals, numValue(r[idx[c]]))
			}
			a.Rows = append(a.Rows, row)
		}
		return a, nil
	}
	for _, r := range rows {
		if len(r) < keys {
			return Answer{}, fmt.Errorf("DuckDB row of %d columns, %d keys", len(r), keys)
		}
		var row Row
		for _, v := range r[:keys] {
			row.Keys = append(row.Keys, keyText(v))
		}
		for _, v := range r[keys:] {
			row.Vals = append(row.Vals, numValue(v))
		}
		a.Rows = append(a.Rows, row)
	}
	return a, nil
}

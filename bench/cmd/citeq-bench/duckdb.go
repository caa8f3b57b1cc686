package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// duckJob is the job bench/duckdb runs (see bench/duckdb/main.go).
type duckJob struct {
	Parquet string     `json:"parquet"`
	Threads int        `json:"threads"`
	Runs    int        `json:"runs"`
	Warmup  int        `json:"warmup"`
	Table   bool       `json:"table"`
	Queries []duckStmt `json:"queries"`
}

type duckStmt struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// duckOutput is what bench/duckdb prints.
type duckOutput struct {
	Version     string `json:"duckdb_version"`
	Threads     int    `json:"threads"`
	LoadTableNs int64  `json:"load_table_ns"`
	Queries     []struct {
		Name    string   `json:"name"`
		SQL     string   `json:"sql"`
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
		RunsNs  []int64  `json:"runs_ns"`
	} `json:"queries"`
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

// runDuckDB runs the queries on DuckDB over parquet (read directly, or loaded into an
// in-memory table first) and returns its output.
func runDuckDB(bin, parquet string, threads, warmup, runs int, table bool) (*duckOutput, error) {
	job := duckJob{Parquet: parquet, Threads: threads, Runs: runs, Warmup: warmup, Table: table}
	for _, q := range queries {
		job.Queries = append(job.Queries, duckStmt{q.Name, q.SQL})
	}
	in, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	var out duckOutput
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("duckdb output: %w", err)
	}
	if len(out.Queries) != len(queries) {
		return nil, fmt.Errorf("duckdb answered %d queries of %d", len(out.Queries), len(queries))
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
		for _, c := range append([]string{recordKey}, recordValues...) {
			if _, ok := idx[c]; !ok {
				return Answer{}, fmt.Errorf("no column %s in DuckDB's records", c)
			}
		}
		for _, r := range rows {
			row := Row{Keys: []string{keyText(r[idx[recordKey]])}}
			for _, c := range recordValues {
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

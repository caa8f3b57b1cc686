package main

// Query is one benchmark question, generated from a capability's definition
// (generatedQueries) and asked of its real snapshot and its scale-ups by every system: the
// service takes Body, the engine path does the service's engine work, DuckDB runs SQL.
type Query struct {
	Name string `json:"name"`
	// Path is the capability path; Body the JSON params object, exactly as POST
	// /v1/<path>/query takes it.
	Path string `json:"path"`
	Body string `json:"body"`
	// SQL is the same question for DuckDB; {facts} stands for read_parquet of the
	// snapshot's facts.parquet. Its columns are the group keys then the values compared
	// (every metric of the capability, in its order).
	SQL string `json:"sql"`
	// SummarySQL, when set, is the rest of the service's answer that SQL does not give:
	// DuckDB runs it after SQL in every run, and the run's time is both statements'. Its one
	// row is compared with the service's summary totals (the capability's metrics, in order),
	// and the engine path, which does not compute it, is compared with SQL's time alone.
	SummarySQL string `json:"summary_sql,omitempty"`
	// Records marks a records query: the engine path reads the first Limit matched rows, and
	// the records of every system are compared in order on RecordKey and RecordValues.
	Records bool `json:"records,omitempty"`
	Limit   int  `json:"limit,omitempty"`
	// RecordKey and RecordValues are the columns a records query compares: the record key,
	// then the numeric fields the metrics read.
	RecordKey    string   `json:"record_key,omitempty"`
	RecordValues []string `json:"record_values,omitempty"`
}

// statements are the SQL statements DuckDB runs for q, in order: SQL, then SummarySQL.
func (q Query) statements() []string {
	if q.SummarySQL == "" {
		return []string{q.SQL}
	}
	return []string{q.SQL, q.SummarySQL}
}

// Ordered says the query's rows are compared in order (records, in source order).
func (q Query) Ordered() bool { return q.Records }

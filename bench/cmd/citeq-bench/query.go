package main

import (
	"fmt"
	"strings"

	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/columnar"
)

// Query is one benchmark question, asked of every dataset by every system: the service
// takes Body, the engine path runs Aggs (or the service's engine work), DuckDB runs SQL.
type Query struct {
	Name string `json:"name"`
	// Path is the capability path; Body the JSON params object, exactly as POST
	// /v1/<path>/query takes it.
	Path string `json:"path"`
	Body string `json:"body"`
	// SQL is the same question for DuckDB; {facts} stands for read_parquet of the
	// snapshot's facts.parquet. Its columns are the group keys then the values compared.
	SQL string `json:"sql"`
	// SummarySQL, when set, is the rest of the service's answer that SQL does not give:
	// DuckDB runs it after SQL in every run, and the run's time is both statements'. Its one
	// row is compared with the service's summary totals (the capability's metrics, in order),
	// and the engine path, which does not compute it, is compared with SQL's time alone.
	SummarySQL string `json:"summary_sql,omitempty"`
	// Aggs are the kernels the engine path runs per group after the filter and the
	// grouping, compared with the SQL's value columns. Without them the engine path does the
	// service's engine work (every metric over the groups and the whole set, the lineage of
	// both) and the service's rows are compared with the SQL's instead.
	Aggs []EngineAgg `json:"engine_aggs,omitempty"`
	// Records marks a records query: the engine path reads the first Limit matched rows, and
	// the records of every system are compared in order on RecordKey and RecordValues.
	Records bool `json:"records,omitempty"`
	Limit   int  `json:"limit,omitempty"`
	// RecordKey and RecordValues are the columns a records query compares (empty: recordKey
	// and recordValues, those of the hand-written scale-up queries).
	RecordKey    string   `json:"record_key,omitempty"`
	RecordValues []string `json:"record_values,omitempty"`
}

// recordColumns are the key and value columns the records query q compares.
func (q Query) recordColumns() (string, []string) {
	if q.RecordKey == "" {
		return recordKey, recordValues
	}
	return q.RecordKey, q.RecordValues
}

// EngineAgg is one aggregation kernel of the engine path.
type EngineAgg struct {
	Agg    string `json:"agg"` // sum, avg, count, count_distinct
	Column string `json:"column,omitempty"`
}

func (a EngineAgg) kernel() (columnar.Agg, error) {
	switch a.Agg {
	case "sum":
		return columnar.AggSum, nil
	case "avg":
		return columnar.AggAvg, nil
	case "count":
		return columnar.AggCount, nil
	case "count_distinct":
		return columnar.AggCountDistinct, nil
	}
	return 0, fmt.Errorf("unknown aggregation %q", a.Agg)
}

// The columns the hand-written records query compares: the record key, then values.
var (
	recordKey    = "source_record_key"
	recordValues = []string{"eia_plant_id", "nameplate_mw", "net_summer_mw"}
)

// capMetrics are the engine kernels of power.capacity's six metrics, in the capability's
// order, and capMetricsSQL the same in SQL (count distinct ignores nulls, as citeq's does).
var (
	capMetrics = []EngineAgg{{"sum", "nameplate_mw"}, {"sum", "net_summer_mw"}, {"sum", "net_winter_mw"},
		{"count", ""}, {"count_distinct", "eia_plant_id"}, {"count", ""}}
	capMetricsSQL = "sum(nameplate_mw), sum(net_summer_mw), sum(net_winter_mw), count(*), count(DISTINCT eia_plant_id), count(*)"
	oneKeyAggs    = []EngineAgg{{"sum", "nameplate_mw"}, {"avg", "nameplate_mw"}, {"count_distinct", "eia_plant_id"}}
	oneKeySQL     = "sum(nameplate_mw), avg(nameplate_mw), count(DISTINCT eia_plant_id)"
)

// queries are the hand-written questions asked of the scale-ups of benchCap (and of its real
// snapshot, the base their growth is measured from), kept so runs stay comparable with
// earlier ones; every real snapshot is also asked its generated set (generatedQueries).
// Every Aggs list starts with the sum of nameplate_mw, the service's first metric, so the
// engine's and the service's totals can be compared.
var queries = []Query{
	{
		Name: "total",
		Path: capability.PowerCapacity.Path,
		Body: `{}`,
		SQL:  "SELECT " + capMetricsSQL + " FROM {facts}",
		Aggs: capMetrics,
	},
	{
		Name: "by_state",
		Path: capability.PowerCapacity.Path,
		Body: `{"group_by":["state"]}`,
		SQL:  "SELECT state, " + oneKeySQL + " FROM {facts} GROUP BY state",
		Aggs: oneKeyAggs,
	},
	{
		Name: "by_state_technology",
		Path: capability.PowerCapacity.Path,
		Body: `{"group_by":["state","technology"]}`,
		SQL:  "SELECT state, technology, " + oneKeySQL + " FROM {facts} GROUP BY state, technology",
		Aggs: oneKeyAggs,
	},
	{
		Name: "batteries_by_state",
		Path: capability.PowerCapacity.Path,
		Body: `{"filters":{"lifecycle":"operating","technology":"Batteries"},"group_by":["state"]}`,
		SQL:  "SELECT state, " + oneKeySQL + " FROM {facts} WHERE lifecycle = 'operating' AND technology = 'Batteries' GROUP BY state",
		Aggs: oneKeyAggs,
	},
	{
		Name: "operating_by_fuel_group",
		Path: capability.PowerCapacity.Path,
		Body: `{"filters":{"lifecycle":"operating"},"group_by":["fuel_group"]}`,
		SQL:  "SELECT fuel_group, " + oneKeySQL + " FROM {facts} WHERE lifecycle = 'operating' GROUP BY fuel_group",
		Aggs: oneKeyAggs,
	},
	{
		// The service's ranking: groups by nameplate_mw descending, the first 10 kept, the
		// rest folded into (other), whose additive metrics are the sums of its members' and
		// whose distinct plant count is null (not additive).
		Name: "operating_by_state_technology_top10",
		Path: capability.PowerCapacity.Path,
		Body: `{"filters":{"lifecycle":"operating"},"group_by":["state","technology"],"order_by":"nameplate_mw","top_n":10}`,
		SQL: `WITH f AS (SELECT state, technology, nameplate_mw, net_summer_mw, net_winter_mw, eia_plant_id FROM {facts} WHERE lifecycle = 'operating'),
g AS (SELECT state, technology, row_number() OVER (ORDER BY sum(nameplate_mw) DESC NULLS LAST) <= 10 AS top FROM f GROUP BY state, technology)
SELECT CASE WHEN g.top THEN f.state ELSE '(other)' END, CASE WHEN g.top THEN f.technology ELSE '(other)' END,
 sum(nameplate_mw), sum(net_summer_mw), sum(net_winter_mw), count(*), CASE WHEN bool_and(g.top) THEN count(DISTINCT eia_plant_id) END, count(*)
FROM f JOIN g ON f.state IS NOT DISTINCT FROM g.state AND f.technology IS NOT DISTINCT FROM g.technology
GROUP BY 1, 2`,
	},
	{
		// The service answers with the first 100 records and the summary totals of every
		// metric over every matched row; DuckDB is asked both. Its records carry the columns
		// compared (the key and values below), not every field: reading more fields of 100
		// rows is noise next to the totals over every row, and it keeps the other fields out
		// of DuckDB's in-memory table.
		Name:       "records_limit100",
		Path:       capability.PowerCapacity.Path,
		Body:       `{"include_records":true,"limit":100}`,
		SQL:        "SELECT " + strings.Join(append([]string{recordKey}, recordValues...), ", ") + " FROM {facts} LIMIT 100",
		SummarySQL: "SELECT " + capMetricsSQL + " FROM {facts}",
		Records:    true,
		Limit:      100,
	},
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

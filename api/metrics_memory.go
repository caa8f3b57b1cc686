package api

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/citeq/citeq/columnar"
)

// memoryCollector exposes the tables' memory budget (columnar.Memory): what the decoded
// columns, the indexes kept with them and the open files' metadata are charged, the limit,
// and how many were decoded and dropped.
type memoryCollector struct{}

var (
	memoryUsedDesc  = prometheus.NewDesc("citeq_tables_memory_bytes", "Bytes the snapshots' decoded columns, the indexes kept with them and their open files' metadata are charged against the memory budget.", nil, nil)
	memoryLimitDesc = prometheus.NewDesc("citeq_tables_memory_limit_bytes", "The tables' share of the memory budget (0: no bound).", nil, nil)
	memoryLoadDesc  = prometheus.NewDesc("citeq_tables_loads_total", "Columns, indexes and files made resident (decoded, opened or taken back).", nil, nil)
	memoryEvictDesc = prometheus.NewDesc("citeq_tables_evictions_total", "Columns, indexes and files dropped, least recently used first, to stay within the memory budget.", nil, nil)
)

func (memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- memoryUsedDesc
	ch <- memoryLimitDesc
	ch <- memoryLoadDesc
	ch <- memoryEvictDesc
}

func (memoryCollector) Collect(ch chan<- prometheus.Metric) {
	m := columnar.Memory()
	ch <- prometheus.MustNewConstMetric(memoryUsedDesc, prometheus.GaugeValue, float64(m.Used))
	ch <- prometheus.MustNewConstMetric(memoryLimitDesc, prometheus.GaugeValue, float64(m.Limit))
	ch <- prometheus.MustNewConstMetric(memoryLoadDesc, prometheus.CounterValue, float64(m.Loads))
	ch <- prometheus.MustNewConstMetric(memoryEvictDesc, prometheus.CounterValue, float64(m.Evictions))
}

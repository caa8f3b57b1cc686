package freshness

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/citeq/citeq/capability"
)

var (
	descLastSuccess = prometheus.NewDesc("citeq_sync_last_success_timestamp_seconds",
		"When the last check of a source that did not fail ended (Unix seconds); absent before the first.", []string{"source"}, nil)
	descLastCheck = prometheus.NewDesc("citeq_sync_last_check_timestamp_seconds",
		"When the last check of a source ended, failed or not (Unix seconds).", []string{"source"}, nil)
	descLastChange = prometheus.NewDesc("citeq_sync_last_change_timestamp_seconds",
		"When the publisher released the newest version of a source held (its Last-Modified or listing date, else when a check found it; Unix seconds).", []string{"source"}, nil)
	descNextCheck = prometheus.NewDesc("citeq_sync_next_check_timestamp_seconds",
		"When a source is checked next (Unix seconds).", []string{"source"}, nil)
	descChecks = prometheus.NewDesc("citeq_sync_checks_total",
		"Checks of a source, failed or not.", []string{"source"}, nil)
	descFailures = prometheus.NewDesc("citeq_sync_check_failures_total",
		"Failed checks of a source by reason: http_4xx, http_5xx, refused (not the file: an HTML page, the wrong kind, cut short), network, locked (another process writes the data directory), ingest, error.", []string{"source", "reason"}, nil)
	descConsecutive = prometheus.NewDesc("citeq_sync_consecutive_failures",
		"Checks of a source failed in a row (0 after a check that did not fail).", []string{"source"}, nil)
	descSourceStale = prometheus.NewDesc("citeq_sync_source_stale",
		"1 when a source is stale (its checks failed past the threshold, its publisher is overdue, or its newest version was refused), else 0.", []string{"source"}, nil)
	descCapabilityStale = prometheus.NewDesc("citeq_capability_stale",
		"1 when a capability has a stale source (its answers over the latest snapshot carry a stale note), else 0; only capabilities with a checked source.", []string{"capability"}, nil)
)

// Collector exports the loop's state as Prometheus metrics.
func (l *Loop) Collector() prometheus.Collector { return collector{l} }

type collector struct{ l *Loop }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLastSuccess, descLastCheck, descLastChange, descNextCheck, descChecks, descFailures,
		descConsecutive, descSourceStale, descCapabilityStale} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	l := c.l
	states := l.Snapshot()
	now := l.now()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	stale := map[string]bool{}
	var caps []string
	for _, b := range l.Sources {
		caps = append(caps, b.Feeds...)
		st, ok := states[b.ID]
		if !ok {
			gauge(descSourceStale, 0, b.ID)
			continue
		}
		if !st.LastSucceeded.IsZero() {
			gauge(descLastSuccess, float64(st.LastSucceeded.Unix()), b.ID)
		}
		if !st.LastChecked.IsZero() {
			gauge(descLastCheck, float64(st.LastChecked.Unix()), b.ID)
		}
		if t := st.LastChanged(); !t.IsZero() {
			gauge(descLastChange, float64(t.Unix()), b.ID)
		}
		if !st.NextCheck.IsZero() {
			gauge(descNextCheck, float64(st.NextCheck.Unix()), b.ID)
		}
		ch <- prometheus.MustNewConstMetric(descChecks, prometheus.CounterValue, float64(st.Checks), b.ID)
		for reason, n := range st.FailuresByReason {
			ch <- prometheus.MustNewConstMetric(descFailures, prometheus.CounterValue, float64(n), b.ID, reason)
		}
		gauge(descConsecutive, float64(st.Failures), b.ID)
		v := 0.0
		if judge(b, &st, now, l.staleAfter()) != "" {
			v = 1
			for _, id := range b.Feeds {
				stale[id] = true
			}
		}
		gauge(descSourceStale, v, b.ID)
	}
	slices.Sort(caps)
	for _, id := range slices.Compact(caps) {
		if capability.ByID(id) == nil {
			continue
		}
		v := 0.0
		if stale[id] {
			v = 1
		}
		gauge(descCapabilityStale, v, id)
	}
}

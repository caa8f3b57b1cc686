package api

import (
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/citeq/citeq/apierror"
	"github.com/citeq/citeq/capability"
	"github.com/citeq/citeq/service"
)

// metrics are the Prometheus series of one handler (a registry of its own, so tests and
// several handlers in one process do not collide).
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	errors    *prometheus.CounterVec
	toolCalls *prometheus.CounterVec
}

func newMetrics(svc *service.Service, extra ...prometheus.Collector) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citeq_http_requests_total", Help: "HTTP requests by route, method, status and capability.",
		}, []string{"route", "method", "status", "capability"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "citeq_http_request_duration_seconds", Help: "HTTP request latency by route and capability.",
			Buckets: []float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
		}, []string{"route", "capability"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citeq_http_errors_total", Help: "Structured error responses by route, capability and error code.",
		}, []string{"route", "capability", "code"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citeq_mcp_tool_calls_total", Help: "MCP tool calls by tool, capability and error code (empty when the call succeeded).",
		}, []string{"tool", "capability", "code"}),
	}
	snapshots := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "citeq_snapshots_served", Help: "Number of promoted snapshots being served.",
	}, func() float64 { return float64(len(svc.SnapshotsServed())) })
	m.reg.MustRegister(m.requests, m.latency, m.errors, m.toolCalls, snapshots, &snapshotCollector{svc: svc}, memoryCollector{},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(extra...)
	return m
}

// snapshotCollector exposes each served snapshot, labelled with its capability and as_of,
// valued by its row count.
type snapshotCollector struct{ svc *service.Service }

var snapshotDesc = prometheus.NewDesc("citeq_snapshot_rows", "Rows of each served snapshot, by capability and as_of.", []string{"capability", "as_of"}, nil)

func (c *snapshotCollector) Describe(ch chan<- *prometheus.Desc) { ch <- snapshotDesc }

func (c *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.svc.SnapshotsServed() {
		ch <- prometheus.MustNewConstMetric(snapshotDesc, prometheus.GaugeValue, float64(s.Table.Rows), s.Cap.ID, s.Manifest.AsOf)
	}
}

// middleware records every request once it is answered.
func (m *metrics) middleware(c *gin.Context) {
	start := time.Now()
	c.Next()
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	capID := capabilityOf(route)
	m.requests.WithLabelValues(route, c.Request.Method, strconv.Itoa(c.Writer.Status()), capID).Inc()
	m.latency.WithLabelValues(route, capID).Observe(time.Since(start).Seconds())
	if code, ok := c.Get("error_code"); ok {
		m.errors.WithLabelValues(route, capID, code.(string)).Inc()
	}
}

// tool records one MCP tool call.
func (m *metrics) tool(name, capID string, e *apierror.Error) {
	code := ""
	if e != nil {
		code = e.Code
	}
	m.toolCalls.WithLabelValues(name, capID, code).Inc()
}

func (m *metrics) handler() gin.HandlerFunc {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return gin.WrapH(h)
}

// capabilityOf names the capability a route serves ("" for the others).
func capabilityOf(route string) string {
	p := strings.TrimPrefix(route, "/v1/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/query"), "/schema")
	if c := capability.ByPath(p); c != nil {
		return c.ID
	}
	return ""
}

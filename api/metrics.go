package api

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/askbridge/askbridge/broker"
)

// Metrics counts what the broker does, in a private registry, and
// implements broker.Observer.
type Metrics struct {
	reg      *prometheus.Registry
	asked    prometheus.Counter
	resolved *prometheus.CounterVec
	latency  prometheus.Histogram
}

var _ broker.Observer = (*Metrics)(nil)

// PendingCounter counts the pending questions of the store, of every
// agent and instance (broker.Questions has it).
type PendingCounter interface {
	CountPending(ctx context.Context) (int, error)
}

// NewMetrics returns the metrics of one bridge instance. waiting reports
// the blocked waits under way; pending is read at every scrape for
// askbridge_questions_pending, so that the gauge is the store's count
// (the same on every instance sharing it), not a tally of this
// instance's asks and resolutions, which goes wrong as soon as a
// question asked on one instance is resolved on another.
func NewMetrics(waiting func() int, pending PendingCounter) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		asked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "askbridge_questions_asked_total", Help: "Questions asked on this instance.",
		}),
		resolved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "askbridge_questions_resolved_total", Help: "Questions resolved on this instance, by status.",
		}, []string{"status"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "askbridge_answer_latency_seconds",
			Help:    "Time from ask to resolution of the questions resolved on this instance.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600},
		}),
	}
	m.reg.MustRegister(m.asked, m.resolved, m.latency, newPendingCollector(pending),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "askbridge_waiters", Help: "Agents blocked waiting for an answer on this instance.",
		}, func() float64 { return float64(waiting()) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, s := range []broker.Status{broker.StatusAnswered, broker.StatusDeclined, broker.StatusCancelled, broker.StatusTimedOut, broker.StatusUnsupported} {
		m.resolved.WithLabelValues(string(s))
	}
	return m
}

// Registry returns the registry, for other packages' collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Asked counts an ask.
func (m *Metrics) Asked(*broker.Question) {
	m.asked.Inc()
}

// Resolved counts a resolution and its latency.
func (m *Metrics) Resolved(q *broker.Question) {
	m.resolved.WithLabelValues(string(q.Status)).Inc()
	m.latency.Observe(q.ResolvedAt.Sub(q.CreatedAt).Seconds())
}

// pendingScrapeTimeout bounds the count of one scrape.
const pendingScrapeTimeout = 2 * time.Second

// pendingCollector reports the store's count of pending questions at
// each scrape. While the store cannot be reached it reports nothing (an
// absent sample, not a wrong one), and the rest of the scrape goes on.
type pendingCollector struct {
	desc    *prometheus.Desc
	counter PendingCounter
}

func newPendingCollector(c PendingCounter) *pendingCollector {
	return &pendingCollector{
		desc: prometheus.NewDesc("askbridge_questions_pending",
			"Questions pending in the store, of every agent; instances sharing a store report the same count.", nil, nil),
		counter: c,
	}
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), pendingScrapeTimeout)
	defer cancel()
	n, err := c.counter.CountPending(ctx)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

package api

import (
	"net/http"

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
	pending  prometheus.Gauge
}

var _ broker.Observer = (*Metrics)(nil)

// NewMetrics returns the metrics of one bridge instance. waiting reports
// the blocked waits under way.
func NewMetrics(waiting func() int) *Metrics {
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
		pending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "askbridge_questions_pending", Help: "Questions asked on this instance and not yet resolved here.",
		}),
	}
	m.reg.MustRegister(m.asked, m.resolved, m.latency, m.pending,
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
	m.pending.Inc()
}

// Resolved counts a resolution and its latency.
func (m *Metrics) Resolved(q *broker.Question) {
	m.resolved.WithLabelValues(string(q.Status)).Inc()
	m.latency.Observe(q.ResolvedAt.Sub(q.CreatedAt).Seconds())
	m.pending.Dec()
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

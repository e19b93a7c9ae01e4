package callback

import "github.com/prometheus/client_golang/prometheus"

// metrics counts delivery outcomes on this instance. It is a
// prometheus.Collector.
type metrics struct {
	vec                        *prometheus.CounterVec
	delivered, retried, failed prometheus.Counter
}

func newMetrics() *metrics {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "askbridge_callback_deliveries_total",
		Help: "Callback delivery attempts by result: delivered (2xx), retried (will try again), failed (gave up).",
	}, []string{"result"})
	return &metrics{
		vec:       vec,
		delivered: vec.WithLabelValues("delivered"),
		retried:   vec.WithLabelValues("retried"),
		failed:    vec.WithLabelValues("failed"),
	}
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) { m.vec.Describe(ch) }

// Collect implements prometheus.Collector.
func (m *metrics) Collect(ch chan<- prometheus.Metric) { m.vec.Collect(ch) }

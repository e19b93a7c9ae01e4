package api

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/broker"
)

// outboxCollector reports the platform outbox as the store holds it,
// shared by every instance: the unfinished tasks of each channel and the
// age of the oldest. A channel with none has no series.
type outboxCollector struct {
	st         broker.PlatformOutbox
	depth, age *prometheus.Desc
}

// WatchOutbox adds the platform outbox of st to the metrics:
// askbridge_outbox_depth{channel} and askbridge_outbox_oldest_seconds{channel}.
func (m *Metrics) WatchOutbox(st broker.PlatformOutbox) {
	m.reg.MustRegister(&outboxCollector{st: st,
		depth: prometheus.NewDesc("askbridge_outbox_depth", "Platform work (posts, edits, reminders) not finished yet, per channel.", []string{"channel"}, nil),
		age:   prometheus.NewDesc("askbridge_outbox_oldest_seconds", "Age of the oldest unfinished platform work, per channel.", []string{"channel"}, nil),
	})
}

// Describe sends the descriptions of the outbox metrics.
func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.depth
	ch <- c.age
}

// Collect reads the backlog from the store; when it cannot, the series
// are left out of this scrape.
func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	bl, err := c.st.PlatformBacklog(ctx)
	if err != nil {
		return
	}
	for _, b := range bl {
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(b.Depth), b.Channel)
		ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, max(time.Since(b.Oldest).Seconds(), 0), b.Channel)
	}
}

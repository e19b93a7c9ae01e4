package callback

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/broker"
)

// Store is what a Deliverer works with: the outbox it claims deliveries
// from and records their outcomes in, and the resolution feed that wakes
// it when a resolution may have enqueued one.
type Store interface {
	broker.Outbox
	broker.Feed
}

// Deliverer sends the callback deliveries of the store's outbox. Run one
// on every bridge instance: claiming is safe across instances.
type Deliverer struct {
	st  Store
	cfg Config
	log *slog.Logger
	m   *metrics

	slots chan struct{} // one token per attempt under way
	freed chan struct{} // capacity 1: "an attempt finished"
	wg    sync.WaitGroup
}

// New returns a Deliverer for the outbox of st. Invalid settings in cfg
// (see Config.Validate) fall back to the defaults, with a warning.
func New(st Store, cfg Config, log *slog.Logger) *Deliverer {
	if log != nil {
		cfg.Logger = log
	}
	c, err := cfg.withDefaults()
	if err != nil {
		c.Logger.Warn("callback settings ignored", "err", err)
		cfg.BaseBackoff, cfg.MaxBackoff, cfg.Window, cfg.Timeout, cfg.Poll, cfg.Concurrency = 0, 0, 0, 0, 0, 0
		c, _ = cfg.withDefaults()
	}
	d := &Deliverer{
		st: st, cfg: c, log: c.Logger, m: newMetrics(),
		slots: make(chan struct{}, c.Concurrency), freed: make(chan struct{}, 1),
	}
	if c.Registerer != nil {
		if err := c.Registerer.Register(d.m); err != nil {
			d.log.Warn("callback metrics not registered", "err", err)
		}
	}
	return d
}

// Validate checks the settings of c.
func (c Config) Validate() error {
	_, err := c.withDefaults()
	return err
}

// Collector returns the delivery counters, for a Prometheus registry:
// askbridge_callback_deliveries_total{result="delivered|retried|failed"}.
func (d *Deliverer) Collector() prometheus.Collector { return d.m }

// hold is how long a claimed delivery stays invisible to other claims: long
// enough for one attempt and recording its outcome, with time to try the
// record again when the store is busy (see record). After a crash the
// delivery becomes due again when the hold ends.
func (d *Deliverer) hold() time.Duration { return 2*d.cfg.Timeout + 5*time.Second }

// Run delivers until ctx ends, then waits for the attempts under way. It
// checks the outbox every Poll, at once when a question resolves (the
// store's feed is the wake-up), and whenever an attempt finishes while
// more may be due.
func (d *Deliverer) Run(ctx context.Context) {
	defer d.wg.Wait()
	watch := d.st.Watch(ctx)
	tick := time.NewTicker(d.cfg.Poll)
	defer tick.Stop()
	for {
		d.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case _, ok := <-watch:
			if !ok {
				watch = nil
			}
		case <-tick.C:
		case <-d.freed:
		}
	}
}

// sweep claims as many due deliveries as there are free slots and starts
// an attempt for each. It returns how many it started.
func (d *Deliverer) sweep(ctx context.Context) int {
	free := cap(d.slots) - len(d.slots)
	if free == 0 || ctx.Err() != nil {
		return 0
	}
	// The claim is measured from before it is asked for: the store may
	// take a while to grant it, and the attempt must end within it.
	until := time.Now().Add(d.hold())
	claimed, err := d.st.ClaimDeliveries(ctx, d.cfg.Now(), free, d.hold())
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("callback outbox: claim failed", "err", err)
		}
		return 0
	}
	for _, del := range claimed {
		j := &job{del: del, until: until,
			log: d.log.With("delivery_id", del.ID, "question_id", del.QuestionID, "url", redact(del.URL))}
		d.slots <- struct{}{}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer d.release()
			d.attempt(ctx, j)
		}()
	}
	return len(claimed)
}

func (d *Deliverer) release() {
	<-d.slots
	select {
	case d.freed <- struct{}{}:
	default:
	}
}

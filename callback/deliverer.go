package callback

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
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
	// due is when the deliveries this instance claimed fall due again.
	due *schedule
	// more is set when the last sweep found no free slot or filled every
	// one: more may be due as soon as an attempt ends.
	more atomic.Bool
	// stored is when the earliest delivery in the store falls due, as read
	// after the last sweep (zero when unknown or none): a retry or a
	// claim of another instance.
	stored time.Time
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
		due: newSchedule(),
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
// looks at the outbox when it starts, when a question with a callback
// resolves on this instance (the store's feed says so), when a retry or
// the end of a claim of this instance falls due, when an attempt ends
// while more may be due, after the feed was interrupted, when the
// earliest delivery the store knows of falls due, and every Poll for
// deliveries another process enqueued since. Otherwise it sleeps: an
// idle bridge, or one whose questions have no callback, does not touch the
// outbox.
func (d *Deliverer) Run(ctx context.Context) {
	defer d.wg.Wait()
	watch := d.st.Watch(ctx)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// timed is set when the check is the first, or the timer's: then the
	// store is asked for its earliest due time too (a check for a
	// resolution here needs not: what it enqueued is claimed at once).
	check, timed := true, true
	for {
		if check {
			d.due.takeDue(d.cfg.Now())
			d.sweep(ctx)
			if timed {
				d.stored = d.nextStored(ctx)
			}
		}
		timed = false
		d.arm(timer)
		select {
		case <-ctx.Done():
			return
		case r, ok := <-watch:
			if !ok {
				watch = nil
			}
			check = ok && (r.Callback || r.ID == "")
		case <-timer.C:
			check, timed = true, true
		case <-d.freed:
			check = d.more.Load()
		}
	}
}

// arm sets timer to the earliest of the next scheduled delivery of this
// instance, the earliest one the store told of, and the fallback poll.
func (d *Deliverer) arm(timer *time.Timer) {
	wait := d.cfg.Poll
	now := d.cfg.Now()
	if t, ok := d.due.next(); ok {
		wait = min(wait, max(t.Sub(now), 0))
	}
	// A stored time already past is work the last claim could not take
	// (no free slot, or another instance took it): an ending attempt or
	// the poll looks again, so the loop never spins on it.
	if d.stored.After(now) {
		wait = min(wait, d.stored.Sub(now))
	}
	timer.Reset(wait)
}

// nextStored asks the store when its earliest pending delivery falls due;
// the zero time when there is none or the store fails to tell.
func (d *Deliverer) nextStored(ctx context.Context) time.Time {
	if ctx.Err() != nil {
		return time.Time{}
	}
	at, ok, err := d.st.NextDelivery(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("callback outbox: read the next due time", "err", err)
		}
		return time.Time{}
	}
	if !ok {
		return time.Time{}
	}
	return at
}

// sweep claims as many due deliveries as there are free slots and starts
// an attempt for each. It returns how many it started.
func (d *Deliverer) sweep(ctx context.Context) int {
	free := cap(d.slots) - len(d.slots)
	d.more.Store(free == 0)
	if free == 0 || ctx.Err() != nil {
		return 0
	}
	// The claim is measured from before it is asked for: the store may
	// take a while to grant it, and the attempt must end within it.
	until := time.Now().Add(d.hold())
	now := d.cfg.Now()
	claimed, err := d.st.ClaimDeliveries(ctx, now, free, d.hold())
	d.more.Store(len(claimed) == free)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("callback outbox: claim failed", "err", err)
		}
		return 0
	}
	for _, del := range claimed {
		d.due.set(del.ID, now.Add(d.hold()))
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

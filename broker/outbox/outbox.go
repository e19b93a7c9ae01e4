package outbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/due"
)

// Config tunes the delivery of platform work (posts, edits, reminders)
// from the store's outbox. Zero fields take the defaults.
type Config struct {
	// Poll is how often the outbox is checked when the store fails to
	// tell when its next task falls due, or when a task is due that the
	// last claim could not take (1 s).
	Poll time.Duration
	// MaxIdle bounds the sleep until the next due task (broker.MaxIdle):
	// a task queued by another instance sharing the store, and left
	// there, is seen within it.
	MaxIdle time.Duration
	// Concurrency bounds the attempts under way on this instance (16).
	Concurrency int
	// BaseBackoff and MaxBackoff bound the pause between attempts of one
	// task (1 s and 8 s, with jitter): a copy is posted within seconds of
	// its platform's return.
	BaseBackoff, MaxBackoff time.Duration
	// Pacing holds the sending rates per channel; a channel not named is
	// not paced. The bridge sets DefaultPacing unless configured.
	Pacing map[string]Pacing
}

func (c Config) withDefaults() Config {
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.MaxIdle <= 0 {
		c.MaxIdle = broker.MaxIdle
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 16
	}
	if c.BaseBackoff <= 0 {
		c.BaseBackoff = time.Second
	}
	if c.MaxBackoff < c.BaseBackoff {
		c.MaxBackoff = max(8*time.Second, c.BaseBackoff)
	}
	return c
}

// Store is the slice of the store the outbox uses: the questions and
// their copies it reads and records, and the platform outbox it claims
// tasks from.
type Store interface {
	broker.Lookup
	broker.Messages
	broker.PlatformOutbox
}

// Outbox carries out the platform work of the store's outbox for one
// broker: it is the broker's Deliverer. Make it with Attach.
type Outbox struct {
	b     *broker.Broker
	store Store
	cfg   Config
	log   *slog.Logger
	// postTimeout bounds one call to a channel (broker's PostTimeout).
	postTimeout time.Duration

	// updates counts the attempts under way on this instance.
	updates inflight
	// kick wakes the loop.
	kick chan struct{}
	// holds are the platforms' retry_after seen by this instance
	// (pacing.go).
	holds paceHolds
	// due tells the loop of retries due here (due.go).
	due *due.Signal
}

var _ broker.Deliverer = (*Outbox)(nil)

// Attach makes the outbox of b, delivering from st (the store b was made
// with) as cfg says, and sets it as b's Deliverer (Broker.UseDeliverer).
// Call it once, right after broker.New and before the first Ask; run it
// with Run (or b.RunOutbox), and Close b to stop it.
func Attach(b *broker.Broker, st Store, cfg Config) *Outbox {
	o := &Outbox{
		b: b, store: st, cfg: cfg.withDefaults(), log: b.Logger(), postTimeout: b.PostTimeout(),
		kick: make(chan struct{}, 1), due: due.New(),
	}
	b.UseDeliverer(o)
	return o
}

// Close refuses new attempts and waits for those under way; the tasks
// left stay in the store for the next claim.
func (o *Outbox) Close() { o.updates.closeAndWait() }

// taskHold is how long a claimed task stays invisible to other claims: one
// attempt of every copy it touches, pacing, and recording the outcome.
func (o *Outbox) taskHold() time.Duration { return 2*o.postTimeout + 10*time.Second }

// kickOutbox wakes this instance's outbox loop.
func (o *Outbox) kickOutbox() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// Run delivers the platform work of the store's outbox until ctx
// ends, then waits for the attempts under way. Run it on every instance:
// claims are safe across instances. After each claim it sleeps until the
// store's next task falls due (NextPlatformWork), MaxIdle at most, or
// Poll when the store fails to tell. It wakes at once when an attempt of this
// instance ends, and at the retry time of an attempt that left its task
// due again (noteDue), so that the retries of the direct attempts
// made as work is queued (DeliverNow) are not held up by the sleep.
func (o *Outbox) Run(ctx context.Context) {
	slots := make(chan struct{}, o.cfg.Concurrency)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// A retry noted from here on may come after the store was read
		// below: it wakes the wait.
		o.due.Take()
		if !o.claimOutbox(ctx, slots) {
			return
		}
		wake := o.nextWake(ctx)
		for sleeping := true; sleeping; {
			timer.Reset(time.Until(wake))
			select {
			case <-ctx.Done():
				return
			case <-o.kick:
				sleeping = false
			case <-timer.C:
				sleeping = false
			case <-o.due.C():
				if at := o.due.Take(); !at.IsZero() && at.Before(wake) {
					wake = at
				}
			}
		}
	}
}

// claimOutbox claims as many due tasks as there are free slots and starts
// an attempt of each; it returns false when the outbox is closing.
func (o *Outbox) claimOutbox(ctx context.Context, slots chan struct{}) bool {
	free := cap(slots) - len(slots)
	if free == 0 || ctx.Err() != nil {
		return true
	}
	tasks, err := o.store.ClaimPlatformWork(ctx, "", time.Now(), free, o.taskHold())
	if err != nil && ctx.Err() == nil {
		o.log.Warn("platform outbox: claim failed", "err", err)
	}
	for _, t := range tasks {
		if !o.updates.start() {
			return false // closing: the claim lapses and another takes it
		}
		slots <- struct{}{}
		go func() {
			defer o.updates.done()
			o.attemptTask(t)
			<-slots
			o.kickOutbox()
		}()
	}
	return true
}

// DeliverNow claims the due tasks of one question and makes one attempt of
// each at once, on this instance, without waiting for the outbox loop;
// then again while attempts leave tasks of the question due (an edit asked
// for again while one was under way). Once the first round of attempts has
// ended, the returned channel yields the tasks that round claimed (none
// when the outbox is closing) and closes: a task another claim held (this
// instance's outbox loop, another instance) is not among them.
func (o *Outbox) DeliverNow(id string) <-chan []broker.PlatformTask {
	first := make(chan []broker.PlatformTask, 1)
	if !o.updates.start() {
		// Closing: the tasks stay in the outbox for the next bridge.
		close(first)
		return first
	}
	go func() {
		defer o.updates.done()
		for round := 0; round < 8; round++ {
			ctx, cancel := context.WithTimeout(context.Background(), o.postTimeout)
			tasks, err := o.store.ClaimPlatformWork(ctx, id, time.Now(), 64, o.taskHold())
			cancel()
			if err != nil {
				o.log.Warn("platform outbox: claim failed", "question_id", id, "err", err)
				o.kickOutbox()
			}
			if len(tasks) > 0 {
				var wg sync.WaitGroup
				for _, t := range tasks {
					wg.Go(func() { o.attemptTask(t) })
				}
				wg.Wait()
			}
			if round == 0 {
				first <- tasks
				close(first)
			}
			if len(tasks) == 0 {
				return
			}
		}
		// Still renewed after every round: the loop takes it from here.
		o.kickOutbox()
	}()
	return first
}

package broker

import (
	"context"
	"sync"
	"time"
)

// OutboxConfig tunes the delivery of platform work (posts, edits,
// reminders) from the store's outbox. Zero fields take the defaults.
type OutboxConfig struct {
	// Grace is how long an ask waits for the first attempts of its posts
	// (2 s): long enough to answer unsupported when every target fails
	// for good, short enough that a slow platform never holds the agent.
	Grace time.Duration
	// Poll is how often the outbox is checked when the store fails to
	// tell when its next task falls due, or when a task is due that the
	// last claim could not take (1 s).
	Poll time.Duration
	// MaxIdle bounds the sleep until the next due task (MaxIdle): a task
	// queued by another instance sharing the store, and left there, is
	// seen within it.
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

func (c OutboxConfig) withDefaults() OutboxConfig {
	if c.Grace <= 0 {
		c.Grace = 2 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.MaxIdle <= 0 {
		c.MaxIdle = MaxIdle
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

// taskHold is how long a claimed task stays invisible to other claims: one
// attempt of every copy it touches, pacing, and recording the outcome.
func (b *Broker) taskHold() time.Duration { return 2*b.cfg.PostTimeout + 10*time.Second }

// kickOutbox wakes this instance's outbox loop.
func (b *Broker) kickOutbox() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// RunOutbox delivers the platform work of the store's outbox until ctx
// ends, then waits for the attempts under way. Run it on every instance:
// claims are safe across instances. After each claim it sleeps until the
// store's next task falls due (NextPlatformWork), MaxIdle at most, or
// Poll when the store fails to tell. It wakes at once when an attempt of this
// instance ends, and at the retry time of an attempt that left its task
// due again (outboxWake), so that the retries of the direct attempts
// made as work is queued (deliverNow) are not held up by the sleep.
func (b *Broker) RunOutbox(ctx context.Context) {
	slots := make(chan struct{}, b.ocfg.Concurrency)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		// A retry noted from here on may come after the store was read
		// below: it wakes the wait.
		b.outboxDue.take()
		if !b.claimOutbox(ctx, slots) {
			return
		}
		wake := b.nextOutboxWake(ctx)
		for sleeping := true; sleeping; {
			timer.Reset(time.Until(wake))
			select {
			case <-ctx.Done():
				return
			case <-b.kick:
				sleeping = false
			case <-timer.C:
				sleeping = false
			case <-b.outboxDue.c:
				if at := b.outboxDue.take(); !at.IsZero() && at.Before(wake) {
					wake = at
				}
			}
		}
	}
}

// claimOutbox claims as many due tasks as there are free slots and starts
// an attempt of each; it returns false when the broker is closing.
func (b *Broker) claimOutbox(ctx context.Context, slots chan struct{}) bool {
	free := cap(slots) - len(slots)
	if free == 0 || ctx.Err() != nil {
		return true
	}
	tasks, err := b.store.ClaimPlatformWork(ctx, "", time.Now(), free, b.taskHold())
	if err != nil && ctx.Err() == nil {
		b.log.Warn("platform outbox: claim failed", "err", err)
	}
	for _, t := range tasks {
		if !b.updates.start() {
			return false // closing: the claim lapses and another takes it
		}
		slots <- struct{}{}
		go func() {
			defer b.updates.done()
			b.attemptTask(t)
			<-slots
			b.kickOutbox()
		}()
	}
	return true
}

// deliverNow claims the due tasks of one question and makes one attempt of
// each at once, on this instance, without waiting for the outbox loop;
// then again while attempts leave tasks of the question due (an edit asked
// for again while one was under way). Once the first round of attempts has
// ended, the returned channel yields the tasks that round claimed (none
// when the broker is closing) and closes: a task another claim held (this
// instance's outbox loop, another instance) is not among them.
func (b *Broker) deliverNow(id string) <-chan []PlatformTask {
	first := make(chan []PlatformTask, 1)
	if !b.updates.start() {
		// Closing: the tasks stay in the outbox for the next bridge.
		close(first)
		return first
	}
	go func() {
		defer b.updates.done()
		for round := 0; round < 8; round++ {
			ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
			tasks, err := b.store.ClaimPlatformWork(ctx, id, time.Now(), 64, b.taskHold())
			cancel()
			if err != nil {
				b.log.Warn("platform outbox: claim failed", "question_id", id, "err", err)
				b.kickOutbox()
			}
			if len(tasks) > 0 {
				var wg sync.WaitGroup
				for _, t := range tasks {
					wg.Go(func() { b.attemptTask(t) })
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
		b.kickOutbox()
	}()
	return first
}

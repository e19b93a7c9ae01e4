package broker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// DefaultGrace is how long an ask waits for the first attempts of its
// posts when Config.Grace sets none.
const DefaultGrace = 2 * time.Second

// Deliverer carries out the platform work that the store's outbox holds
// (PlatformOutbox): the posts, edits and reminders that Create, Resolve
// and the progress of a question queue. The package broker/outbox is the
// one implementation; the application wires it with UseDeliverer. The
// broker reaches it only through these methods and never imports it.
type Deliverer interface {
	// Run claims due tasks and attempts them until ctx ends, then waits
	// for the attempts under way. It runs on every instance.
	Run(ctx context.Context)
	// DeliverNow claims the due tasks of question id and attempts them at
	// once, without waiting for Run. Once the first round of attempts has
	// ended, the returned channel yields the tasks that round claimed and
	// closes; it closes with none when the delivery is closing.
	DeliverNow(id string) <-chan []PlatformTask
	// Close refuses new attempts and waits for those under way; what is
	// left stays in the store for the next claim.
	Close()
}

// UseDeliverer sets what carries out the platform work of this broker.
// Call it once, before Run and before the first Ask. A broker without
// one leaves its platform tasks queued in the store, for the outbox of
// another instance sharing it.
func (b *Broker) UseDeliverer(d Deliverer) { b.delivery = d }

// RunOutbox runs the delivery's loop (Deliverer.Run) until ctx ends; with
// no delivery set it waits for ctx.
func (b *Broker) RunOutbox(ctx context.Context) {
	if b.delivery == nil {
		<-ctx.Done()
		return
	}
	b.delivery.Run(ctx)
}

// deliverNow attempts the due tasks of question id at once
// (Deliverer.DeliverNow); with no delivery set the returned channel is
// closed with none.
func (b *Broker) deliverNow(id string) <-chan []PlatformTask {
	if b.delivery == nil {
		c := make(chan []PlatformTask)
		close(c)
		return c
	}
	return b.delivery.DeliverNow(id)
}

// PostTimeout returns the bound of one call to a channel
// (Config.PostTimeout).
func (b *Broker) PostTimeout() time.Duration { return b.cfg.PostTimeout }

// Logger returns the broker's logger.
func (b *Broker) Logger() *slog.Logger { return b.log }

// UnsupportedIfNoTarget resolves a pending question as unsupported when
// the post to every one of its targets failed for good, with the reason
// of each (an in-process copy never fails so). The outbox calls it when
// a post fails for good; an ask whose posts failed so calls it before it
// answers.
func (b *Broker) UnsupportedIfNoTarget(ctx context.Context, id string) {
	if q, err := b.store.Get(ctx, id); err == nil {
		if local, _ := b.splitTargets(q.Targets); len(local) > 0 {
			return // its in-process copies are posted
		}
	}
	tasks, err := b.store.PlatformWork(ctx, id)
	if err != nil {
		b.log.Warn("platform outbox: list tasks", "question_id", id, "err", err)
		return
	}
	var reasons []string
	for _, x := range tasks {
		if x.Kind != TaskPost {
			continue
		}
		if x.State != TaskFailed {
			return
		}
		reason := x.ErrorLine()
		if x.ErrorClass == FailPermanent {
			reason = x.LastError // "unsupported" says that it is for good
		}
		reasons = append(reasons, x.Target.String()+": "+reason)
	}
	if len(reasons) == 0 {
		return
	}
	_, err = b.Resolve(ctx, id, Resolution{Status: StatusUnsupported, Reason: "no channel could take the question: " + strings.Join(reasons, "; ")})
	if err != nil && !errors.Is(err, ErrClosed) {
		b.log.Error("resolve unsupported", "question_id", id, "err", err)
	}
}

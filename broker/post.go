package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// post sends q to every target of its route in parallel and remembers each
// posted copy. When no copy could be posted, q is resolved as unsupported.
func (b *Broker) post(ctx context.Context, q *Question) *Question {
	if _, ok := b.cfg.Routes[q.Route]; !ok {
		return b.unsupported(ctx, q, fmt.Sprintf("no route named %q is configured", q.Route))
	}
	if len(q.Targets) == 0 {
		return b.unsupported(ctx, q, fmt.Sprintf("route %q has no targets", q.Route))
	}
	errs := make([]error, len(q.Targets))
	var wg sync.WaitGroup
	for i, t := range q.Targets {
		wg.Go(func() { errs[i] = b.postOne(ctx, q, t) })
	}
	wg.Wait()
	var failures []string
	posted := 0
	for i, err := range errs {
		t := q.Targets[i]
		if err != nil {
			failures = append(failures, t.String()+": "+err.Error())
			b.log.Warn("post failed", "question_id", q.ID, "channel", t.Channel, "chat", t.Chat, "permanent", errors.Is(err, ErrPermanent), "err", err)
			continue
		}
		posted++
	}
	if posted == 0 {
		return b.unsupported(ctx, q, "no channel could take the question: "+strings.Join(failures, "; "))
	}
	return q
}

func (b *Broker) postOne(ctx context.Context, q *Question, t Target) error {
	ch, ok := b.channels[t.Channel]
	if !ok {
		return Permanent(fmt.Errorf("channel %q is not configured", t.Channel))
	}
	pctx, cancel := context.WithTimeout(ctx, b.cfg.PostTimeout)
	defer cancel()
	ref, err := ch.Post(pctx, q, t.Chat)
	if err != nil {
		return err
	}
	ref.Channel, ref.Chat = t.Channel, t.Chat
	if ref.PostedAt.IsZero() {
		ref.PostedAt = b.cfg.Now().UTC()
	}
	if err := b.store.AddMessage(ctx, q.ID, ref); err != nil {
		// The agent reads the failures as the question's reason: the
		// store's detail is for the log.
		b.log.Error("remember posted message", "question_id", q.ID, "channel", t.Channel, "chat", t.Chat, "err", err)
		return errors.New("posted, but the bridge's store could not record the message")
	}
	return nil
}

func (b *Broker) unsupported(ctx context.Context, q *Question, reason string) *Question {
	r, err := b.Resolve(ctx, q.ID, Resolution{Status: StatusUnsupported, Reason: reason})
	if err != nil {
		b.log.Error("resolve unsupported", "question_id", q.ID, "err", err)
		return q
	}
	return r
}

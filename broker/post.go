package broker

import (
	"context"
	"fmt"
	"time"
)

// ReasonQuestionsOff is the reason of every question of an agent whose
// questions are turned off (Config.QuestionsOff): it is resolved at once as
// unsupported, and nobody is asked.
const ReasonQuestionsOff = "questions are turned off for this agent"

// post has q posted to every target of its route. The copies at
// in-process targets are posted here and now. The store queued one post
// per other target with the question; they are attempted at once, on the
// broker's own context, and q is returned as it stands once they ended or
// the grace (OutboxConfig.Grace) ran out, whichever is first: a target that
// fails for a while is retried by the outbox and the question stays
// pending. When every target fails for good, the question is resolved as
// unsupported with their reasons. Nothing here depends on ctx but the
// wait: a client hanging up leaves the posts under way.
func (b *Broker) post(ctx context.Context, q *Question) *Question {
	if b.cfg.QuestionsOff[q.Agent] {
		return b.unsupported(q, ReasonQuestionsOff)
	}
	if _, ok := b.cfg.Routes[q.Route]; !ok {
		return b.unsupported(q, fmt.Sprintf("no route named %q is configured", q.Route))
	}
	if len(q.Targets) == 0 {
		return b.unsupported(q, fmt.Sprintf("route %q has no targets: nobody is asked", q.Route))
	}
	local, remote := b.splitTargets(q.Targets)
	b.postLocal(q, local)
	if len(remote) == 0 {
		return q
	}
	done := b.deliverNow(q.ID)
	grace := time.NewTimer(b.ocfg.Grace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
	case <-ctx.Done():
		return q
	}
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.PostTimeout)
	defer cancel()
	if now, err := b.store.Get(gctx, q.ID); err == nil {
		return now
	}
	return q
}

func (b *Broker) unsupported(q *Question, reason string) *Question {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
	defer cancel()
	r, err := b.Resolve(ctx, q.ID, Resolution{Status: StatusUnsupported, Reason: reason})
	if err != nil {
		b.log.Error("resolve unsupported", "question_id", q.ID, "err", err)
		return q
	}
	return r
}

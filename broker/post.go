package broker

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/askbridge/askbridge/internal/backoff"
)

// ReasonQuestionsOff is the reason of every question of an agent whose
// questions are turned off (Config.QuestionsOff): it is resolved at once as
// unsupported, and nobody is asked.
const ReasonQuestionsOff = "questions are turned off for this agent"

// ReasonAnsweredAtTerminal is the reason of a question its agent closed
// because the person answered at the agent's own screen first (a hook's
// report of a settled prompt, a local form of bridge mcp --race-local):
// every copy shows it.
const ReasonAnsweredAtTerminal = "answered at the terminal"

// post has q posted to every target of its route. The copies at
// in-process targets are posted here and now. The store queued one post
// per other target with the question; they are attempted at once, on the
// broker's own context, and q is returned as it stands once they ended or
// the grace (Config.Grace) ran out, whichever is first: a target that
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
	grace := time.NewTimer(b.cfg.Grace)
	defer grace.Stop()
	select {
	case claimed := <-done:
		ended, failed := b.awaitOtherPosts(ctx, q.ID, remote, claimed, grace.C)
		if !ended {
			return q
		}
		if failed {
			// The attempt that failed for good resolves the question when
			// no target is left, just after recording its failure: the
			// ask does it now rather than answer before.
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.PostTimeout)
			b.UnsupportedIfNoTarget(uctx, q.ID)
			cancel()
		}
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

// awaitOtherPosts waits for the first attempts of the posts to targets
// that the ask's own round did not claim (claimed): the outbox loop of
// this instance or of another one claimed them between the question's
// creation and that round. The ask waits for those attempts as for its
// own, until grace fires: otherwise it would answer before the copy is
// posted and recorded, and answer pending where every target refuses the
// question for good. ended is false when ctx ended first; failed reports
// that one of those posts failed for good. A post's first attempt has
// ended once its task records an outcome: finished, an attempt counted,
// or put back for pacing (updated since its creation).
func (b *Broker) awaitOtherPosts(ctx context.Context, id string, targets []Target, claimed []PlatformTask, grace <-chan time.Time) (ended, failed bool) {
	var others []Target
	for _, t := range targets {
		if !slices.ContainsFunc(claimed, func(x PlatformTask) bool { return x.Kind == TaskPost && x.Target == t }) {
			others = append(others, t)
		}
	}
	// The store is read again at growing pauses (internal/backoff), from
	// a few milliseconds to a tenth of a second.
	pause := backoff.New(5*time.Millisecond, 100*time.Millisecond)
	for len(others) > 0 {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.PostTimeout)
		tasks, err := b.store.PlatformWork(rctx, id)
		cancel()
		if err != nil {
			b.log.Warn("ask: list the posts of the question", "question_id", id, "err", err)
			return true, failed
		}
		others = slices.DeleteFunc(others, func(t Target) bool {
			for _, x := range tasks {
				if x.Kind == TaskPost && x.Target == t {
					failed = failed || x.State == TaskFailed
					return TaskFinished(x.State) || x.Attempts > 0 || !x.UpdatedAt.Equal(x.CreatedAt)
				}
			}
			return true // no such task: nothing to wait for
		})
		if len(others) == 0 {
			break
		}
		select {
		case <-grace:
			return true, failed
		case <-ctx.Done():
			return false, failed
		case <-time.After(pause.Next()):
		}
	}
	return true, failed
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

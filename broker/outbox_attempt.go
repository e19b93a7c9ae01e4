package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/backoff"
)

// waitForPost is how soon an edit looks again for a copy whose post is
// still under way.
const waitForPost = time.Second

// attemptTask makes one attempt of a claimed task and records the outcome.
// It runs on the broker's own context: nothing here depends on the request
// that queued the work.
func (b *Broker) attemptTask(t PlatformTask) {
	ctx, cancel := context.WithTimeout(context.Background(), b.taskHold()-5*time.Second)
	defer cancel()
	log := b.log.With("question_id", t.QuestionID, "task", t.Kind, "channel", t.Target.Channel, "chat", t.Target.Chat)
	var q *Question
	var err error
	if t.Kind == TaskEdit {
		q, t.Gen, err = b.readForEdit(ctx, t)
	} else {
		q, err = b.store.Get(ctx, t.QuestionID)
	}
	if errors.Is(err, ErrNotFound) {
		b.finishTask(ctx, log, t, TaskDropped, "the question no longer exists")
		return
	}
	if err != nil {
		// The store is unreachable: the claim runs out and the task is
		// due again.
		log.Warn("platform outbox: read question", "err", err)
		return
	}
	ch, ok := b.channels[t.Target.Channel]
	if !ok {
		b.failTask(ctx, log, t, FailPermanent, fmt.Sprintf("channel %q is not configured", t.Target.Channel))
		return
	}
	switch t.Kind {
	case TaskPost:
		b.attemptPost(ctx, log, t, q, ch)
	case TaskEdit, TaskRemind:
		b.attemptCopies(ctx, log, t, q, ch)
	default:
		b.failTask(ctx, log, t, FailPermanent, fmt.Sprintf("unknown task kind %q", t.Kind))
	}
}

// readForEdit reads the question an edit will show, with the generation
// of the task that this showing satisfies: every request for the edit up
// to that generation came after the change it asked to show (a resolution
// queues its edits in the same step, a progress edit is queued after its
// change), so the question read after the generation shows them all. The
// attempt records its outcome under that generation rather than the one
// of its claim: an edit asked for while the attempt was being claimed,
// whose change the attempt already shows, is then not made a second time
// (a resolution would otherwise be shown twice). The generation is read
// before and after the question until both agree; when they never do, the
// one before is used, which at worst edits once more.
func (b *Broker) readForEdit(ctx context.Context, t PlatformTask) (*Question, int64, error) {
	var q *Question
	gen := t.Gen
	for range 3 {
		before, ok := b.taskGen(ctx, t)
		if !ok {
			break
		}
		var err error
		if q, err = b.store.Get(ctx, t.QuestionID); err != nil {
			return nil, t.Gen, err
		}
		gen = max(gen, before)
		if after, ok := b.taskGen(ctx, t); !ok || after == before {
			return q, gen, nil
		}
	}
	if q != nil {
		return q, gen, nil
	}
	q, err := b.store.Get(ctx, t.QuestionID)
	return q, t.Gen, err
}

// taskGen reads the generation of t's task as the store has it now.
func (b *Broker) taskGen(ctx context.Context, t PlatformTask) (int64, bool) {
	tasks, err := b.store.PlatformWork(ctx, t.QuestionID)
	if err != nil {
		return 0, false
	}
	for _, x := range tasks {
		if x.Kind == t.Kind && x.Target == t.Target {
			return x.Gen, true
		}
	}
	return 0, false
}

func (b *Broker) attemptPost(ctx context.Context, log *slog.Logger, t PlatformTask, q *Question, ch Channel) {
	if q.Status.Terminal() {
		b.finishTask(ctx, log, t, TaskDropped, "the question closed before it was posted")
		return
	}
	// The search comes before pacing: a task put back until its pacing
	// slot looks freshly recorded, which would hide that an attempt may
	// have posted before.
	ref, found, err := b.findCopy(ctx, log, t, q, ch)
	if !found && err == nil {
		if ok := b.paced(ctx, log, t); !ok {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, b.cfg.PostTimeout)
		ref, err = ch.Post(pctx, q, t.Target.Chat)
		cancel()
	}
	t.Attempts++
	if err != nil {
		b.taskFailed(ctx, log, t, err)
		return
	}
	ref.Channel, ref.Chat = t.Target.Channel, t.Target.Chat
	if ref.PostedAt.IsZero() {
		ref.PostedAt = b.cfg.Now().UTC()
	}
	if err := b.rememberCopy(ctx, q.ID, ref); err != nil {
		// Posted but not remembered: the claim runs out and the post is
		// tried again (the channels that can find their copy by the
		// question's key do so instead of posting twice).
		log.Error("platform outbox: remember posted message", "err", err)
		return
	}
	t.MessageID = ref.MessageID
	b.finishTask(ctx, log, t, TaskDone, "")
}

// rememberCopy adds ref to the question's copies unless it is there (an
// attempt repeated after a crash that found its copy again).
func (b *Broker) rememberCopy(ctx context.Context, id string, ref MessageRef) error {
	refs, err := b.store.Messages(ctx, id)
	if err != nil {
		return err
	}
	for _, m := range refs {
		if m.Channel == ref.Channel && m.Chat == ref.Chat && m.MessageID == ref.MessageID && ref.MessageID != "" {
			return nil
		}
	}
	return b.store.AddMessage(ctx, id, ref)
}

// attemptCopies edits, or reminds under, every copy of the question at
// the task's target. The question is read at the attempt, so an edit
// always shows the newest state.
func (b *Broker) attemptCopies(ctx context.Context, log *slog.Logger, t PlatformTask, q *Question, ch Channel) {
	if t.Kind == TaskRemind && q.Status != StatusPending {
		b.finishTask(ctx, log, t, TaskDropped, "the question closed before the reminder")
		return
	}
	refs, err := b.store.Messages(ctx, q.ID)
	if err != nil {
		log.Warn("platform outbox: list copies", "err", err)
		return
	}
	var mine []MessageRef
	for _, m := range refs {
		if m.Target() == t.Target {
			mine = append(mine, m)
		}
	}
	if len(mine) == 0 {
		if b.postUnderWay(ctx, q.ID, t.Target) {
			t.State, t.NextAt, t.UpdatedAt = TaskQueued, time.Now().Add(waitForPost), time.Now()
			if t.Attempts > 0 {
				t.State = TaskRetrying
			}
			b.recordTask(ctx, log, t)
			return
		}
		// The post may have ended between the two reads: its copy is
		// recorded before its task finishes, so it is there now.
		if refs, err = b.store.Messages(ctx, q.ID); err != nil {
			log.Warn("platform outbox: list copies", "err", err)
			return
		}
		for _, m := range refs {
			if m.Target() == t.Target {
				mine = append(mine, m)
			}
		}
	}
	if len(mine) == 0 {
		b.finishTask(ctx, log, t, TaskDropped, "no copy to "+string(t.Kind))
		return
	}
	rem, canRemind := ch.(Reminder)
	if t.Kind == TaskRemind && !canRemind {
		b.finishTask(ctx, log, t, TaskDropped, "the channel sends no reminders")
		return
	}
	up, canEdit := ch.(Updater)
	if t.Kind != TaskRemind && !canEdit {
		b.finishTask(ctx, log, t, TaskDropped, "the channel edits no copies")
		return
	}
	if ok := b.paced(ctx, log, t); !ok {
		return
	}
	t.Attempts++
	for _, m := range mine {
		pctx, cancel := context.WithTimeout(ctx, b.cfg.PostTimeout)
		if t.Kind == TaskRemind {
			err = rem.Remind(pctx, q, m)
		} else {
			err = up.Update(pctx, q, m)
		}
		cancel()
		if err != nil {
			b.taskFailed(ctx, log, t, err)
			return
		}
	}
	b.finishTask(ctx, log, t, TaskDone, "")
}

// postUnderWay reports whether the post to target is still to be made.
func (b *Broker) postUnderWay(ctx context.Context, id string, target Target) bool {
	tasks, err := b.store.PlatformWork(ctx, id)
	if err != nil {
		return true
	}
	for _, x := range tasks {
		if x.Kind == TaskPost && x.Target == target {
			return !TaskFinished(x.State)
		}
	}
	return false
}

// paced takes a pacing slot; when the slot is far it puts the task back
// until then, without counting an attempt, and returns false.
func (b *Broker) paced(ctx context.Context, log *slog.Logger, t PlatformTask) bool {
	at, ok, err := b.pace(ctx, t.Target)
	if err != nil {
		log.Warn("platform outbox: pacing", "err", err)
		return false
	}
	if ok {
		return true
	}
	if t.State == "" {
		t.State = TaskQueued
	}
	t.NextAt, t.UpdatedAt = at, time.Now()
	b.recordTask(ctx, log, t)
	return false
}

// taskFailed records a failed attempt, classified (Classify): a permanent
// failure ends the task, any other is retried with backoff until the
// task's deadline; a call the platform refused with a retry_after is
// retried once that has passed. The class and its text are recorded
// (PlatformTask.ErrorClass, LastError); the whole error goes to the log
// only.
func (b *Broker) taskFailed(ctx context.Context, log *slog.Logger, t PlatformTask, err error) {
	f := Classify(err)
	if f.Class == FailPermanent {
		log.Warn("platform outbox: permanent failure", "attempt", t.Attempts, "err", err)
		b.failTask(ctx, log, t, f.Class, f.Text())
		return
	}
	wait := backoff.Full(b.ocfg.BaseBackoff, b.ocfg.MaxBackoff, t.Attempts)
	if f.RetryAfter > 0 {
		// The platform said when: the next attempt takes a pacing slot
		// no earlier, and so does every other call to the chat, on
		// every instance.
		wait = f.RetryAfter
		b.holdPace(ctx, t.Target, time.Now().Add(wait))
	}
	now := time.Now()
	// The deadline is on the broker's clock, the schedule on the wall
	// clock (the store's claims compare with it).
	if b.cfg.Now().Add(wait).After(t.Deadline) {
		log.Warn("platform outbox: giving up at the deadline", "attempts", t.Attempts, "err", err)
		// Failed with a class other than permanent: GaveUp says so.
		b.failTask(ctx, log, t, f.Class, f.Text())
		return
	}
	log.Info("platform outbox: attempt failed; will retry", "attempt", t.Attempts, "err", err, "in", wait.Round(time.Millisecond))
	t.State, t.NextAt, t.UpdatedAt = TaskRetrying, now.Add(wait), now
	t.ErrorClass, t.LastError = f.Class, f.Text()
	b.recordTask(ctx, log, t)
}

// finishTask records a final state other than failed, with the reason a
// task ended without being carried out ("" when it was).
func (b *Broker) finishTask(ctx context.Context, log *slog.Logger, t PlatformTask, state, reason string) {
	t.State, t.UpdatedAt = state, time.Now()
	t.ErrorClass, t.LastError = "", reason
	b.recordTask(ctx, log, t)
}

// failTask records that t failed for good with a failure of class,
// described by text: refused for good, or given up at its deadline. A
// post that failed so may leave the question with no target at all,
// which resolves it as unsupported.
func (b *Broker) failTask(ctx context.Context, log *slog.Logger, t PlatformTask, class FailureClass, text string) {
	t.State, t.UpdatedAt = TaskFailed, time.Now()
	t.ErrorClass, t.LastError = class, text
	if b.recordTask(ctx, log, t) && t.Kind == TaskPost {
		b.unsupportedIfNoTarget(ctx, t.QuestionID)
	}
}

// unsupportedIfNoTarget resolves a pending question as unsupported when
// the post to every one of its targets failed for good (an in-process
// copy never does).
func (b *Broker) unsupportedIfNoTarget(ctx context.Context, id string) {
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

// recordTask writes the outcome; it reports whether it was recorded.
func (b *Broker) recordTask(ctx context.Context, log *slog.Logger, t PlatformTask) bool {
	ctx = context.WithoutCancel(ctx)
	for attempt := 0; ; attempt++ {
		err := b.store.UpdatePlatformWork(ctx, t)
		if err == nil {
			b.outboxWake(t)
			return true
		}
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) || attempt >= 3 {
			log.Warn("platform outbox: outcome not recorded", "err", err)
			return false
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
}

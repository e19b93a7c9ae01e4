package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

// waitForPost is how soon an edit looks again for a copy whose post is
// still under way.
const waitForPost = time.Second

// attemptTask makes one attempt of a claimed task and records the outcome.
// It runs on the outbox's own context: nothing here depends on the request
// that queued the work.
func (o *Outbox) attemptTask(t broker.PlatformTask) {
	ctx, cancel := context.WithTimeout(context.Background(), o.taskHold()-5*time.Second)
	defer cancel()
	log := o.log.With("question_id", t.QuestionID, "task", t.Kind, "channel", t.Target.Channel, "chat", t.Target.Chat)
	var q *broker.Question
	var err error
	if t.Kind == broker.TaskEdit {
		q, t.Gen, err = o.readForEdit(ctx, t)
	} else {
		q, err = o.store.Get(ctx, t.QuestionID)
	}
	if errors.Is(err, broker.ErrNotFound) {
		o.finishTask(ctx, log, t, broker.TaskDropped, "the question no longer exists")
		return
	}
	if err != nil {
		// The store is unreachable: the claim runs out and the task is
		// due again.
		log.Warn("platform outbox: read question", "err", err)
		return
	}
	ch, ok := o.b.Channel(t.Target.Channel)
	if !ok {
		o.failTask(ctx, log, t, broker.FailPermanent, fmt.Sprintf("channel %q is not configured", t.Target.Channel))
		return
	}
	switch t.Kind {
	case broker.TaskPost:
		o.attemptPost(ctx, log, t, q, ch)
	case broker.TaskEdit, broker.TaskRemind:
		o.attemptCopies(ctx, log, t, q, ch)
	default:
		o.failTask(ctx, log, t, broker.FailPermanent, fmt.Sprintf("unknown task kind %q", t.Kind))
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
func (o *Outbox) readForEdit(ctx context.Context, t broker.PlatformTask) (*broker.Question, int64, error) {
	var q *broker.Question
	gen := t.Gen
	for range 3 {
		before, ok := o.taskGen(ctx, t)
		if !ok {
			break
		}
		var err error
		if q, err = o.store.Get(ctx, t.QuestionID); err != nil {
			return nil, t.Gen, err
		}
		gen = max(gen, before)
		if after, ok := o.taskGen(ctx, t); !ok || after == before {
			return q, gen, nil
		}
	}
	if q != nil {
		return q, gen, nil
	}
	q, err := o.store.Get(ctx, t.QuestionID)
	return q, t.Gen, err
}

// taskGen reads the generation of t's task as the store has it now.
func (o *Outbox) taskGen(ctx context.Context, t broker.PlatformTask) (int64, bool) {
	tasks, err := o.store.PlatformWork(ctx, t.QuestionID)
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

func (o *Outbox) attemptPost(ctx context.Context, log *slog.Logger, t broker.PlatformTask, q *broker.Question, ch broker.Channel) {
	if q.Status.Terminal() {
		o.finishTask(ctx, log, t, broker.TaskDropped, "the question closed before it was posted")
		return
	}
	// The search comes before pacing: a task put back until its pacing
	// slot looks freshly recorded, which would hide that an attempt may
	// have posted before.
	ref, found, err := o.findCopy(ctx, log, t, q, ch)
	if !found && err == nil {
		if ok := o.paced(ctx, log, t); !ok {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, o.postTimeout)
		ref, err = ch.Post(pctx, q, t.Target.Chat)
		cancel()
	}
	t.Attempts++
	if err != nil {
		o.taskFailed(ctx, log, t, err)
		return
	}
	ref.Channel, ref.Chat = t.Target.Channel, t.Target.Chat
	if ref.PostedAt.IsZero() {
		ref.PostedAt = o.b.Now().UTC()
	}
	if err := o.rememberCopy(ctx, q.ID, ref); err != nil {
		// Posted but not remembered: the claim runs out and the post is
		// tried again (the channels that can find their copy by the
		// question's key do so instead of posting twice).
		log.Error("platform outbox: remember posted message", "err", err)
		return
	}
	t.MessageID = ref.MessageID
	o.finishTask(ctx, log, t, broker.TaskDone, "")
}

// rememberCopy adds ref to the question's copies unless it is there (an
// attempt repeated after a crash that found its copy again).
func (o *Outbox) rememberCopy(ctx context.Context, id string, ref broker.MessageRef) error {
	refs, err := o.store.Messages(ctx, id)
	if err != nil {
		return err
	}
	for _, m := range refs {
		if m.Channel == ref.Channel && m.Chat == ref.Chat && m.MessageID == ref.MessageID && ref.MessageID != "" {
			return nil
		}
	}
	return o.store.AddMessage(ctx, id, ref)
}

// attemptCopies edits, or reminds under, every copy of the question at
// the task's target. The question is read at the attempt, so an edit
// always shows the newest state.
func (o *Outbox) attemptCopies(ctx context.Context, log *slog.Logger, t broker.PlatformTask, q *broker.Question, ch broker.Channel) {
	if t.Kind == broker.TaskRemind && q.Status != broker.StatusPending {
		o.finishTask(ctx, log, t, broker.TaskDropped, "the question closed before the reminder")
		return
	}
	refs, err := o.store.Messages(ctx, q.ID)
	if err != nil {
		log.Warn("platform outbox: list copies", "err", err)
		return
	}
	var mine []broker.MessageRef
	for _, m := range refs {
		if m.Target() == t.Target {
			mine = append(mine, m)
		}
	}
	if len(mine) == 0 {
		if o.postUnderWay(ctx, q.ID, t.Target) {
			t.State, t.NextAt, t.UpdatedAt = broker.TaskQueued, time.Now().Add(waitForPost), time.Now()
			if t.Attempts > 0 {
				t.State = broker.TaskRetrying
			}
			o.recordTask(ctx, log, t)
			return
		}
		// The post may have ended between the two reads: its copy is
		// recorded before its task finishes, so it is there now.
		if refs, err = o.store.Messages(ctx, q.ID); err != nil {
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
		o.finishTask(ctx, log, t, broker.TaskDropped, "no copy to "+string(t.Kind))
		return
	}
	rem, canRemind := ch.(broker.Reminder)
	if t.Kind == broker.TaskRemind && !canRemind {
		o.finishTask(ctx, log, t, broker.TaskDropped, "the channel sends no reminders")
		return
	}
	up, canEdit := ch.(broker.Updater)
	if t.Kind != broker.TaskRemind && !canEdit {
		o.finishTask(ctx, log, t, broker.TaskDropped, "the channel edits no copies")
		return
	}
	if ok := o.paced(ctx, log, t); !ok {
		return
	}
	t.Attempts++
	for _, m := range mine {
		pctx, cancel := context.WithTimeout(ctx, o.postTimeout)
		if t.Kind == broker.TaskRemind {
			err = rem.Remind(pctx, q, m)
		} else {
			err = up.Update(pctx, q, m)
		}
		cancel()
		if err != nil {
			o.taskFailed(ctx, log, t, err)
			return
		}
	}
	o.finishTask(ctx, log, t, broker.TaskDone, "")
}

// postUnderWay reports whether the post to target is still to be made.
func (o *Outbox) postUnderWay(ctx context.Context, id string, target broker.Target) bool {
	tasks, err := o.store.PlatformWork(ctx, id)
	if err != nil {
		return true
	}
	for _, x := range tasks {
		if x.Kind == broker.TaskPost && x.Target == target {
			return !broker.TaskFinished(x.State)
		}
	}
	return false
}

// paced takes a pacing slot; when the slot is far it puts the task back
// until then, without counting an attempt, and returns false.
func (o *Outbox) paced(ctx context.Context, log *slog.Logger, t broker.PlatformTask) bool {
	at, ok, err := o.pace(ctx, t.Target)
	if err != nil {
		log.Warn("platform outbox: pacing", "err", err)
		return false
	}
	if ok {
		return true
	}
	if t.State == "" {
		t.State = broker.TaskQueued
	}
	t.NextAt, t.UpdatedAt = at, time.Now()
	o.recordTask(ctx, log, t)
	return false
}

// taskFailed records a failed attempt, classified (broker.Classify): a permanent
// failure ends the task, any other is retried with backoff until the
// task's deadline; a call the platform refused with a retry_after is
// retried once that has passed. The class and its text are recorded
// (broker.PlatformTask.ErrorClass, LastError); the whole error goes to the log
// only.
func (o *Outbox) taskFailed(ctx context.Context, log *slog.Logger, t broker.PlatformTask, err error) {
	f := broker.Classify(err)
	if f.Class == broker.FailPermanent {
		log.Warn("platform outbox: permanent failure", "attempt", t.Attempts, "err", err)
		o.failTask(ctx, log, t, f.Class, f.Text())
		return
	}
	wait := backoff.Full(o.cfg.BaseBackoff, o.cfg.MaxBackoff, t.Attempts)
	if f.RetryAfter > 0 {
		// The platform said when: the next attempt takes a pacing slot
		// no earlier, and so does every other call to the chat, on
		// every instance.
		wait = f.RetryAfter
		o.holdPace(ctx, t.Target, time.Now().Add(wait))
	}
	now := time.Now()
	// The deadline is on the broker's clock, the schedule on the wall
	// clock (the store's claims compare with it).
	if o.b.Now().Add(wait).After(t.Deadline) {
		log.Warn("platform outbox: giving up at the deadline", "attempts", t.Attempts, "err", err)
		// Failed with a class other than permanent: GaveUp says so.
		o.failTask(ctx, log, t, f.Class, f.Text())
		return
	}
	log.Info("platform outbox: attempt failed; will retry", "attempt", t.Attempts, "err", err, "in", wait.Round(time.Millisecond))
	t.State, t.NextAt, t.UpdatedAt = broker.TaskRetrying, now.Add(wait), now
	t.ErrorClass, t.LastError = f.Class, f.Text()
	o.recordTask(ctx, log, t)
}

// finishTask records a final state other than failed, with the reason a
// task ended without being carried out ("" when it was).
func (o *Outbox) finishTask(ctx context.Context, log *slog.Logger, t broker.PlatformTask, state, reason string) {
	t.State, t.UpdatedAt = state, time.Now()
	t.ErrorClass, t.LastError = "", reason
	o.recordTask(ctx, log, t)
}

// failTask records that t failed for good with a failure of class,
// described by text: refused for good, or given up at its deadline. A
// post that failed so may leave the question with no target at all,
// which resolves it as unsupported.
func (o *Outbox) failTask(ctx context.Context, log *slog.Logger, t broker.PlatformTask, class broker.FailureClass, text string) {
	t.State, t.UpdatedAt = broker.TaskFailed, time.Now()
	t.ErrorClass, t.LastError = class, text
	if o.recordTask(ctx, log, t) && t.Kind == broker.TaskPost {
		o.b.UnsupportedIfNoTarget(ctx, t.QuestionID)
	}
}

// recordTask writes the outcome; it reports whether it was recorded.
func (o *Outbox) recordTask(ctx context.Context, log *slog.Logger, t broker.PlatformTask) bool {
	ctx = context.WithoutCancel(ctx)
	for attempt := 0; ; attempt++ {
		err := o.store.UpdatePlatformWork(ctx, t)
		if err == nil {
			o.noteDue(t)
			return true
		}
		if errors.Is(err, broker.ErrConflict) || errors.Is(err, broker.ErrNotFound) || attempt >= 3 {
			log.Warn("platform outbox: outcome not recorded", "err", err)
			return false
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
}

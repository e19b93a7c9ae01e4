package broker

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Copy states, as people and agents see them.
const (
	CopyQueued    = "queued"
	CopyPosted    = "posted"
	CopyRetrying  = "retrying"
	CopyFailed    = "failed"
	CopyNotPosted = "not posted"
)

// Copy is what became of a question's copy on one target: whether it is
// posted, still queued or retried, or failed, with the platform's message
// and the class of the last error.
type Copy struct {
	Target    Target `json:"target"`
	State     string `json:"state"`
	MessageID string `json:"message_id,omitempty"`
	// ErrorClass is "permanent", "timeout", "rate limited" or
	// "unreachable"; LastError says more.
	ErrorClass string    `json:"error_class,omitempty"`
	LastError  string    `json:"last_error,omitempty"`
	Attempts   int       `json:"attempts"`
	UpdatedAt  time.Time `json:"updated_at"`
	// Edit is the state of the edit of the copy, when one was asked for
	// ("queued", "retrying", "done", "failed", "dropped"). A channel that
	// edits no copies (the text channel) has no edit to show: Edit stays
	// empty.
	Edit          string `json:"edit,omitempty"`
	EditLastError string `json:"edit_last_error,omitempty"`
}

// Copies lists the copies of question id, one per target: those made in
// this process (InProcess channels) and those of the store's outbox. The
// edits of a channel that edits no copies are left out rather than shown
// as dropped: nothing was left undone.
func (b *Broker) Copies(ctx context.Context, id string) ([]Copy, error) {
	q, err := b.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return b.CopiesOf(ctx, q)
}

// CopiesOf is Copies for a question already read: the copies at its
// in-process targets are derived from it, the others read from the
// store's outbox, ordered by target.
func (b *Broker) CopiesOf(ctx context.Context, q *Question) ([]Copy, error) {
	out := b.localCopies(q)
	if len(out) == len(q.Targets) && len(q.State.Escalations) == 0 {
		// Every copy is in-process: the outbox holds nothing of q.
		return out, nil
	}
	tasks, err := b.store.PlatformWork(ctx, q.ID)
	if err != nil {
		return nil, err
	}
	at := map[Target]int{}
	for _, t := range tasks {
		switch t.Kind {
		case TaskPost:
			c := Copy{Target: t.Target, MessageID: t.MessageID, Attempts: t.Attempts, UpdatedAt: t.UpdatedAt}
			switch t.State {
			case TaskDone:
				c.State = CopyPosted
			case TaskRetrying:
				c.State = CopyRetrying
			case TaskFailed:
				c.State = CopyFailed
			case TaskDropped:
				c.State = CopyNotPosted
			default:
				c.State = CopyQueued
			}
			if t.State != TaskDone {
				c.ErrorClass, c.LastError = string(t.ErrorClass), t.ErrorText()
			}
			at[t.Target] = len(out)
			out = append(out, c)
		case TaskEdit:
			if !b.edits(t.Target.Channel) {
				continue
			}
			if i, ok := at[t.Target]; ok {
				out[i].Edit, out[i].EditLastError = t.State, t.ErrorLine()
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Copy) int {
		return cmp.Or(cmp.Compare(a.Target.Channel, b.Target.Channel), cmp.Compare(a.Target.Chat, b.Target.Chat))
	})
	return out, nil
}

// edits reports whether the named channel edits its copies; a channel
// not registered here (another instance's) is taken to edit them.
func (b *Broker) edits(channel string) bool {
	ch, ok := b.channels[channel]
	if !ok {
		return true
	}
	_, ok = ch.(Updater)
	return ok
}

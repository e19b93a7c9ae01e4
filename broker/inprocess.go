package broker

import (
	"context"
)

// inProcess reports whether the copy at t is made in this process: its
// channel is registered here and implements InProcess for t's chat.
func (b *Broker) inProcess(t Target) bool {
	ch, ok := b.channels[t.Channel]
	if !ok {
		return false
	}
	ip, ok := ch.(InProcess)
	return ok && ip.InProcess(t.Chat)
}

// splitTargets returns the targets of ts whose copies are made in this
// process, and the others, which go through the store's outbox. Either
// may share ts's array: callers read them only.
func (b *Broker) splitTargets(ts []Target) (local, remote []Target) {
	if len(ts) == 0 {
		return nil, nil
	}
	n := 0
	for _, t := range ts {
		if b.inProcess(t) {
			n++
		}
	}
	// Most routes are all in-process or all not: then one side is ts
	// itself, capped so that an append cannot write into it.
	switch n {
	case 0:
		return nil, ts[:len(ts):len(ts)]
	case len(ts):
		return ts[:len(ts):len(ts)], nil
	}
	local, remote = make([]Target, 0, n), make([]Target, 0, len(ts)-n)
	for _, t := range ts {
		if b.inProcess(t) {
			local = append(local, t)
		} else {
			remote = append(remote, t)
		}
	}
	return local, remote
}

// localRef is the copy of q at the in-process target t.
func localRef(q *Question, t Target) MessageRef {
	return MessageRef{Channel: t.Channel, Chat: t.Chat, MessageID: q.ID, PostedAt: q.CreatedAt}
}

// localContext bounds the calls on in-process channels. It is the
// broker's own: nothing depends on the request that made the change.
func (b *Broker) localContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.cfg.PostTimeout)
}

// postLocal posts the stored question q to its in-process targets, whose
// copies the store recorded with the question (Questions.Create).
func (b *Broker) postLocal(q *Question, local []Target) {
	if len(local) == 0 {
		return
	}
	ctx, cancel := b.localContext()
	defer cancel()
	for _, t := range local {
		if _, err := b.channels[t.Channel].Post(ctx, q, t.Chat); err != nil {
			b.log.Error("in-process post failed", "question_id", q.ID, "channel", t.Channel, "chat", t.Chat, "err", err)
		}
	}
}

// touchLocal edits, or reminds under, the in-process copies of q at
// local, on the channels that can.
func (b *Broker) touchLocal(q *Question, local []Target, remind bool) {
	if len(local) == 0 {
		return
	}
	ctx, cancel := b.localContext()
	defer cancel()
	for _, t := range local {
		ch := b.channels[t.Channel]
		var err error
		if remind {
			if r, ok := ch.(Reminder); ok {
				err = r.Remind(ctx, q, localRef(q, t))
			}
		} else if u, ok := ch.(Updater); ok {
			err = u.Update(ctx, q, localRef(q, t))
		}
		if err != nil {
			b.log.Error("in-process edit failed", "question_id", q.ID, "channel", t.Channel, "remind", remind, "err", err)
		}
	}
}

// localCopies returns the copies of q at its in-process targets: posted
// with the question, edited in-process once it closed (on the channels
// that edit their copies).
func (b *Broker) localCopies(q *Question) []Copy {
	local, _ := b.splitTargets(q.Targets)
	out := make([]Copy, 0, len(local))
	for _, t := range local {
		c := Copy{Target: t, State: CopyPosted, MessageID: q.ID, Attempts: 1, UpdatedAt: q.CreatedAt}
		if q.Status.Terminal() && b.edits(t.Channel) {
			c.Edit = TaskDone
		}
		out = append(out, c)
	}
	return out
}

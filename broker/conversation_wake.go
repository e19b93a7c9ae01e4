package broker

import "sync"

// talkState is what this instance keeps about conversations in memory:
// the wake-ups of the sessions' long-polls, and the senders whose refusal
// was logged. Its zero value is ready to use.
type talkState struct {
	mu sync.Mutex
	// wakes are the waits on each conversation, by agentSession key; an
	// entry goes with its last waiter.
	wakes map[string]*sessionWake
	// logged are the (sender, session) pairs whose refusal was logged,
	// at most maxLoggedDrops: beyond, the set starts again, and a sender
	// may be logged once more.
	logged map[string]struct{}
}

// sessionWake is one conversation's wake-up: closed when a message is
// kept on this instance, then replaced.
type sessionWake struct {
	ch      chan struct{}
	waiters int
}

// maxLoggedDrops bounds the refused senders remembered.
const maxLoggedDrops = 4096

func agentSession(agent, session string) string { return agent + "\x00" + session }

// waitFor returns the channel closed when a message of (agent, session)
// is kept here, and the release the waiter calls when it stops waiting.
func (t *talkState) waitFor(agent, session string) (<-chan struct{}, func()) {
	k := agentSession(agent, session)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.wakes == nil {
		t.wakes = map[string]*sessionWake{}
	}
	w := t.wakes[k]
	if w == nil {
		w = &sessionWake{ch: make(chan struct{})}
		t.wakes[k] = w
	}
	w.waiters++
	return w.ch, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		w.waiters--
		if w.waiters == 0 && t.wakes[k] == w {
			delete(t.wakes, k)
		}
	}
}

// wake ends the waits on (agent, session).
func (t *talkState) wake(agent, session string) {
	k := agentSession(agent, session)
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.wakes[k]; w != nil {
		close(w.ch)
		delete(t.wakes, k)
	}
}

// dropped logs, once per sender and session, that a message to q's
// session from in's sender was refused: they may not answer q.
func (t *talkState) dropped(b *Broker, in Inbound, q *Question) {
	k := agentSession(q.Agent, q.SessionID) + "\x00" + in.Channel + "\x00" + in.User
	t.mu.Lock()
	if t.logged == nil || len(t.logged) >= maxLoggedDrops {
		t.logged = map[string]struct{}{}
	}
	_, seen := t.logged[k]
	t.logged[k] = struct{}{}
	t.mu.Unlock()
	if !seen {
		b.log.Warn("message to an agent's session dropped: the sender may not answer its questions",
			"question_id", q.ID, "agent", q.Agent, "session_id", q.SessionID, "channel", in.Channel, "chat", in.Chat, "user", in.User)
	}
}

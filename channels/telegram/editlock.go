package telegram

import "sync"

// messageLocks serialise what is drawn on one message: an edit renders
// the question and sends it under its message's lock, so two edits
// (the broker's Update from the outbox, a redraw of the keyboard after a
// note) reach Telegram in the order they were drawn, and the later one
// drew from the newer state. Without it an edit drawn before a note was
// held could land after the redraw that offers the note, and take the
// note's buttons away.
type messageLocks struct {
	mu sync.Mutex
	m  map[messageKey]*messageLock
}

type messageKey struct {
	chat int64
	msg  int
}

type messageLock struct {
	sync.Mutex
	users int
}

// lock takes the lock of message msg in chat and returns its release.
// Entries live only while someone holds or waits for them.
func (l *messageLocks) lock(chat int64, msg int) (unlock func()) {
	k := messageKey{chat, msg}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[messageKey]*messageLock{}
	}
	e := l.m[k]
	if e == nil {
		e = &messageLock{}
		l.m[k] = e
	}
	e.users++
	l.mu.Unlock()
	e.Lock()
	return func() {
		e.Unlock()
		l.mu.Lock()
		if e.users--; e.users == 0 {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
}

// size returns how many messages have an entry.
func (l *messageLocks) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

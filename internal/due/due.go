// Package due is the signal by which a loop that sleeps until its next
// timed work learns of work written on its own instance: the earliest
// time noted since it last looked, and a channel that is signalled when
// a note comes. The broker's sweeper signal and the platform outbox's
// retry signal are both one. It imports nothing of the project.
package due

import (
	"sync"
	"time"
)

// Signal holds the earliest time noted since the last Take. Make it with
// New.
type Signal struct {
	mu sync.Mutex
	at time.Time // earliest noted since the last take; zero when none
	c  chan struct{}
}

// New returns a Signal with nothing noted.
func New() *Signal { return &Signal{c: make(chan struct{}, 1)} }

// Note records that something falls due at t; the zero time is ignored.
func (d *Signal) Note(t time.Time) {
	if t.IsZero() {
		return
	}
	d.mu.Lock()
	if d.at.IsZero() || t.Before(d.at) {
		d.at = t
	}
	d.mu.Unlock()
	select {
	case d.c <- struct{}{}:
	default:
	}
}

// Take returns the earliest time noted since the last Take, and forgets
// it; the zero time when there was none.
func (d *Signal) Take() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.at
	d.at = time.Time{}
	return t
}

// C is signalled when a note comes; after it, Take says when.
func (d *Signal) C() <-chan struct{} { return d.c }

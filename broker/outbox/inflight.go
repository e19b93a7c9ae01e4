package outbox

import "sync"

// inflight counts the platform work under way on this instance, and
// refuses new work once the outbox is closing, so that Close can wait for
// what runs without racing a late start (an ask still being served while
// the bridge stops). Refused work stays in the store's outbox for the
// next claim.
type inflight struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // closed when n drops to 0 after closing
}

// start counts one piece of work in; false once the outbox is closing.
func (w *inflight) start() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.n++
	return true
}

// done counts one piece of work out.
func (w *inflight) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 && w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
}

// closeAndWait refuses new work and waits for the work under way.
func (w *inflight) closeAndWait() {
	w.mu.Lock()
	w.closed = true
	if w.n == 0 {
		w.mu.Unlock()
		return
	}
	if w.idle == nil {
		w.idle = make(chan struct{})
	}
	idle := w.idle
	w.mu.Unlock()
	<-idle
}

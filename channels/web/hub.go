package web

import "sync"

// subscriberBuffer is how many events a slow page may fall behind before it
// is dropped; a dropped page reconnects and re-reads the whole state.
const subscriberBuffer = 64

// hub broadcasts changed questions to the pages connected on this instance.
// It has no goroutine of its own: each event stream is served by its HTTP
// request, and the hub only hands it events.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

// subscribe registers a page. The returned channel closes when the page is
// dropped or the hub closes; ok is false when the hub is closed already.
func (h *hub) subscribe() (ch chan []byte, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	ch = make(chan []byte, subscriberBuffer)
	h.subs[ch] = struct{}{}
	return ch, true
}

// unsubscribe removes a page; it is safe to call after the page was dropped.
func (h *hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[ch]; ok {
		delete(h.subs, ch)
		close(ch)
	}
}

// listening reports whether a page is connected.
func (h *hub) listening() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

// broadcast sends one event to every page without blocking: a page whose
// buffer is full is dropped, so it reconnects and re-reads the state
// instead of missing a change silently.
func (h *hub) broadcast(event []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- event:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// close drops every page and refuses new ones.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.dropLocked()
}

// dropAll ends every page's stream; the pages reconnect and re-read the
// state, as after a network failure.
func (h *hub) dropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked()
}

func (h *hub) dropLocked() {
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

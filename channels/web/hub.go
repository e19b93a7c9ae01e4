package web

import (
	"sync"
	"time"
)

// subscriberBuffer is how many events a slow page may fall behind before it
// is dropped; a dropped page reconnects and re-reads the whole state.
const subscriberBuffer = 64

// hub broadcasts changed questions to the pages connected on this instance.
// It has no goroutine of its own: each event stream is served by its HTTP
// request, and the hub only hands it events.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]*time.Location
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]*time.Location{}} }

// subscribe registers a page that shows its times in loc. The returned
// channel closes when the page is dropped or the hub closes; ok is false
// when the hub is closed already.
func (h *hub) subscribe(loc *time.Location) (ch chan []byte, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	ch = make(chan []byte, subscriberBuffer)
	h.subs[ch] = loc
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
// instead of missing a change silently. event renders the event in a
// page's zone; it is called once per zone among the pages, and returns
// nil for an event not to send.
func (h *hub) broadcast(event func(*time.Location) []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	byZone := map[string][]byte{}
	for ch, loc := range h.subs {
		ev, done := byZone[loc.String()]
		if !done {
			ev = event(loc)
			byZone[loc.String()] = ev
		}
		if ev == nil {
			continue
		}
		select {
		case ch <- ev:
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

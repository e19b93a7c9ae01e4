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
	subs   map[chan []byte]subscriber
	closed bool
}

// subscriber is what the hub knows of a connected page: the zone of its times
// and the language of its reader.
type subscriber struct {
	loc *time.Location
	rd  reader
}

func newHub() *hub { return &hub{subs: map[chan []byte]subscriber{}} }

// subscribe registers a page that shows its times in loc, read by rd.
// The returned channel closes when the page is dropped or the hub
// closes; ok is false when the hub is closed already.
func (h *hub) subscribe(loc *time.Location, rd reader) (ch chan []byte, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, false
	}
	ch = make(chan []byte, subscriberBuffer)
	h.subs[ch] = subscriber{loc: loc, rd: rd}
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
// instead of missing a change silently. localeOf is the language of the
// event for a page's reader; event renders the event in a page's zone and
// that language. It is called once per zone and language among the
// pages, and returns nil for an event not to send.
func (h *hub) broadcast(localeOf func(reader) string, event func(*time.Location, string) []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	type key struct{ zone, locale string }
	byKey := map[key][]byte{}
	for ch, p := range h.subs {
		locale := localeOf(p.rd)
		k := key{p.loc.String(), locale}
		ev, done := byKey[k]
		if !done {
			ev = event(p.loc, locale)
			byKey[k] = ev
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

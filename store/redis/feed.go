package redis

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

// watchBuffer is the buffer of each Watch channel; a watcher that falls
// behind gets an empty hint (re-check everything) once it has room again.
//
// The hint is dear: the broker forgets every question it remembers and
// wakes every waiter, and each reads its question back from Redis. A
// question resolved here reaches the watchers twice (Resolve's own
// broadcast, then the feed's message), so at 2,500 resolutions a second
// a buffer of 64 was 13 ms of falling behind, which a busy machine's
// scheduler exceeded several times a second (about 1,000 waiters woken to
// read again in a 10 s run of 100 agents). 1,024 is 200 ms at that rate,
// about 40 KB per watcher.
const watchBuffer = 1024

// feed fans the resolution feed out to the local watchers.
type feed struct {
	mu     sync.Mutex
	subs   map[*watcher]struct{}
	closed bool
	stop   chan struct{} // closed with the store
}

type watcher struct {
	ch     chan broker.Resolved
	missed bool
}

func newFeed() *feed { return &feed{subs: map[*watcher]struct{}{}, stop: make(chan struct{})} }

// Watch returns the resolution feed of this store: questions resolved here
// or on any other instance sharing the Redis, with their agents, and an
// empty hint after a lost connection or a dropped one. The channel closes
// when ctx ends or the store closes.
func (s *Store) Watch(ctx context.Context) <-chan broker.Resolved {
	w := &watcher{ch: make(chan broker.Resolved, watchBuffer)}
	f := s.feed
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		close(w.ch)
		return w.ch
	}
	f.subs[w] = struct{}{}
	f.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-f.stop:
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.subs[w]; ok {
			delete(f.subs, w)
			close(w.ch)
		}
	}()
	return w.ch
}

// broadcast offers r to every watcher without blocking.
func (f *feed) broadcast(r broker.Resolved) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.subs {
		if w.missed {
			select {
			case w.ch <- broker.Resolved{}:
				w.missed = false
			default:
				continue
			}
		}
		select {
		case w.ch <- r:
		default:
			w.missed = true
		}
	}
}

// flush sends the pending empty hint of watchers that missed one.
func (f *feed) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for w := range f.subs {
		if w.missed {
			select {
			case w.ch <- broker.Resolved{}:
				w.missed = false
			default:
			}
		}
	}
}

func (f *feed) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	close(f.stop)
	for w := range f.subs {
		delete(f.subs, w)
		close(w.ch)
	}
}

// feedTick is how long the listener waits for a message before it flushes
// watchers and checks the connection.
const feedTick = time.Second

// listen subscribes to the feed channel and relays its ids until ctx
// ends. go-redis reconnects and resubscribes after a failure; the
// subscription confirmation that follows makes every watcher re-check,
// since ids published meanwhile were lost.
func (s *Store) listen(ctx context.Context, ps *goredis.PubSub) {
	defer close(s.done)
	if ps == nil {
		return
	}
	lost, idle := false, 0
	retry := backoff.New(50*time.Millisecond, 2*time.Second)
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, feedTick)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !lost {
				s.feed.flush()
				idle++
				if idle%5 == 0 {
					_ = ps.Ping(ctx)
				}
				if idle > 15 {
					// No reply, not even to pings: start over.
					if ps = s.subscribe(ctx); ps == nil {
						return
					}
					lost, idle = true, 0
				}
				continue
			}
			if !lost {
				s.log.Warn("resolution feed lost; reconnecting", "err", err)
				lost = true
			}
			if retry.Wait(ctx) != nil {
				return
			}
			continue
		}
		idle = 0
		switch m := msg.(type) {
		case *goredis.Subscription:
			if m.Kind != "subscribe" {
				continue
			}
			// The first confirmation (when Open could not wait for it)
			// or one after a reconnect: ids may have been missed.
			if lost {
				s.log.Info("resolution feed back")
			}
			s.feed.broadcast(broker.Resolved{})
			lost = false
			retry.Reset()
		case *goredis.Message:
			s.feed.broadcast(feedMessage(m.Payload))
		}
	}
}

// feedMessage reads a message of the feed channel: "<id>\t<agent>", or
// a bare id (from an older bridge: the agent is not known).
func feedMessage(payload string) broker.Resolved {
	id, agent, _ := strings.Cut(payload, "\t")
	return broker.Resolved{ID: id, Agent: agent}
}

// subscribe replaces the feed subscription; it returns nil once the store
// is closing. Close closes the current subscription to stop listen.
func (s *Store) subscribe(ctx context.Context) *goredis.PubSub {
	s.psMu.Lock()
	defer s.psMu.Unlock()
	if s.ps != nil {
		_ = s.ps.Close()
		s.ps = nil
	}
	if ctx.Err() != nil {
		return nil
	}
	s.ps = s.c.Subscribe(ctx, s.k.feed())
	return s.ps
}

// stopListening ends listen and waits for it.
func (s *Store) stopListening() {
	s.cancel()
	s.psMu.Lock()
	if s.ps != nil {
		_ = s.ps.Close()
		s.ps = nil
	}
	s.psMu.Unlock()
	<-s.done
}

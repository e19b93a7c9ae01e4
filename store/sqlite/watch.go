package sqlite

import (
	"context"
	"sync"

	"github.com/askbridge/askbridge/broker"
)

// subscriberQueue is how many resolutions a subscriber may fall behind
// before its backlog is replaced by one empty hint ("re-check
// everything").
const subscriberQueue = 256

// feed fans resolved questions out to the subscribers in this process.
// Publishing never blocks.
type feed struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed chan struct{}
	once   sync.Once
}

// subscriber is one Watch call. Its goroutine moves queued hints to out.
type subscriber struct {
	mu       sync.Mutex
	queue    []broker.Resolved
	overflow bool
	wake     chan struct{} // capacity 1: "the queue has something"
}

func newFeed() *feed {
	return &feed{subs: map[*subscriber]struct{}{}, closed: make(chan struct{})}
}

// Watch returns the resolution feed of this store: every question
// resolved through it after the call returns, with its agent. The channel
// closes when ctx ends or the store closes.
func (s *Store) Watch(ctx context.Context) <-chan broker.Resolved {
	return s.feed.subscribe(ctx)
}

func (f *feed) subscribe(ctx context.Context) <-chan broker.Resolved {
	out := make(chan broker.Resolved, 16)
	sub := &subscriber{wake: make(chan struct{}, 1)}
	f.mu.Lock()
	select {
	case <-f.closed:
		f.mu.Unlock()
		close(out)
		return out
	default:
	}
	f.subs[sub] = struct{}{}
	f.mu.Unlock()
	go f.run(ctx, sub, out)
	return out
}

// run delivers sub's queue to out until ctx ends or the feed closes.
func (f *feed) run(ctx context.Context, sub *subscriber, out chan<- broker.Resolved) {
	defer close(out)
	defer func() {
		f.mu.Lock()
		delete(f.subs, sub)
		f.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.closed:
			return
		case <-sub.wake:
		}
		for _, r := range sub.take() {
			select {
			case out <- r:
			case <-ctx.Done():
				return
			case <-f.closed:
				return
			}
		}
	}
}

// take empties the queue; after an overflow it is one empty hint.
func (sub *subscriber) take() []broker.Resolved {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	q := sub.queue
	if sub.overflow {
		q = []broker.Resolved{{}}
	}
	sub.queue, sub.overflow = nil, false
	return q
}

// publish queues r for every subscriber without waiting for any.
func (f *feed) publish(r broker.Resolved) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for sub := range f.subs {
		sub.mu.Lock()
		if len(sub.queue) >= subscriberQueue {
			sub.overflow = true
		} else if !sub.overflow {
			sub.queue = append(sub.queue, r)
		}
		sub.mu.Unlock()
		select {
		case sub.wake <- struct{}{}:
		default:
		}
	}
}

// close ends every subscription.
func (f *feed) close() {
	f.once.Do(func() {
		f.mu.Lock()
		close(f.closed)
		f.mu.Unlock()
	})
}

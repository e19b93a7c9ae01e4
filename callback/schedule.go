package callback

import (
	"container/heap"
	"sync"
	"time"
)

// schedule holds when the deliveries this instance knows of fall due: a
// retry it scheduled, or the end of a claim it holds (should the outcome
// not be recorded, the delivery is due again then). The deliverer sleeps
// until the earliest, so that it looks at the outbox only when something
// is due, a question with a callback resolved, or the fallback poll comes.
type schedule struct {
	mu sync.Mutex
	at map[string]time.Time // delivery id -> when it falls due
	h  dueHeap              // may hold stale entries: at is the truth
}

func newSchedule() *schedule { return &schedule{at: map[string]time.Time{}} }

// set records that delivery id falls due at t.
func (s *schedule) set(id string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at[id] = t
	heap.Push(&s.h, dueEntry{id: id, at: t})
}

// drop forgets delivery id: it was delivered or failed.
func (s *schedule) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.at, id)
}

// next returns the earliest time something falls due; ok is false when
// nothing is scheduled.
func (s *schedule) next() (t time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	if len(s.h) == 0 {
		return time.Time{}, false
	}
	return s.h[0].at, true
}

// takeDue forgets every entry due at now: the claim that follows finds
// them in the outbox (and schedules them again), or finds them gone.
func (s *schedule) takeDue(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.prune(); len(s.h) > 0 && !s.h[0].at.After(now); s.prune() {
		e := heap.Pop(&s.h).(dueEntry)
		delete(s.at, e.id)
	}
}

// len returns how many deliveries are scheduled.
func (s *schedule) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.at)
}

// prune pops stale entries off the top of the heap.
func (s *schedule) prune() {
	for len(s.h) > 0 {
		if t, ok := s.at[s.h[0].id]; ok && t.Equal(s.h[0].at) {
			return
		}
		heap.Pop(&s.h)
	}
}

type dueEntry struct {
	id string
	at time.Time
}

// dueHeap orders entries earliest first.
type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

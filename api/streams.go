package api

import "sync"

// streamSlots counts the open event streams of each agent on this server
// and refuses one beyond the cap. With several bridge instances each
// counts its own.
type streamSlots struct {
	max  int
	mu   sync.Mutex
	open map[string]int
}

func newStreamSlots(max int) *streamSlots {
	return &streamSlots{max: max, open: map[string]int{}}
}

// acquire takes a slot for a stream of agent, or reports false when the
// agent holds max already.
func (s *streamSlots) acquire(agent string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[agent] >= s.max {
		return false
	}
	s.open[agent]++
	return true
}

// release frees the slot of a stream that ended.
func (s *streamSlots) release(agent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[agent]--; s.open[agent] <= 0 {
		delete(s.open, agent)
	}
}

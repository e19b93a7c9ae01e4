package brokertest

import (
	"sync"
	"time"
)

// Clock is a clock a test moves by hand, for broker.Config.Now; it is
// safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock d forward.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t and returns t.
func (c *Clock) Set(t time.Time) time.Time {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
	return t
}

package brokertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Channel is a broker.Channel that records what it is asked to do. Its
// Post fails for chats listed in Fail (permanently, as a platform would
// for a chat that does not exist).
type Channel struct {
	ChannelName string
	Fail        map[string]error
	// UpdateFailures makes that many Update calls fail with a transient
	// error (a platform that cannot be reached) before they succeed.
	UpdateFailures int
	// UpdateErr, when set, fails every Update with it.
	UpdateErr error
	// PostDelay holds every Post that long, as a slow platform would.
	PostDelay time.Duration

	// down makes Post and Update fail as an unreachable platform does.
	down atomic.Bool

	mu        sync.Mutex
	posts     []*broker.Question
	updates   []*broker.Question
	attempts  int
	reminders []string
	changed   chan struct{}
	seq       int
}

var (
	_ broker.Channel  = (*Channel)(nil)
	_ broker.Reminder = (*Channel)(nil)
)

// NewChannel returns a recording channel named name.
func NewChannel(name string) *Channel {
	return &Channel{ChannelName: name, changed: make(chan struct{}, 1)}
}

// SetDown makes the platform unreachable (true) or reachable again.
func (c *Channel) SetDown(down bool) { c.down.Store(down) }

// Name returns the channel's name.
func (c *Channel) Name() string { return c.ChannelName }

// Post records q and returns a message reference numbered in order.
func (c *Channel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	if c.PostDelay > 0 {
		select {
		case <-ctx.Done():
			return broker.MessageRef{}, ctx.Err()
		case <-time.After(c.PostDelay):
		}
	}
	if c.down.Load() {
		return broker.MessageRef{}, ErrUnreachable
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err, ok := c.Fail[chat]; ok {
		return broker.MessageRef{}, broker.Permanent(err)
	}
	c.seq++
	c.posts = append(c.posts, q.Clone())
	c.signal()
	return broker.MessageRef{Channel: c.ChannelName, Chat: chat, MessageID: fmt.Sprintf("m%d", c.seq)}, nil
}

// Update records the question as it was when its copy was updated.
func (c *Channel) Update(_ context.Context, q *broker.Question, _ broker.MessageRef) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts++
	if c.down.Load() {
		return ErrUnreachable
	}
	if c.UpdateErr != nil {
		return c.UpdateErr
	}
	if c.UpdateFailures > 0 {
		c.UpdateFailures--
		return ErrUnreachable
	}
	c.updates = append(c.updates, q.Clone())
	c.signal()
	return nil
}

// Remind records a reminder.
func (c *Channel) Remind(_ context.Context, q *broker.Question, m broker.MessageRef) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reminders = append(c.reminders, q.ID+"@"+m.MessageID)
	c.signal()
	return nil
}

func (c *Channel) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Posts returns the questions posted so far.
func (c *Channel) Posts() []*broker.Question {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*broker.Question(nil), c.posts...)
}

// Updates returns the questions as they were at each update.
func (c *Channel) Updates() []*broker.Question {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*broker.Question(nil), c.updates...)
}

// Reminders returns "id@message" for each reminder sent.
func (c *Channel) Reminders() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reminders...)
}

// WaitFor polls cond, waking on every change of the channel, until it
// holds or timeout passes; it reports whether cond held.
func (c *Channel) WaitFor(timeout time.Duration, cond func(c *Channel) bool) bool {
	deadline := time.After(timeout)
	for {
		if cond(c) {
			return true
		}
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			return cond(c)
		}
	}
}

// UpdateAttempts counts Update calls, failed ones included.
func (c *Channel) UpdateAttempts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.attempts
}

// ErrChatNotFound is a platform-like failure for Fail.
var ErrChatNotFound = errors.New("chat not found")

// ErrUnreachable is a transient failure: the platform cannot be reached.
var ErrUnreachable = errors.New("dial tcp: connection refused")

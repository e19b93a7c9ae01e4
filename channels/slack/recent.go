package slack

import (
	"context"
	"sync"

	slackapi "github.com/slack-go/slack"
)

// recentSet remembers the last n ids it was given, so that a redelivered
// Events API event (same event_id) is processed once.
type recentSet struct {
	mu   sync.Mutex
	ids  map[string]struct{}
	ring []string
	next int
}

func newRecentSet(n int) *recentSet {
	return &recentSet{ids: make(map[string]struct{}, n), ring: make([]string, n)}
}

// add records id and reports whether it was new. An empty id is always new.
func (s *recentSet) add(id string) bool {
	if id == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.ids[id]; ok {
		return false
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.ids, old)
	}
	s.ring[s.next] = id
	s.next = (s.next + 1) % len(s.ring)
	s.ids[id] = struct{}{}
	return true
}

// nameCache keeps the names of people who typed answers; message events
// carry only the user id.
type nameCache struct {
	mu    sync.Mutex
	max   int
	names map[string]string
}

func newNameCache(size int) *nameCache {
	return &nameCache{max: size, names: map[string]string{}}
}

// userName returns the user's handle (as buttons and slash commands
// report it), asking users.info once per user. It
// returns "" when the name cannot be learnt; the broker then shows the id.
func (c *Channel) userName(ctx context.Context, user string) string {
	nc := c.names
	nc.mu.Lock()
	n, ok := nc.names[user]
	nc.mu.Unlock()
	if ok {
		return n
	}
	u, err := c.api.GetUserInfoContext(ctx, user)
	if err != nil {
		c.log.Debug("users.info failed", "user", user, "err", err)
		return ""
	}
	n = displayName(u)
	nc.mu.Lock()
	if len(nc.names) >= nc.max {
		clear(nc.names)
	}
	nc.names[user] = n
	nc.mu.Unlock()
	return n
}

func displayName(u *slackapi.User) string {
	switch {
	case u.Name != "":
		return u.Name
	case u.Profile.DisplayName != "":
		return u.Profile.DisplayName
	}
	return u.RealName
}

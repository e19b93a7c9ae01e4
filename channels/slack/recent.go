package slack

import (
	"context"
	"sync"

	slackapi "github.com/slack-go/slack"
)

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

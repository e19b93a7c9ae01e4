package slack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// signatureWindow is how far a request's timestamp may be from the clock
// for its signature to be accepted (slack-go's Ensure checks both ways).
const signatureWindow = 5 * time.Minute

// requestTTL is how long the digest of a signed request is remembered:
// as long as the request stays valid (stamped a window ahead of the
// clock, it is accepted until a window behind), and a minute for the
// clocks of the instances.
const requestTTL = 2*signatureWindow + time.Minute

// eventTTL is how long an Events API event id is remembered. Slack
// redelivers an event that was not acknowledged in time up to three
// times within about five minutes, each time signed anew.
const eventTTL = time.Hour

// requestKey names a signed request (a slash command, an interaction) in
// the replay guard: its body's SHA-256. Slack puts a fresh trigger_id in
// every one, so two bodies alike are one request sent twice.
func requestKey(body []byte) string {
	sum := sha256.Sum256(body)
	return "slack:req:" + hex.EncodeToString(sum[:])
}

// eventKey names an Events API delivery in the replay guard: its
// event_id, which every redelivery and replay of the event carries (an id
// longer than Slack's by its digest).
func eventKey(eventID string) string {
	if len(eventID) > 64 {
		sum := sha256.Sum256([]byte(eventID))
		eventID = hex.EncodeToString(sum[:])
	}
	return "slack:event:" + eventID
}

// takeOnce answers a signed HTTP delivery that was taken before (a
// replay, a redelivered event) with 200, so that Slack does not send it
// again, and one whose check failed with 503; it reports whether the
// delivery is new and is to be processed.
func (c *Channel) takeOnce(w http.ResponseWriter, r *http.Request, key string, ttl time.Duration) bool {
	first, err := c.replay.FirstSeen(r.Context(), key, ttl)
	switch {
	case err != nil:
		c.throttled.Warn("replay check", "slack request not checked against replays; refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "the request could not be checked against replays; try again", http.StatusServiceUnavailable)
		return false
	case !first:
		c.throttled.Info("replay", "slack request already taken; dropped", "remote", r.RemoteAddr, "key", key)
		w.WriteHeader(http.StatusOK)
		return false
	}
	return true
}

// memoryGuard is the replay guard of a channel built without the store's
// (Options.Replay nil): the keys it was given, each until its ttl, in
// this process only, at most max of them.
type memoryGuard struct {
	mu   sync.Mutex
	keys map[string]time.Time
	max  int
}

func newMemoryGuard(max int) *memoryGuard {
	return &memoryGuard{keys: make(map[string]time.Time), max: max}
}

// FirstSeen is broker.ReplayGuard's, in memory. When it holds max keys,
// the expired ones go, then the one that expires first.
func (g *memoryGuard) FirstSeen(_ context.Context, key string, ttl time.Duration) (bool, error) {
	if err := broker.CheckReplayKey(key, ttl); err != nil {
		return false, err
	}
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if until, ok := g.keys[key]; ok && now.Before(until) {
		return false, nil
	}
	if len(g.keys) >= g.max {
		g.evict(now)
	}
	g.keys[key] = now.Add(ttl)
	return true, nil
}

// evict drops the expired keys, or when none is, the one that expires
// first.
func (g *memoryGuard) evict(now time.Time) {
	var first string
	var firstAt time.Time
	for k, until := range g.keys {
		if !now.Before(until) {
			delete(g.keys, k)
			continue
		}
		if first == "" || until.Before(firstAt) {
			first, firstAt = k, until
		}
	}
	if len(g.keys) >= g.max {
		delete(g.keys, first)
	}
}

// socketEventOnce reports whether an event that came over Socket Mode is
// new: Slack redelivers one whose envelope was not acknowledged in time.
// The connection is the app's own, so there is no replay to fear: when
// the store cannot say, the event is processed.
func (c *Channel) socketEventOnce(ctx context.Context, eventID string) bool {
	if eventID == "" {
		return true
	}
	first, err := c.replay.FirstSeen(ctx, eventKey(eventID), eventTTL)
	if err != nil {
		c.throttled.Warn("replay check", "slack event not checked for redelivery; processing it", "event_id", eventID, "err", err)
		return true
	}
	if !first {
		c.log.Debug("redelivered event dropped", "event_id", eventID)
	}
	return first
}

package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Pacing keeps the next free slot of each pacing key (a bot, a chat) in
// a key of its own, shared by every instance, so that a burst is spread
// over time instead of tripping a platform's rate limit.

// pace is the key of a pacing key's next slot.
func (k *keys) pace(key string) string { return k.prefix + "pace:" + key }

// paceScript takes the next slot of a pacing key. KEYS: key. ARGV:
// 1 nowMs, 2 intervalMs, 3 maxWaitMs. Returns {taken, slotMs}.
var paceScript = newScript(`
local now = tonumber(ARGV[1])
local slot = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
if slot - now > tonumber(ARGV[3]) then return {0, slot} end
local nxt = slot + tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%d', nxt), 'PX', math.max(nxt - now, 1) + 60000)
return {1, slot}
`)

// holdPaceScript moves a pacing key's next slot to ARGV[1] (ms) at the
// earliest; ARGV[2] is now (ms).
var holdPaceScript = newScript(`
local u = tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '0') >= u then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', math.max(u - tonumber(ARGV[2]), 1) + 60000)
return 1
`)

// Pace reserves the next slot of key; see broker.PlatformOutbox.
func (s *Store) Pace(ctx context.Context, key string, interval time.Duration, now time.Time, maxWait time.Duration) (time.Time, bool, error) {
	if key == "" || interval <= 0 {
		return time.Time{}, false, fmt.Errorf("redis store: pace: %w", &broker.FieldError{Field: "key", Message: "a key and a positive interval are needed"})
	}
	v, err := paceScript.Run(ctx, s.run, []string{s.k.pace(key)}, now.UnixMilli(), max(interval.Milliseconds(), 1), maxWait.Milliseconds()).Int64Slice()
	if err != nil {
		return time.Time{}, false, wrap("pace", err)
	}
	if len(v) != 2 {
		return time.Time{}, false, fmt.Errorf("redis store: pace: unexpected reply %v", v)
	}
	return msTime(v[1]), v[0] == 1, nil
}

// HoldPace moves the next slot of key to until at the earliest.
func (s *Store) HoldPace(ctx context.Context, key string, until time.Time) error {
	if key == "" {
		return fmt.Errorf("redis store: hold pace: %w", &broker.FieldError{Field: "key", Message: "a key is needed"})
	}
	return wrap("hold pace", holdPaceScript.Run(ctx, s.run, []string{s.k.pace(key)}, until.UnixMilli(), time.Now().UnixMilli()).Err())
}

package outbox

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Pacing is the sending rate of one channel, shared by every instance
// through the store: calls are spaced at least these intervals apart, per
// bot and per chat, widened by a tenth (see PaceSpacing). A zero interval
// means no pacing at that level. A burst is paced, never dropped: work
// beyond the rate waits its turn.
type Pacing struct {
	// PerBot spaces any two calls of the channel's bot.
	PerBot time.Duration `json:"per_bot,omitempty"`
	// PerChat spaces two calls to one chat.
	PerChat time.Duration `json:"per_chat,omitempty"`
	// PerGroup replaces PerChat for group chats, whose ids start with
	// "-" (Telegram's groups and supergroups).
	PerGroup time.Duration `json:"per_group,omitempty"`
}

// DefaultPacing returns the platforms' published limits: Telegram about
// 30 messages a second per bot, one a second per chat and 20 a minute per
// group; Slack about one message a second per channel. Discord is left to
// its client library, which follows the per-route buckets the platform
// announces in its headers.
func DefaultPacing() map[string]Pacing {
	return map[string]Pacing{
		"telegram": {PerBot: time.Second / 30, PerChat: time.Second, PerGroup: 3 * time.Second},
		"slack":    {PerChat: time.Second, PerGroup: time.Second},
	}
}

// PaceSpacing is how far apart the outbox sends two calls paced at
// interval (the platform's limit): a tenth more. Calls leave the bridge
// on their slots but reach the platform after a network and scheduling
// delay that varies; spaced at exactly the limit, two calls bunched by a
// few milliseconds on the way put one call too many in a platform's
// window (21 in one second at 20 a second), which it refuses with 429.
// With a tenth more, a window of n calls spans n tenths of an interval
// more than the platform's: at any rate a second, calls may bunch by up
// to 100 ms and still fit, for a tenth of the rate.
func PaceSpacing(interval time.Duration) time.Duration {
	return interval + interval/10
}

// paceWait is the longest an attempt waits in place for a pacing slot;
// beyond it the task is put back until its slot.
const paceWait = 2 * time.Second

// pace takes a slot for a call to t, waiting for it when it is near. It
// returns ok false with the time of the free slot when that is too far.
// When this instance learns of a platform's retry_after for t's chat
// while the call waits for its slot, the slot is given up and one after
// the hold taken instead: a slot reserved before the 429 would otherwise
// send inside the window the platform asked to be left alone.
func (o *Outbox) pace(ctx context.Context, t broker.Target) (time.Time, bool, error) {
	p, ok := o.cfg.Pacing[t.Channel]
	if !ok {
		return time.Time{}, true, nil
	}
	for {
		reserved := time.Now()
		at, ok, err := o.reserve(ctx, t, p)
		if err != nil || !ok {
			return at, ok, err
		}
		if wait := time.Until(at); wait > 0 {
			select {
			case <-ctx.Done():
				return time.Time{}, false, ctx.Err()
			case <-time.After(wait):
			}
		}
		if !o.holds.placedSince(chatKey(t), reserved) {
			return time.Time{}, true, nil
		}
	}
}

// reserve takes the slots of t's chat and bot, and returns the later one;
// ok is false, with the time of the free slot, when one is too far.
func (o *Outbox) reserve(ctx context.Context, t broker.Target, p Pacing) (time.Time, bool, error) {
	chat := p.PerChat
	if strings.HasPrefix(t.Chat, "-") && p.PerGroup > 0 {
		chat = p.PerGroup
	}
	var latest time.Time
	for _, k := range []struct {
		key      string
		interval time.Duration
	}{{chatKey(t), chat}, {t.Channel + ":bot", p.PerBot}} {
		if k.interval <= 0 {
			continue
		}
		at, ok, err := o.store.Pace(ctx, k.key, PaceSpacing(k.interval), time.Now(), paceWait)
		if err != nil {
			return time.Time{}, false, err
		}
		if !ok {
			return at, false, nil
		}
		if at.After(latest) {
			latest = at
		}
	}
	return latest, true, nil
}

// chatKey is the pacing key of t's chat.
func chatKey(t broker.Target) string { return t.Channel + ":chat:" + t.Chat }

// holdPace keeps every instance off t's chat until until (a platform's
// "retry after"): the store's next slot moves there, and the calls of
// this instance waiting for an earlier slot take a new one.
func (o *Outbox) holdPace(ctx context.Context, t broker.Target, until time.Time) {
	// The stores keep milliseconds: round up, never a slot a little early.
	until = until.Add(time.Millisecond - 1).Truncate(time.Millisecond)
	o.holds.place(chatKey(t), until)
	if err := o.store.HoldPace(ctx, chatKey(t), until); err != nil {
		o.log.Warn("platform outbox: hold pace", "channel", t.Channel, "chat", t.Chat, "err", err)
	}
}

// paceHolds remembers, per pacing key, when this instance last learned of
// a platform's retry_after and until when it holds. The zero value is
// ready for use.
type paceHolds struct {
	mu sync.Mutex
	m  map[string]paceHold
}

type paceHold struct{ placed, until time.Time }

// place records a hold of key until until, placed now; holds that have
// ended are forgotten.
func (h *paceHolds) place(key string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if h.m == nil {
		h.m = map[string]paceHold{}
	}
	for k, v := range h.m {
		if !v.until.After(now) {
			delete(h.m, k)
		}
	}
	if old, ok := h.m[key]; ok && old.until.After(until) {
		until = old.until
	}
	h.m[key] = paceHold{placed: now, until: until}
}

// placedSince reports whether a hold of key that has not ended yet was
// placed after since.
func (h *paceHolds) placedSince(key string, since time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.m[key]
	return ok && v.placed.After(since) && v.until.After(time.Now())
}

package broker

import (
	"context"
	"strings"
	"time"
)

// Pacing is the sending rate of one channel, shared by every instance
// through the store: calls are spaced at least these intervals apart, per
// bot and per chat. A zero interval means no pacing at that level. A burst
// is paced, never dropped: work beyond the rate waits its turn.
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

// paceWait is the longest an attempt waits in place for a pacing slot;
// beyond it the task is put back until its slot.
const paceWait = 2 * time.Second

// pace takes a slot for a call to t, waiting for it when it is near. It
// returns ok false with the time of the free slot when that is too far.
func (b *Broker) pace(ctx context.Context, t Target) (time.Time, bool, error) {
	p, ok := b.ocfg.Pacing[t.Channel]
	if !ok {
		return time.Time{}, true, nil
	}
	chat := p.PerChat
	if strings.HasPrefix(t.Chat, "-") && p.PerGroup > 0 {
		chat = p.PerGroup
	}
	var latest time.Time
	for _, k := range []struct {
		key      string
		interval time.Duration
	}{{t.Channel + ":chat:" + t.Chat, chat}, {t.Channel + ":bot", p.PerBot}} {
		if k.interval <= 0 {
			continue
		}
		at, ok, err := b.store.Pace(ctx, k.key, k.interval, time.Now(), paceWait)
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
	if wait := time.Until(latest); wait > 0 {
		select {
		case <-ctx.Done():
			return time.Time{}, false, ctx.Err()
		case <-time.After(wait):
		}
	}
	return time.Time{}, true, nil
}

// holdPace keeps every instance off t's chat until until (a platform's
// "retry after").
func (b *Broker) holdPace(ctx context.Context, t Target, until time.Time) {
	if err := b.store.HoldPace(ctx, t.Channel+":chat:"+t.Chat, until); err != nil {
		b.log.Warn("platform outbox: hold pace", "channel", t.Channel, "chat", t.Chat, "err", err)
	}
}

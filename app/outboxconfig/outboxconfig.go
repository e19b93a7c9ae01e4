package outboxconfig

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/internal/config"
)

// Config is the outbox section: how long an ask waits for the
// platforms, and how fast the bridge sends to each of them. Unset keys
// take the platforms' published limits (outbox.DefaultPacing).
type Config struct {
	// Grace is how long an ask waits for the first attempts of its posts
	// before it answers (2s when unset; 100ms–30s).
	Grace *config.Duration `yaml:"grace"`
	// Pacing holds the sending rates per platform.
	Pacing PacingConfig `yaml:"pacing"`
}

// PacingConfig holds the sending rates of each platform, as "N/s",
// "N/min" or "N/h", or "off" for no pacing at that level.
type PacingConfig struct {
	Telegram TelegramPacing `yaml:"telegram"`
	Slack    ChannelPacing  `yaml:"slack"`
	Discord  ChannelPacing  `yaml:"discord"`
}

// TelegramPacing is Telegram's rates: per bot (30/s), per private chat
// (1/s) and per group (20/min).
type TelegramPacing struct {
	PerBot   string `yaml:"per_bot"`
	PerChat  string `yaml:"per_chat"`
	PerGroup string `yaml:"per_group"`
}

// ChannelPacing is the rate per channel of Slack (1/s) or Discord (off:
// its client library follows the platform's per-route buckets).
type ChannelPacing struct {
	PerChannel string `yaml:"per_channel"`
}

// Bounds of the outbox keys: a rate above maxRate or below minRate is a
// mistake (a unit left out, a rate per hour written per second).
const (
	minGrace = 100 * time.Millisecond
	maxGrace = 30 * time.Second
	maxRate  = 1000 // a second
	// fastest and slowest are the intervals of maxRate and one an hour.
	fastest = time.Second / maxRate
	slowest = time.Hour
)

// Validate checks every key, naming the bad one and its value.
func (o Config) Validate() error {
	var p config.Problems
	if o.Grace != nil {
		if g := time.Duration(*o.Grace); g < minGrace || g > maxGrace {
			p.Add(fmt.Errorf("outbox.grace: %s is outside %s–%s", g, minGrace, maxGrace))
		}
	}
	keys := o.Pacing.keys()
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		if _, _, err := parseRate(keys[key]); err != nil {
			p.Add(fmt.Errorf("outbox.pacing.%s: %w", key, err))
		}
	}
	return errors.Join(p...)
}

// keys returns the pacing keys by their path under outbox.pacing.
func (pc PacingConfig) keys() map[string]string {
	return map[string]string{
		"telegram.per_bot": pc.Telegram.PerBot, "telegram.per_chat": pc.Telegram.PerChat,
		"telegram.per_group": pc.Telegram.PerGroup,
		"slack.per_channel":  pc.Slack.PerChannel, "discord.per_channel": pc.Discord.PerChannel,
	}
}

// AskGrace returns how long an ask waits for the first attempts of its
// posts (broker.Config.Grace): zero, for the broker's default, when
// unset. Call it after Validate.
func (o Config) AskGrace() time.Duration {
	if o.Grace == nil {
		return 0
	}
	return time.Duration(*o.Grace)
}

// Delivery returns the outbox's configuration, its pacing over the
// platforms' published limits (outbox.DefaultPacing); call it after
// Validate.
func (o Config) Delivery() outbox.Config {
	out := outbox.Config{Pacing: outbox.DefaultPacing()}
	set := func(field *time.Duration, rate string) {
		if d, ok, _ := parseRate(rate); ok {
			*field = d
		}
	}
	tg, sl, dc := out.Pacing["telegram"], out.Pacing["slack"], out.Pacing["discord"]
	set(&tg.PerBot, o.Pacing.Telegram.PerBot)
	set(&tg.PerChat, o.Pacing.Telegram.PerChat)
	set(&tg.PerGroup, o.Pacing.Telegram.PerGroup)
	set(&sl.PerChat, o.Pacing.Slack.PerChannel)
	set(&dc.PerChat, o.Pacing.Discord.PerChannel)
	sl.PerGroup, dc.PerGroup = sl.PerChat, dc.PerChat
	out.Pacing["telegram"], out.Pacing["slack"] = tg, sl
	if dc != (outbox.Pacing{}) {
		out.Pacing["discord"] = dc
	}
	return out
}

// parseRate reads "N/s", "N/min" or "N/h" as the interval between two
// calls, or "off" as no pacing (interval 0). It reports ok false for ""
// (the default stays).
func parseRate(s string) (interval time.Duration, ok bool, err error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return 0, false, nil
	case "off":
		return 0, true, nil
	}
	num, unit, found := strings.Cut(s, "/")
	if !found {
		return 0, false, fmt.Errorf("%q is not a rate (use e.g. 30/s, 20/min, 100/h, or off)", s)
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hour":
		per = time.Hour
	default:
		return 0, false, fmt.Errorf("%q: the unit %q is not s, min or h", s, unit)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	switch {
	case err != nil:
		return 0, false, fmt.Errorf("%q: %q is not a number", s, num)
	case n <= 0:
		return 0, false, fmt.Errorf("%q: the rate must be above zero (write off for no pacing)", s)
	}
	interval = time.Duration(float64(per) / n)
	switch {
	case interval < fastest:
		return 0, false, fmt.Errorf("%q is above the most of %d/s", s, maxRate)
	case interval > slowest:
		return 0, false, fmt.Errorf("%q is below the least of 1/h", s)
	}
	return interval, true, nil
}

package telegram

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// suitePlatform is the fake Bot API with the Telegram channel in polling
// mode, for the shared round-trip suite.
type suitePlatform struct {
	channeltest.Fake
	fake *telegramfake.Server
}

func (p *suitePlatform) Name() string { return Name }

func (p *suitePlatform) NewChannel(t *testing.T, h broker.InboundHandler, opts channels.Options) broker.Channel {
	t.Setenv(tokenEnv, testToken)
	ch, err := New(Config{TokenEnv: tokenEnv, APIURL: p.fake.URL(), PollTimeout: time.Second}, h, opts)
	if err != nil {
		t.Fatalf("new channel: %v", err)
	}
	// A 429 on a call the channel makes itself (a tap's answer) is
	// waited out at once; the posts' 429 is returned to the outbox,
	// whose wait the suite checks.
	ch.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return ch
}

func TestChannelSuiteTelegram(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		fake := telegramfake.New(testToken, botUser)
		t.Cleanup(fake.Close)
		return &suitePlatform{Fake: fake.Harness(ana, bob, team, outside), fake: fake}
	})
}

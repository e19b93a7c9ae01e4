package slack

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// suitePlatform is the fake Slack with the Slack channel in Socket Mode,
// for the shared round-trip suite.
type suitePlatform struct {
	channeltest.Fake
	fake *slackfake.Server
}

func (p *suitePlatform) Name() string { return Name }

func (p *suitePlatform) NewChannel(t *testing.T, h broker.InboundHandler, opts channels.Options) broker.Channel {
	t.Setenv("TEST_SLACK_BOT", slackfake.BotToken)
	t.Setenv("TEST_SLACK_APP", slackfake.AppToken)
	ch, err := New(Config{BotTokenEnv: "TEST_SLACK_BOT", AppTokenEnv: "TEST_SLACK_APP", APIURL: p.fake.URL}, h, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return ch
}

func TestChannelSuiteSlack(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		fake := slackfake.New(t)
		return &suitePlatform{Fake: fake.Harness(ana, bob, general, random), fake: fake}
	})
}

package discord

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// suitePlatform is the fake Discord with the Discord channel on the
// gateway, for the shared round-trip suite.
type suitePlatform struct {
	channeltest.Fake
	fake  *discordfake.Server
	guild string
}

func (p *suitePlatform) Name() string { return Name }

func (p *suitePlatform) NewChannel(t *testing.T, h broker.InboundHandler, opts channels.Options) broker.Channel {
	t.Setenv("ASKBRIDGE_TEST_DISCORD_SUITE_TOKEN", p.fake.Token)
	ch, err := New(Config{TokenEnv: "ASKBRIDGE_TEST_DISCORD_SUITE_TOKEN", APIURL: p.fake.URL(),
		ApplicationID: p.fake.AppID, GuildID: p.guild}, h, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return ch
}

func TestChannelSuiteDiscord(t *testing.T) {
	channeltest.Run(t, func(t *testing.T) channeltest.Platform {
		fake := discordfake.New()
		t.Cleanup(fake.Close)
		guild := fake.NewGuild()
		return &suitePlatform{Fake: fake.Harness(guild, "ana", "bo"), fake: fake, guild: guild}
	})
}

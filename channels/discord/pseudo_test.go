package discord

import (
	"testing"

	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// TestPseudoLocaleDiscord: in en-XA every word Discord receives comes
// from the catalog, and every message fits Discord's 2,000 characters of
// content and 80 of a button's label.
func TestPseudoLocaleDiscord(t *testing.T) {
	channeltest.RunPseudoLocale(t, func(t *testing.T) channeltest.Platform {
		fake := discordfake.New()
		t.Cleanup(fake.Close)
		guild := fake.NewGuild()
		return &suitePlatform{Fake: fake.Harness(guild, "ana", "bo"), fake: fake, guild: guild}
	}, channeltest.ShowLimits{Text: 2000, Label: maxButtonLabel})
}

package telegram

import (
	"testing"

	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// TestPseudoLocaleTelegram: in en-XA every word the Bot API receives
// comes from the catalog, and every message fits Telegram's 4,096
// characters.
func TestPseudoLocaleTelegram(t *testing.T) {
	channeltest.RunPseudoLocale(t, func(t *testing.T) channeltest.Platform {
		fake := telegramfake.New(testToken, botUser)
		t.Cleanup(fake.Close)
		return &suitePlatform{Fake: fake.Harness(ana, bob, team, outside), fake: fake}
	}, channeltest.ShowLimits{Text: maxText, Label: 64})
}

package slack

import (
	"testing"

	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// TestPseudoLocaleSlack: in en-XA every word Slack receives comes from
// the catalog, every message's text is within a section's 3,000
// characters and every button within its 75.
func TestPseudoLocaleSlack(t *testing.T) {
	channeltest.RunPseudoLocale(t, func(t *testing.T) channeltest.Platform {
		fake := slackfake.New(t)
		return &suitePlatform{Fake: fake.Harness(ana, bob, general, random), fake: fake}
	}, channeltest.ShowLimits{Text: 3000, Label: maxButtonText})
}

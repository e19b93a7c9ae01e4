package discord

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"
)

// defaultAckAfter is how long an interaction waits for the broker before
// it is acknowledged with a deferred response: Discord drops interactions
// not answered within three seconds.
const defaultAckAfter = 2 * time.Second

// respondInTime works out the response to i. When the broker answers
// within ackAfter, that response is returned and finish is nil. Otherwise
// the returned response is a deferred acknowledgement, to be sent at once,
// and finish (which blocks until the broker is done) delivers the real
// response as a follow-up through the interaction's webhook.
func (c *Channel) respondInTime(ctx context.Context, i *discordgo.Interaction) (now response, finish func()) {
	done := make(chan response, 1)
	go func() { done <- c.interact(ctx, i) }()
	t := time.NewTimer(c.ackAfter)
	defer t.Stop()
	select {
	case r := <-done:
		return r, nil
	case <-t.C:
	}
	deferred := response{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if i.Type == discordgo.InteractionApplicationCommand || i.Message == nil {
		deferred = response{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
			Data: &responseData{Flags: discordgo.MessageFlagsEphemeral}}
	}
	return deferred, func() {
		r := <-done
		if err := c.followUp(ctx, i, deferred, r); err != nil {
			c.log.Warn("delivering a late interaction response failed", "chat", i.ChannelID, "err", redact(err.Error(), i.Token))
		}
	}
}

// followUp delivers r after deferred was sent: an update of the message
// (or of the deferred reply) by editing @original, or an ephemeral
// follow-up message when the component's message is to stay as it is.
func (c *Channel) followUp(ctx context.Context, i *discordgo.Interaction, deferred, r response) error {
	if r.Data == nil {
		return nil
	}
	original := discordgo.EndpointWebhookMessage(i.AppID, i.Token, "@original")
	edit := func(d responseData) error {
		return c.call(ctx, func(opts ...discordgo.RequestOption) error {
			_, err := c.session.RequestWithBucketID("PATCH", original, d, original, opts...)
			return err
		})
	}
	switch {
	case r.Type == discordgo.InteractionResponseUpdateMessage:
		return edit(responseData{Content: r.Data.Content, Components: r.Data.Components, AllowedMentions: r.Data.AllowedMentions})
	case deferred.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource:
		return edit(responseData{Content: r.Data.Content, AllowedMentions: r.Data.AllowedMentions})
	}
	hook := discordgo.EndpointWebhookToken(i.AppID, i.Token)
	return c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := c.session.RequestWithBucketID("POST", hook, responseData{
			Content: r.Data.Content, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: r.Data.AllowedMentions,
		}, hook, opts...)
		return err
	})
}

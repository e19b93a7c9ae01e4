package discord

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/bwmarrin/discordgo"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Threader = (*Channel)(nil)

// PostInThread sends an agent's reply as a reply to the posted copy m,
// as plain text (markdown escaped, mentioning nobody). A reply longer
// than one message's content is sent as several, in order, each
// replying to the copy. It is a direct call, not the outbox's: the agent
// is told when Discord refuses it. People answer the agent by replying
// to the question's message.
func (c *Channel) PostInThread(ctx context.Context, q *broker.Question, m broker.MessageRef, text string) error {
	if m.MessageID == "" {
		return broker.Permanent(fmt.Errorf("discord: reply on %s: the copy names no message", q.ID))
	}
	to, err := c.channelID(ctx, m.Chat)
	if err != nil {
		return classify(fmt.Errorf("discord: reply on %s in %s: %w", q.ID, m.Chat, err))
	}
	no := false
	for _, part := range escapedParts(text, maxContent) {
		err := c.call(ctx, func(opts ...discordgo.RequestOption) error {
			_, err := c.session.ChannelMessageSendComplex(to, &discordgo.MessageSend{
				Content:         part,
				AllowedMentions: noMentions(),
				Reference:       &discordgo.MessageReference{MessageID: m.MessageID, ChannelID: to, FailIfNotExists: &no},
			}, opts...)
			return err
		})
		if err != nil {
			return classify(fmt.Errorf("discord: reply on %s in %s: %w", q.ID, m.Chat, err))
		}
	}
	c.log.Info("reply posted", "question_id", q.ID, "chat", m.Chat)
	return nil
}

// escapedParts escapes s for Discord markdown and splits it into parts
// of at most max UTF-16 units each, never inside a character's escape;
// a part ends at the last line break that fits when there is one.
func escapedParts(s string, max int) []string {
	var parts []string
	var b strings.Builder
	n, lastBreak := 0, -1
	for _, r := range s {
		piece := escape(string(r))
		w := 0
		for _, pr := range piece {
			w += max1(utf16.RuneLen(pr))
		}
		for n+w > max && b.Len() > 0 {
			cut, rest := b.String(), ""
			if lastBreak > 0 {
				cut, rest = cut[:lastBreak], cut[lastBreak:]
			}
			parts = append(parts, cut)
			b.Reset()
			b.WriteString(rest)
			n, lastBreak = units(rest), -1
		}
		if r == '\n' {
			lastBreak = b.Len() + len(piece)
		}
		b.WriteString(piece)
		n += w
	}
	if b.Len() > 0 || len(parts) == 0 {
		parts = append(parts, b.String())
	}
	return parts
}

// max1 counts a rune UTF-16 cannot hold as one unit.
func max1(w int) int {
	if w < 1 {
		return 1
	}
	return w
}

package discord

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// userPrefix marks a chat that is a person's direct messages with the bot:
// "user:556677889900112233". Discord gives every such conversation its
// own channel id, which the bot learns by opening it; the chat stays the
// person's id so that routes can name people, and every action in a DM is
// reported with this chat.
const userPrefix = "user:"

// dmChat returns the chat of a person's DM with the bot.
func dmChat(userID string) string { return userPrefix + userID }

// checkChat reports whether chat is a channel id or "user:<id>".
func checkChat(chat string) error {
	id := strings.TrimPrefix(chat, userPrefix)
	if !snowflake(id) {
		return fmt.Errorf("%q is not a Discord channel id or user:<user id>", chat)
	}
	return nil
}

// channelID returns the Discord channel to send to for chat, opening the
// DM channel of a person when chat names one.
func (c *Channel) channelID(ctx context.Context, chat string) (string, error) {
	user, ok := strings.CutPrefix(chat, userPrefix)
	if !ok {
		return chat, nil
	}
	c.mu.Lock()
	id, known := c.dms[user]
	c.mu.Unlock()
	if known {
		return id, nil
	}
	var dm *discordgo.Channel
	err := c.call(ctx, func(opts ...discordgo.RequestOption) (err error) {
		dm, err = c.session.UserChannelCreate(user, opts...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("open the DM with user %s: %w", user, err)
	}
	c.mu.Lock()
	c.dms[user] = dm.ID
	c.mu.Unlock()
	return dm.ID, nil
}

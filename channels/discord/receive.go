package discord

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// handleTimeout bounds the work done for one gateway event.
const handleTimeout = 30 * time.Second

// Run connects to the gateway, registers the application commands, and
// receives interactions (in gateway mode) and messages until ctx ends. A
// failed connection is retried with backoff; Run returns nil when ctx
// ends.
func (c *Channel) Run(ctx context.Context) error {
	c.mu.Lock()
	c.runCtx = ctx
	c.mu.Unlock()
	retry := backoff.New(time.Second, time.Minute)
	for {
		err := c.session.Open()
		if err == nil {
			break
		}
		wait := retry.Next()
		if hint := closeHint(err); hint != "" {
			c.log.Error("gateway refused the connection: "+hint, "err", err, "retry_in", wait)
		} else {
			c.log.Warn("gateway connection failed; retrying", "err", err, "retry_in", wait)
		}
		if backoff.Sleep(ctx, wait) != nil {
			return nil
		}
	}
	defer func() {
		if err := c.session.Close(); err != nil {
			c.log.Warn("gateway close", "err", err)
		}
	}()
	c.learnIdentity()
	if err := c.registerCommands(ctx); err != nil {
		c.log.Error("registering application commands failed: /answer and /decline will be missing; buttons and replies still work", "err", err)
	}
	c.log.Info("gateway connected", "mode", c.cfg.Mode)
	<-ctx.Done()
	c.late.Wait()
	return nil
}

// closeHint explains the gateway close codes that need a person to act.
func closeHint(err error) string {
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == 401 {
		return "the bot token is invalid (check the variable named by discord.token_env)"
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return ""
	}
	switch ce.Code {
	case 4004:
		return "the bot token is invalid (check the variable named by discord.token_env)"
	case 4013, 4014:
		return "an intent is not allowed: with discord.message_content on, enable the Message Content Intent under Bot in the developer portal"
	}
	return ""
}

// learnIdentity takes the bot's user id and the application id from the
// gateway's READY.
func (c *Channel) learnIdentity() {
	st := c.session.State
	st.RLock()
	defer st.RUnlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.User != nil {
		c.botID = st.User.ID
	}
	if c.appID == "" && st.Application != nil {
		c.appID = st.Application.ID
	}
}

// registerCommands overwrites the bot's application commands with /answer,
// /decline and /pending, in the configured guild or globally.
func (c *Channel) registerCommands(ctx context.Context) error {
	c.mu.Lock()
	app := c.appID
	c.mu.Unlock()
	if app == "" {
		return fmt.Errorf("discord: register commands: no application id (set discord.application_id)")
	}
	err := c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := c.session.ApplicationCommandBulkOverwrite(app, c.cfg.GuildID, commands(), opts...)
		return err
	})
	if err != nil {
		return fmt.Errorf("discord: register commands: %w", err)
	}
	return nil
}

// eventCtx returns a context for handling one gateway event.
func (c *Channel) eventCtx() (context.Context, context.CancelFunc) {
	c.mu.Lock()
	ctx := c.runCtx
	c.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, handleTimeout)
}

// onInteraction answers an interaction that arrived over the gateway.
func (c *Channel) onInteraction(s *discordgo.Session, ev *discordgo.InteractionCreate) {
	if ev.Interaction == nil {
		return
	}
	ctx, cancel := c.eventCtx()
	defer cancel()
	resp, finish := c.respondInTime(ctx, ev.Interaction)
	endpoint := discordgo.EndpointInteractionResponse(ev.ID, ev.Token)
	err := c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := s.RequestWithBucketID("POST", endpoint, resp, endpoint, opts...)
		return err
	})
	if err != nil {
		c.log.Warn("answering an interaction failed", "chat", ev.ChannelID, "err", redact(err.Error(), ev.Token))
	}
	if finish != nil {
		finish()
	}
}

// onMessage hands a person's message to the broker: a reply to a question
// message (with ReplyTo) or a typed command, with the files attached to it
// (files.go). The broker ignores chatter.
func (c *Channel) onMessage(s *discordgo.Session, m *discordgo.MessageCreate) {
	if m.Message == nil || m.Author == nil || m.Author.Bot || m.Author.System || m.WebhookID != "" {
		return
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return // joins, pins, thread starts and other system messages
	}
	c.mu.Lock()
	bot := c.botID
	c.mu.Unlock()
	if m.Author.ID == bot {
		return
	}
	text := stripMention(m.Content, bot)
	files := c.messageFiles(m.Message)
	if text == "" && len(files) == 0 {
		return // no content: the message-content intent is off
	}
	in := broker.Inbound{
		Channel: Name, Chat: m.ChannelID, User: m.Author.ID, Name: m.Author.Username,
		Text: text, Private: m.GuildID == "", Attachments: files,
	}
	if in.Private {
		in.Chat = dmChat(m.Author.ID)
	}
	if m.Member != nil {
		in.Roles = append([]string(nil), m.Member.Roles...)
	}
	if ref := m.MessageReference; ref != nil && ref.MessageID != "" && ref.Type == discordgo.MessageReferenceTypeDefault &&
		(ref.ChannelID == "" || ref.ChannelID == m.ChannelID) {
		in.ReplyTo = ref.MessageID
	}
	ctx, cancel := c.eventCtx()
	defer cancel()
	reply := c.h.HandleInbound(ctx, in)
	if reply.Ignored || reply.Text == "" {
		return
	}
	no := false
	err := c.call(ctx, func(opts ...discordgo.RequestOption) error {
		_, err := s.ChannelMessageSendComplex(m.ChannelID, &discordgo.MessageSend{
			Content:         cutUnits(escape(reply.Text), maxContent),
			AllowedMentions: noMentions(),
			Reference:       &discordgo.MessageReference{MessageID: m.ID, ChannelID: m.ChannelID, FailIfNotExists: &no},
		}, opts...)
		return err
	})
	if err != nil {
		c.log.Warn("replying to a message failed", "chat", m.ChannelID, "err", err)
	}
}

// stripMention removes a leading mention of the bot ("<@123> /answer …").
func stripMention(s, bot string) string {
	s = strings.TrimSpace(s)
	if bot != "" {
		for _, m := range []string{"<@" + bot + ">", "<@!" + bot + ">"} {
			if strings.HasPrefix(s, m) {
				return strings.TrimSpace(s[len(m):])
			}
		}
	}
	return s
}

// redact removes secret from s (an interaction token in a URL).
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

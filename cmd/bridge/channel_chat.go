package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
	"github.com/askbridge/askbridge/mcp"
)

// channelChat is the two-way half of `bridge channel`: once a relayed
// prompt has been answered, what the people who may answer it write
// under it reaches Claude as channel events, and the reply tool posts
// Claude's answers where they wrote. It long-polls the session's
// messages on the bridge, which counts the session as listening while
// it does; people are told their words were not sent when it does not.
type channelChat struct {
	c       *client.Client
	notify  func(ctx context.Context, method string, params any) error
	session string
	log     *slog.Logger

	wg sync.WaitGroup
}

// channelPollWait is how long one poll of the session's messages waits
// on the bridge: well inside the minute after which the bridge counts
// the session as gone.
const channelPollWait = 25 * time.Second

// replyToolName is the tool Claude answers people with.
const replyToolName = "reply"

// channelReplyInput is the reply tool's input.
type channelReplyInput struct {
	Text      string `json:"text" jsonschema:"what to tell the person, as plain text (at most 4000 characters)"`
	MessageID string `json:"message_id,omitempty" jsonschema:"the message_id attribute of the <channel> message you answer; leave it out to answer the latest"`
}

// channelReplyOutput says where the reply went.
type channelReplyOutput struct {
	Channel    string `json:"channel"`
	Chat       string `json:"chat,omitempty"`
	QuestionID string `json:"question_id"`
	ReplyTo    string `json:"reply_to"`
}

// addTool declares the reply tool on s.
func (ch *channelChat) addTool(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{
		Name: replyToolName,
		Description: "Answer a person who wrote to you through askbridge (a <channel> message with a message_id). " +
			"The text is posted where they wrote: in the question's Slack thread, as a reply on Telegram or Discord, on its card in the web inbox.",
	}, ch.reply)
}

// reply posts Claude's text through the bridge. A refusal (empty or
// overlong text, an unknown message) is the tool's error, in the
// bridge's words.
func (ch *channelChat) reply(ctx context.Context, _ *sdk.CallToolRequest, in channelReplyInput) (*sdk.CallToolResult, channelReplyOutput, error) {
	sent, err := ch.c.ReplyInSession(ctx, ch.session, in.MessageID, in.Text)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) {
			err = errors.New(ae.Message)
		}
		ch.log.Warn("reply refused", "message_id", in.MessageID, "err", err)
		return nil, channelReplyOutput{}, fmt.Errorf("not posted: %w", err)
	}
	ch.log.Info("reply posted", "question_id", sent.QuestionID, "reply_to", sent.ReplyTo, "channel", sent.Channel, "chat", sent.Chat)
	out := channelReplyOutput{Channel: sent.Channel, Chat: sent.Chat, QuestionID: sent.QuestionID, ReplyTo: sent.ReplyTo}
	text := fmt.Sprintf("Posted on %s beside question %s, answering message %s.", sent.Channel, sent.QuestionID, sent.ReplyTo)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// listen starts the poll of the session's messages until ctx ends;
// stop waits for it.
func (ch *channelChat) listen(ctx context.Context) {
	ch.wg.Go(func() { ch.poll(ctx) })
}

// stop waits for the poll to end (its context must have ended).
func (ch *channelChat) stop() { ch.wg.Wait() }

// poll hands every message people write to the session to Claude, in
// order, from the moment it starts. A bridge that cannot be reached is
// polled again after a growing pause; the poll ends with ctx, or when
// Claude Code's connection is gone.
func (ch *channelChat) poll(ctx context.Context) {
	after := int64(-1)
	pauses := backoff.New(250*time.Millisecond, 10*time.Second)
	for ctx.Err() == nil {
		// The first poll returns at once: from then on the bridge
		// counts the session as listening, and keeps what people write.
		wait := channelPollWait
		if after < 0 {
			wait = 0
		}
		page, err := ch.c.SessionMessages(ctx, ch.session, after, wait)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			ch.log.Warn("could not read the session's messages; trying again", "err", err)
			if pauses.Wait(ctx) != nil {
				return
			}
			continue
		}
		pauses.Reset()
		if after < 0 {
			ch.log.Info("listening for people's messages", "session_id", ch.session)
		}
		for _, m := range page.Messages {
			if err := ch.deliver(ctx, m); err != nil {
				ch.log.Warn("could not hand a message to Claude Code", "message_id", m.MessageID, "err", err)
				if errors.Is(err, mcp.ErrChannelClosed) {
					return
				}
			}
		}
		after = page.Next
	}
}

// deliver sends one message as a channel event.
func (ch *channelChat) deliver(ctx context.Context, m client.SessionMessage) error {
	meta := map[string]string{"message_id": m.MessageID, "question_id": m.QuestionID, "channel": m.By.Channel, "user": m.By.User}
	if m.By.Name != "" {
		meta["user_name"] = m.By.Name
	}
	if p := m.By.Person; p != nil {
		meta["person"] = p.ID
		if p.Name != "" {
			meta["person_name"] = p.Name
		}
	}
	nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), channelNotifyTimeout)
	defer cancel()
	if err := ch.notify(nctx, mcp.MethodChannelEvent, mcp.ChannelEvent{Content: m.Text, Meta: meta}); err != nil {
		return err
	}
	ch.log.Info("message handed to Claude Code", "message_id", m.MessageID, "question_id", m.QuestionID, "channel", m.By.Channel, "user", m.By.User)
	return nil
}

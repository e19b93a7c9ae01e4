package slackfake

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// Harness is the fake driven through the harness every fake platform
// offers: person (added to the workspace) acts in the conversations a and
// b, over the Socket Mode connection of the app.
func (s *Server) Harness(person User, a, b string) channeltest.Fake {
	s.AddUser(person)
	return &harness{s: s, person: person, chats: [2]string{a, b}}
}

type harness struct {
	s      *Server
	person User
	chats  [2]string
}

func (h *harness) Chats() [2]string { return h.chats }

func (h *harness) Messages(chat string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range h.s.Messages() {
		if m.Channel != chat || m.ThreadTS != "" {
			continue // another conversation, or a reply in a thread
		}
		cm := channeltest.Message{ID: m.TS, Text: m.Text}
		for _, b := range m.Buttons() {
			v, _ := json.Marshal(b)
			cm.Buttons = append(cm.Buttons, channeltest.Button{Label: b.Text, Value: string(v)})
		}
		out = append(out, cm)
	}
	return out
}

// deliver sends one Socket Mode envelope and waits for its ack.
func (h *harness) deliver(typ string, payload any) error {
	ctx, cancel := context.WithTimeout(context.Background(), channeltest.WaitLimit)
	defer cancel()
	if err := h.s.WaitConnected(ctx); err != nil {
		return err
	}
	id, err := h.s.Send(typ, payload)
	if err != nil {
		return err
	}
	_, err = h.s.WaitAck(ctx, id)
	return err
}

func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (string, error) {
	var sb Button
	if err := json.Unmarshal([]byte(b.Value), &sb); err != nil {
		return "", fmt.Errorf("slackfake: button %q: %w", b.Label, err)
	}
	msg, ok := h.s.Message(chat, m.ID)
	if !ok {
		return "", fmt.Errorf("slackfake: no message %s in %s", m.ID, chat)
	}
	before := len(h.s.Ephemerals())
	if err := h.deliver("interactive", ClickButton(msg, h.person, sb)); err != nil {
		return "", err
	}
	var told string
	ok = channeltest.Within(channeltest.WaitLimit, func() bool {
		for _, e := range h.s.Ephemerals()[before:] {
			if e.User == h.person.ID {
				told = e.Text
				return true
			}
		}
		return false
	})
	if !ok {
		return "", fmt.Errorf("slackfake: the app told %s nothing after the tap", h.person.Name)
	}
	return told, nil
}

// Type sends text typed in chat: a slash command when it starts with
// "/", as Slack delivers those, else a message.
func (h *harness) Type(chat, text string) error {
	if cmd, rest, ok := strings.Cut(text, " "); ok && strings.HasPrefix(cmd, "/") {
		return h.deliver("slash_commands", SlashPayload(SlashCommand(h.person, chat, "general", cmd, rest)))
	}
	return h.deliver("events_api", MessageEvent(MessageOpts{User: h.person, Channel: chat, Text: text}))
}

// Reply answers in the thread of m.
func (h *harness) Reply(chat string, m channeltest.Message, text string) error {
	return h.deliver("events_api", MessageEvent(MessageOpts{User: h.person, Channel: chat, Text: text, ThreadTS: m.ID}))
}

func (h *harness) RateLimitPosts(n int) { h.s.RateLimit("chat.postMessage", n, 1) }

func (h *harness) RefuseChat(chat string) { h.s.FailChannel(chat, "channel_not_found") }

func (h *harness) PostAttempts() int { return h.s.Calls("chat.postMessage") }

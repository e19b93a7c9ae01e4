package slackfake

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// Harness is the fake driven through the harness every fake platform
// offers: first and second (added to the workspace) act in the
// conversations a and b, over the Socket Mode connection of the app,
// first unless As says otherwise.
func (s *Server) Harness(first, second User, a, b string) channeltest.Fake {
	s.AddUser(first)
	s.AddUser(second)
	return &harness{s: s, people: [2]User{first, second}, person: first, chats: [2]string{a, b}}
}

type harness struct {
	s      *Server
	people [2]User
	person User
	chats  [2]string
}

func (h *harness) People() [2]channeltest.Person {
	return [2]channeltest.Person{{ID: h.people[0].ID, Name: h.people[0].Name}, {ID: h.people[1].ID, Name: h.people[1].Name}}
}

func (h *harness) As(i int) channeltest.Fake {
	as := *h
	as.person = h.people[i]
	return &as
}

func (h *harness) Chats() [2]string { return h.chats }

func (h *harness) Messages(chat string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range h.s.Messages() {
		if m.Channel != chat || m.ThreadTS != "" {
			continue // another conversation, or a reply in a thread
		}
		cm := channeltest.Message{ID: m.TS, Text: m.Text, Edits: m.Updates}
		for _, b := range m.Buttons() {
			cm.Buttons = append(cm.Buttons, harnessButton(b))
		}
		cm.Widgets = m.widgets()
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

// Tap answers with the ephemeral message the app posts for the person,
// which only they see.
func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (channeltest.Told, error) {
	var sb Button
	if err := json.Unmarshal([]byte(b.Value), &sb); err != nil {
		return channeltest.Told{}, fmt.Errorf("slackfake: button %q: %w", b.Label, err)
	}
	msg, ok := h.s.Message(chat, m.ID)
	if !ok {
		return channeltest.Told{}, fmt.Errorf("slackfake: no message %s in %s", m.ID, chat)
	}
	return h.send(ClickButton(msg, h.person, sb), "the tap")
}

// send delivers the interaction payload p (what) and returns the
// ephemeral message the app posts for the person.
func (h *harness) send(p map[string]any, what string) (channeltest.Told, error) {
	before := len(h.s.Ephemerals())
	if err := h.deliver("interactive", p); err != nil {
		return channeltest.Told{}, err
	}
	var told string
	ok := channeltest.Within(channeltest.WaitLimit, func() bool {
		for _, e := range h.s.Ephemerals()[before:] {
			if e.User == h.person.ID {
				told = e.Text
				return true
			}
		}
		return false
	})
	if !ok {
		return channeltest.Told{}, fmt.Errorf("slackfake: the app told %s nothing after %s", h.person.Name, what)
	}
	return channeltest.Told{Text: told, Private: true}, nil
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

// RateLimitPost rounds retryAfter up to whole seconds, as Slack's
// Retry-After header writes it.
func (h *harness) RateLimitPost(retryAfter time.Duration) {
	h.s.RateLimit("chat.postMessage", 1, int((retryAfter+time.Second-1)/time.Second))
}

func (h *harness) RefuseChat(chat string) { h.s.FailChannel(chat, "channel_not_found") }

func (h *harness) PostAttempts() []time.Time { return h.s.CallTimes("chat.postMessage") }

// Limits: an action_id is at most 255 characters, a button's value
// 2,000, an option's value 150.
func (h *harness) Limits() channeltest.Limits {
	return channeltest.Limits{Data: 2000, ID: 255, OptionValue: 150}
}

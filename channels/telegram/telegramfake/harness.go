package telegramfake

import (
	"fmt"
	"strconv"
	"time"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// Harness is the fake driven through the harness every fake platform
// offers: first and second act in chats a and b (both made known to the
// server), first unless As says otherwise.
func (s *Server) Harness(first, second User, a, b Chat) channeltest.Fake {
	s.AddChat(a)
	s.AddChat(b)
	return &harness{s: s, people: [2]User{first, second}, person: first, chats: [2]Chat{a, b}}
}

type harness struct {
	s      *Server
	people [2]User
	person User
	chats  [2]Chat
}

func (h *harness) People() [2]channeltest.Person {
	var out [2]channeltest.Person
	for i, u := range h.people {
		name := u.FirstName
		if u.Username != "" {
			name = "@" + u.Username
		}
		out[i] = channeltest.Person{ID: strconv.FormatInt(u.ID, 10), Name: name}
	}
	return out
}

func (h *harness) As(i int) channeltest.Fake {
	as := *h
	as.person = h.people[i]
	return &as
}

func chatID(chat string) int64 {
	id, _ := strconv.ParseInt(chat, 10, 64)
	return id
}

func (h *harness) Chats() [2]string {
	return [2]string{strconv.FormatInt(h.chats[0].ID, 10), strconv.FormatInt(h.chats[1].ID, 10)}
}

func (h *harness) Messages(chat string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range h.s.BotMessages(chatID(chat)) {
		if m.ReplyTo != 0 {
			continue // the bot's answer to a person
		}
		cm := channeltest.Message{ID: strconv.Itoa(m.ID), Text: m.Text, Edits: m.Edits}
		for _, row := range m.Keyboard {
			for _, b := range row {
				cm.Buttons = append(cm.Buttons, channeltest.Button{Label: b.Text, Value: b.CallbackData, Data: b.CallbackData})
			}
		}
		out = append(out, cm)
	}
	return out
}

// Tap answers with the callback query's answer, which Telegram shows
// only to the person who tapped.
func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (channeltest.Told, error) {
	id, err := strconv.Atoi(m.ID)
	if err != nil {
		return channeltest.Told{}, fmt.Errorf("telegramfake: message id %q: %w", m.ID, err)
	}
	cb := h.s.Tap(h.person, chatID(chat), id, b.Value)
	if !h.s.WaitFor(channeltest.WaitLimit, func() bool { return h.s.Callback(cb).Answered }) {
		return channeltest.Told{}, fmt.Errorf("telegramfake: the bot never answered the tap %s", cb)
	}
	return channeltest.Told{Text: h.s.Callback(cb).Text, Private: true}, nil
}

func (h *harness) Type(chat, text string) error {
	h.s.Send(h.person, chatID(chat), text, 0)
	return nil
}

func (h *harness) Reply(chat string, m channeltest.Message, text string) error {
	id, err := strconv.Atoi(m.ID)
	if err != nil {
		return fmt.Errorf("telegramfake: message id %q: %w", m.ID, err)
	}
	h.s.Send(h.person, chatID(chat), text, id)
	return nil
}

// RateLimitPost rounds retryAfter up to whole seconds, as the Bot API
// writes retry_after.
func (h *harness) RateLimitPost(retryAfter time.Duration) {
	h.s.FailNext("sendMessage", TooManyRequests(int((retryAfter+time.Second-1)/time.Second)))
}

func (h *harness) RefuseChat(chat string) { h.s.Block(chatID(chat)) }

func (h *harness) PostAttempts() []time.Time {
	var out []time.Time
	for _, c := range h.s.Calls("sendMessage") {
		out = append(out, c.At)
	}
	return out
}

// Choose fails: a Telegram message has no widgets, only an inline
// keyboard of buttons.
func (h *harness) Choose(chat string, m channeltest.Message, w channeltest.Widget, picked ...int) (channeltest.Told, error) {
	return channeltest.Told{}, fmt.Errorf("telegramfake: a Telegram message has no %s to choose in", w.Kind)
}

// Limits: callback_data is 1 to 64 bytes.
func (h *harness) Limits() channeltest.Limits { return channeltest.Limits{Data: 64} }

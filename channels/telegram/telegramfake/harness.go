package telegramfake

import (
	"fmt"
	"strconv"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// Harness is the fake driven through the harness every fake platform
// offers: person acts in chats a and b (both made known to the server).
func (s *Server) Harness(person User, a, b Chat) channeltest.Fake {
	s.AddChat(a)
	s.AddChat(b)
	return &harness{s: s, person: person, chats: [2]Chat{a, b}}
}

type harness struct {
	s      *Server
	person User
	chats  [2]Chat
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
		cm := channeltest.Message{ID: strconv.Itoa(m.ID), Text: m.Text}
		for _, row := range m.Keyboard {
			for _, b := range row {
				cm.Buttons = append(cm.Buttons, channeltest.Button{Label: b.Text, Value: b.CallbackData})
			}
		}
		out = append(out, cm)
	}
	return out
}

func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (string, error) {
	id, err := strconv.Atoi(m.ID)
	if err != nil {
		return "", fmt.Errorf("telegramfake: message id %q: %w", m.ID, err)
	}
	cb := h.s.Tap(h.person, chatID(chat), id, b.Value)
	if !h.s.WaitFor(channeltest.WaitLimit, func() bool { return h.s.Callback(cb).Answered }) {
		return "", fmt.Errorf("telegramfake: the bot never answered the tap %s", cb)
	}
	return h.s.Callback(cb).Text, nil
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

func (h *harness) RateLimitPosts(n int) {
	for range n {
		h.s.FailNext("sendMessage", TooManyRequests(1))
	}
}

func (h *harness) RefuseChat(chat string) { h.s.Block(chatID(chat)) }

func (h *harness) PostAttempts() int { return len(h.s.Calls("sendMessage")) }

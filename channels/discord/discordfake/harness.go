package discordfake

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/bwmarrin/discordgo"
)

// Harness is the fake driven through the harness every fake platform
// offers: a new person acts in two new text channels of guild, over the
// gateway the bot connects to.
func (s *Server) Harness(guild, person string) channeltest.Fake {
	return &harness{s: s, guild: guild, person: s.NewUser(person), chats: [2]string{s.AddChannel(guild), s.AddChannel(guild)}}
}

type harness struct {
	s      *Server
	guild  string
	person User
	chats  [2]string
}

// ready waits until the bot is connected and has registered its
// commands, so that what the person does reaches it and a rate limit set
// next meets the post, not the registration.
func (h *harness) ready() error {
	ctx, cancel := context.WithTimeout(context.Background(), channeltest.WaitLimit)
	defer cancel()
	if err := h.s.WaitConnected(ctx); err != nil {
		return err
	}
	return Until(ctx, func() bool { return h.s.Commands(h.guild) != nil })
}

func (h *harness) Chats() [2]string { return h.chats }

func (h *harness) Messages(chat string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range h.s.Messages(chat) {
		if !m.Author.Bot || m.Reference != nil {
			continue // a person's message, or the bot's reply to one
		}
		cm := channeltest.Message{ID: m.ID, Text: m.Content}
		for _, b := range m.Buttons() {
			cm.Buttons = append(cm.Buttons, channeltest.Button{Label: b.Label, Value: b.CustomID})
		}
		out = append(out, cm)
	}
	return out
}

func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (string, error) {
	if err := h.ready(); err != nil {
		return "", err
	}
	msg := h.s.Message(m.ID)
	if msg == nil {
		return "", fmt.Errorf("discordfake: no message %s in %s", m.ID, chat)
	}
	id := h.s.Click(h.person, msg, b.Value)
	ctx, cancel := context.WithTimeout(context.Background(), channeltest.WaitLimit)
	defer cancel()
	r, err := h.s.WaitResponse(ctx, id)
	if err != nil {
		return "", err
	}
	switch discordgo.InteractionResponseType(r.Type) {
	case discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseDeferredChannelMessageWithSource:
		// The bot took longer than Discord's deadline: its words come
		// as the edit of the deferred reply.
		err = Until(ctx, func() bool { r, _ = h.s.Original(id); return r.Data != nil })
		if err != nil {
			return "", fmt.Errorf("discordfake: the deferred reply to %s was never edited: %w", id, err)
		}
	}
	if r.Data == nil {
		return "", nil
	}
	return r.Data.Content, nil
}

// answerCommand is "/answer <id> <choice…>" as a person types it; the
// Discord client sends it as the answer command with its two options.
var answerCommand = regexp.MustCompile(`^/answer\s+(\S+)\s+(.+)$`)

// Type sends text typed in chat: "/answer <id> <choice>" as the slash
// command Discord's client makes of it, anything else as a message.
func (h *harness) Type(chat, text string) error {
	if err := h.ready(); err != nil {
		return err
	}
	if m := answerCommand.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
		h.s.Command(h.person, chat, "answer", "id", m[1], "choice", m[2])
		return nil
	}
	h.s.Say(h.person, chat, text, "")
	return nil
}

// Reply sends text as a reply to message m.
func (h *harness) Reply(chat string, m channeltest.Message, text string) error {
	if err := h.ready(); err != nil {
		return err
	}
	h.s.Say(h.person, chat, text, m.ID)
	return nil
}

func (h *harness) RateLimitPosts(n int) {
	if h.ready() == nil {
		h.s.RateLimitNext(n, 0.05)
	}
}

func (h *harness) RefuseChat(chat string) { h.s.Deny(chat, 50001) }

func (h *harness) PostAttempts() int {
	n := 0
	for _, r := range h.s.Requests() {
		if r.Method == "POST" && strings.HasPrefix(r.Path, "/api/v9/channels/") && strings.HasSuffix(r.Path, "/messages") {
			n++
		}
	}
	return n
}

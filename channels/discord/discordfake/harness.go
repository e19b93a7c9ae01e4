package discordfake

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/bwmarrin/discordgo"
)

// Harness is the fake driven through the harness every fake platform
// offers: two new people, named first and second, act in two new text
// channels of guild, over the gateway the bot connects to, first unless
// As says otherwise.
func (s *Server) Harness(guild, first, second string) channeltest.Fake {
	people := [2]User{s.NewUser(first), s.NewUser(second)}
	return &harness{s: s, guild: guild, people: people, person: people[0], chats: [2]string{s.AddChannel(guild), s.AddChannel(guild)}}
}

type harness struct {
	s      *Server
	guild  string
	people [2]User
	person User
	chats  [2]string
}

func (h *harness) People() [2]channeltest.Person {
	return [2]channeltest.Person{{ID: h.people[0].ID, Name: h.people[0].Username}, {ID: h.people[1].ID, Name: h.people[1].Username}}
}

func (h *harness) As(i int) channeltest.Fake {
	as := *h
	as.person = h.people[i]
	return &as
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
		cm := channeltest.Message{ID: m.ID, Text: m.Content, Edits: m.Edits}
		for _, b := range m.Buttons() {
			cm.Buttons = append(cm.Buttons, channeltest.Button{Label: b.Label, Value: b.CustomID, Data: b.CustomID})
		}
		cm.Widgets = widgets(m.Components)
		out = append(out, cm)
	}
	return out
}

// Tap answers with the interaction's reply: private when it is
// ephemeral, else the message for everyone (the tapped copy, edited).
func (h *harness) Tap(chat string, m channeltest.Message, b channeltest.Button) (channeltest.Told, error) {
	if err := h.ready(); err != nil {
		return channeltest.Told{}, err
	}
	msg := h.s.Message(m.ID)
	if msg == nil {
		return channeltest.Told{}, fmt.Errorf("discordfake: no message %s in %s", m.ID, chat)
	}
	ctx, cancel := context.WithTimeout(context.Background(), channeltest.WaitLimit)
	defer cancel()
	return h.told(ctx, h.s.Click(h.person, msg, b.Value))
}

// told waits for the bot's response to the interaction id and returns
// what the person is told.
func (h *harness) told(ctx context.Context, id string) (channeltest.Told, error) {
	r, err := h.s.WaitResponse(ctx, id)
	if err != nil {
		return channeltest.Told{}, err
	}
	switch discordgo.InteractionResponseType(r.Type) {
	case discordgo.InteractionResponseDeferredMessageUpdate:
		// The bot took longer than Discord's deadline: its words come as
		// the edit of the message, for everyone, or as an ephemeral
		// follow-up when the message is to stay as it is.
		var told channeltest.Told
		err = Until(ctx, func() bool {
			if o, ok := h.s.Original(id); ok && o.Data != nil {
				told = channeltest.Told{Text: o.Content()}
				return true
			}
			if f := h.s.FollowUps(id); len(f) > 0 {
				told = channeltest.Told{Text: f[0].Content(), Private: f[0].Ephemeral()}
				return true
			}
			return false
		})
		if err != nil {
			return channeltest.Told{}, fmt.Errorf("discordfake: the deferred reply to %s never came: %w", id, err)
		}
		return told, nil
	case discordgo.InteractionResponseDeferredChannelMessageWithSource:
		// The deferred reply is edited; it keeps the deferral's flags.
		private := r.Data != nil && r.Data.Flags&FlagEphemeral != 0
		err = Until(ctx, func() bool { r, _ = h.s.Original(id); return r.Data != nil })
		if err != nil {
			return channeltest.Told{}, fmt.Errorf("discordfake: the deferred reply to %s was never edited: %w", id, err)
		}
		return channeltest.Told{Text: r.Content(), Private: private}, nil
	}
	return channeltest.Told{Text: r.Content(), Private: r.Ephemeral()}, nil
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

// RateLimitPost makes the next REST request, once the bot is ready,
// answer 429: the next the suite makes the bot send is a post.
func (h *harness) RateLimitPost(retryAfter time.Duration) {
	if h.ready() == nil {
		h.s.RateLimitNext(1, retryAfter.Seconds())
	}
}

func (h *harness) RefuseChat(chat string) { h.s.Deny(chat, 50001) }

func (h *harness) PostAttempts() []time.Time {
	var out []time.Time
	for _, r := range h.s.Requests() {
		if r.Method == "POST" && strings.HasPrefix(r.Path, "/api/v9/channels/") && strings.HasSuffix(r.Path, "/messages") {
			out = append(out, r.At)
		}
	}
	return out
}

// Limits: a custom_id and a select option's value are 1 to 100
// characters.
func (h *harness) Limits() channeltest.Limits {
	return channeltest.Limits{Data: 100, OptionValue: 100}
}

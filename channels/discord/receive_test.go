package discord

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
	"github.com/bwmarrin/discordgo"
)

func TestGatewayConnectsAndRegistersCommands(t *testing.T) {
	tests := []struct {
		name    string
		guild   bool
		content bool
	}{
		{"guild commands", true, false},
		{"global commands with message content", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, &brokertest.Inbox{}, func(c *Config) {
				if !tt.guild {
					c.GuildID = ""
				}
				c.ApplicationID = "" // learnt from READY
				c.MessageContent = tt.content
			})
			e.run(t)
			var cmds []struct {
				Name    string `json:"name"`
				Options []struct {
					Name     string `json:"name"`
					Type     int    `json:"type"`
					Required bool   `json:"required"`
				} `json:"options"`
			}
			if err := json.Unmarshal(e.fake.Commands(e.ch.cfg.GuildID), &cmds); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range cmds {
				names = append(names, c.Name)
			}
			if !slices.Equal(names, []string{"answer", "decline", "discuss", "pending"}) {
				t.Errorf("commands = %q", names)
			}
			if o := cmds[0].Options; len(o) != 2 || o[0].Name != "id" || o[1].Name != "choice" || !o[1].Required || o[1].Type != 3 {
				t.Errorf("/answer options = %+v, want required string id and choice", o)
			}
			var ident struct {
				Token   string `json:"token"`
				Intents int    `json:"intents"`
			}
			_ = json.Unmarshal(e.fake.Identifies()[0], &ident)
			want := discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentsDirectMessages
			if tt.content {
				want |= discordgo.IntentMessageContent
			}
			if ident.Intents != int(want) {
				t.Errorf("identify intents = %d, want %d", ident.Intents, want)
			}
		})
	}
}

// TestGatewayInbound checks that every form of action reaches the broker
// as the exact Inbound text, with who and where.
func TestGatewayInbound(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, rec, nil)
	e.run(t)
	q := question("k7m2qx", dbPrompt())
	m, _ := e.post(t, q)
	ana := e.fake.NewUser("ana", "111", "222")
	dm := e.fake.AddChannel("")
	n := 0
	// next is the next action; opening a modal first reads its question
	// (for the card's language), which records nothing and is skipped.
	next := func(t *testing.T) broker.Inbound {
		for {
			n++
			if in := rec.Wait(t, n)[n-1]; in.Text != broker.FormatPending(q.ID) {
				return in
			}
		}
	}

	check := func(t *testing.T, in broker.Inbound, text string) {
		t.Helper()
		if in.Channel != Name || in.Chat != e.chat || in.User != ana.ID || in.Name != "ana" || in.Text != text {
			t.Errorf("inbound = %+v, want discord/%s/%s/ana %q", in, e.chat, ana.ID, text)
		}
		if !slices.Equal(in.Roles, []string{"111", "222"}) || in.Private {
			t.Errorf("inbound roles %q private %v, want the member's roles in a guild", in.Roles, in.Private)
		}
	}

	t.Run("button", func(t *testing.T) {
		id := e.fake.Click(ana, m, "1o:k7m2qx.1/1:2")
		check(t, next(t), "/answer k7m2qx 2")
		if _, err := e.fake.WaitResponse(testCtx(t), id); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("select menu without a note", func(t *testing.T) {
		e.fake.Choose(ana, m, "1p:k7m2qx.1/1", "2", "0")
		check(t, next(t), "/answer k7m2qx 1,3")
	})
	t.Run("select menu then a note", func(t *testing.T) {
		for _, tc := range []struct{ note, want string }{
			{" nightly only ", "/answer k7m2qx 1,3 other nightly only"},
			{"", "/answer k7m2qx 1,3"},
		} {
			id := e.fake.Choose(ana, m, "1a:k7m2qx.1/1", "2", "0")
			r, err := e.fake.WaitResponse(testCtx(t), id)
			if err != nil {
				t.Fatal(err)
			}
			if r.Type != discordfake.ResponseModal || r.Data.CustomID != "1a:k7m2qx.1/1:13" {
				t.Fatalf("the menu answered %s, want the note modal", r.Raw)
			}
			if input := (*r.Data.Components)[0].Components[0]; input.CustomID != textInputID || input.Required {
				t.Errorf("note input = %+v, want an optional text", input)
			}
			e.fake.SubmitModal(ana, m, r.Data.CustomID, textInputID, tc.note)
			check(t, next(t), tc.want)
		}
	})
	t.Run("other opens a modal", func(t *testing.T) {
		id := e.fake.Click(ana, m, "1n:k7m2qx.1/1")
		r, err := e.fake.WaitResponse(testCtx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != discordfake.ResponseModal || r.Data.CustomID != "1x:k7m2qx.1/1" || r.Data.Title == "" {
			t.Fatalf("response = %s, want a modal", r.Raw)
		}
		rows := *r.Data.Components
		if len(rows) != 2 || rows[0].Components[0].CustomID != numbersInputID || rows[1].Components[0].CustomID != textInputID ||
			rows[0].Components[0].Required || rows[1].Components[0].Required {
			t.Errorf("modal inputs = %+v, want optional numbers, then optional text", rows)
		}
		if strings.Contains(string(r.Raw), `"content"`) {
			t.Errorf("modal response carries content: %s", r.Raw)
		}
		e.fake.SubmitModalFields(ana, m, "1x:k7m2qx.1/1", numbersInputID, "", textInputID, "  MariaDB, please ")
		check(t, next(t), "/answer k7m2qx other MariaDB, please")
		e.fake.SubmitModalFields(ana, m, "1x:k7m2qx.1/1", numbersInputID, " 2 ", textInputID, "with WAL")
		check(t, next(t), "/answer k7m2qx 2 other with WAL")
	})
	t.Run("answer-only modal", func(t *testing.T) {
		id := e.fake.Click(ana, m, "1x:k7m2qx.1/1")
		r, err := e.fake.WaitResponse(testCtx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		rows := *r.Data.Components
		if len(rows) != 1 || rows[0].Components[0].CustomID != textInputID || !rows[0].Components[0].Required {
			t.Errorf("modal inputs = %+v, want one required text", rows)
		}
	})
	t.Run("answer command", func(t *testing.T) {
		id := e.fake.Command(ana, e.chat, "answer", "id", "k7m2qx", "choice", "2")
		check(t, next(t), "/answer k7m2qx 2")
		r, _ := e.fake.WaitResponse(testCtx(t), id)
		if !r.Ephemeral() || r.Content() != escape("Recorded: /answer k7m2qx 2") {
			t.Errorf("response = %s, want an ephemeral reply", r.Raw)
		}
	})
	t.Run("decline command", func(t *testing.T) {
		e.fake.Command(ana, e.chat, "decline", "id", "k7m2qx", "reason", "not now")
		check(t, next(t), "/decline k7m2qx not now")
	})
	t.Run("discuss and pending commands", func(t *testing.T) {
		e.fake.Command(ana, e.chat, "discuss", "id", "k7m2qx", "message", "which load?")
		check(t, next(t), "/discuss k7m2qx which load?")
		e.fake.Command(ana, e.chat, "pending")
		check(t, next(t), "/pending")
	})
	t.Run("reply to the question", func(t *testing.T) {
		e.fake.Say(ana, e.chat, "2", m.ID)
		in := next(t)
		check(t, in, "2")
		if in.ReplyTo != m.ID {
			t.Errorf("ReplyTo = %q, want the question message %s", in.ReplyTo, m.ID)
		}
	})
	t.Run("typed command mentioning the bot", func(t *testing.T) {
		e.fake.Say(ana, e.chat, "<@"+e.fake.BotUser.ID+"> !answer k7m2qx 2", "")
		in := next(t)
		check(t, in, "!answer k7m2qx 2")
		if in.ReplyTo != "" {
			t.Errorf("ReplyTo = %q for a message that replies to nothing", in.ReplyTo)
		}
	})
	t.Run("direct message is private", func(t *testing.T) {
		e.fake.Say(ana, dm, "2", "")
		in := next(t)
		if !in.Private || in.Chat != "user:"+ana.ID || len(in.Roles) != 0 || in.User != ana.ID {
			t.Errorf("inbound = %+v, want a private message from user:%s", in, ana.ID)
		}
	})
	t.Run("bots, webhooks and system messages are ignored", func(t *testing.T) {
		bot := e.fake.NewUser("otherbot")
		bot.Bot = true
		e.fake.Say(bot, e.chat, "/answer k7m2qx 1", m.ID)
		e.fake.Dispatch("MESSAGE_CREATE", map[string]any{ // a webhook's message
			"id": "1300000000000000001", "type": 0, "channel_id": e.chat, "guild_id": e.guild, "webhook_id": "1300000000000000002",
			"author":  map[string]any{"id": "1300000000000000002", "username": "Captain Hook", "discriminator": "0000", "bot": true},
			"content": "/answer k7m2qx 1", "timestamp": "2026-03-04T14:00:00.000000+00:00", "tts": false, "mention_everyone": false,
			"mentions": []any{}, "mention_roles": []any{}, "attachments": []any{}, "embeds": []any{}, "pinned": false,
		})
		e.fake.Dispatch("MESSAGE_CREATE", map[string]any{ // a pin notice
			"id": "1300000000000000003", "type": 6, "channel_id": e.chat, "guild_id": e.guild,
			"author":  map[string]any{"id": ana.ID, "username": "ana", "discriminator": "0"},
			"content": "2", "timestamp": "2026-03-04T14:00:00.000000+00:00", "message_reference": map[string]any{"message_id": m.ID, "channel_id": e.chat},
		})
		e.fake.Say(ana, e.chat, "marker", "")
		if in := next(t); in.Text != "marker" {
			t.Errorf("a bot's message reached the broker: %+v", in)
		}
		// Handlers run concurrently: a second round trip gives a late
		// intruder time to show up before the final check.
		e.fake.Say(ana, e.chat, "marker 2", "")
		next(t)
		replies := 0
		for _, in := range rec.All() {
			if in.User == bot.ID || in.Text == "/answer k7m2qx 1" {
				t.Errorf("ignored message reached the broker: %+v", in)
			}
			if in.Text == "2" && in.ReplyTo == m.ID {
				replies++
			}
		}
		if replies != 1 {
			t.Errorf("%d replies to the question reached the broker, want the one person's reply", replies)
		}
	})
}

func TestGatewayShowsReplies(t *testing.T) {
	var resolved *broker.Question
	rec := &brokertest.Inbox{Reply: func(in broker.Inbound) broker.Reply {
		switch in.Text {
		case "/answer k7m2qx 2", "2":
			return broker.Reply{OK: true, Text: "Recorded: SQLite", Question: resolved}
		case "chatter":
			return broker.Reply{Ignored: true}
		}
		return broker.Reply{Text: "4 is not an option here: choose 1–3", Err: broker.ErrInvalid}
	}}
	e := newEnv(t, rec, nil)
	e.run(t)
	q := question("k7m2qx", dbPrompt())
	m, _ := e.post(t, q)
	resolved = q.Clone()
	resolved.Status, resolved.ResolvedAt = broker.StatusAnswered, fixed.Add(2*60e9)
	resolved.AnsweredBy = &broker.Responder{Channel: Name, User: "1", Name: "ana"}
	resolved.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	ana := e.fake.NewUser("ana")

	t.Run("refused tap is ephemeral and changes nothing", func(t *testing.T) {
		id := e.fake.Click(ana, m, "1o:k7m2qx.1/1:4")
		r, err := e.fake.WaitResponse(testCtx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Ephemeral() || r.Content() != "4 is not an option here: choose 1–3" {
			t.Errorf("response = %s", r.Raw)
		}
		if after := e.fake.Message(m.ID); after.Edits != 0 || len(after.Components) == 0 {
			t.Errorf("the question message changed")
		}
	})
	t.Run("accepted tap updates the message", func(t *testing.T) {
		id := e.fake.Click(ana, m, "1o:k7m2qx.1/1:2")
		r, err := e.fake.WaitResponse(testCtx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != discordfake.ResponseUpdateMessage || r.Data.Components == nil || len(*r.Data.Components) != 0 {
			t.Errorf("response = %s, want type 7 with an empty components list", r.Raw)
		}
		after := e.fake.Message(m.ID)
		if len(after.Components) != 0 || !strings.Contains(after.Content, "Answered by ana at 14:02 UTC: SQLite") {
			t.Errorf("message after the tap: %d components, %q", len(after.Components), after.Content)
		}
		assertNoMentions(t, after)
	})
	t.Run("reply gets a threaded answer", func(t *testing.T) {
		said := e.fake.Say(ana, e.chat, "2", m.ID)
		var reply *discordfake.Message
		err := discordfake.Until(testCtx(t), func() bool {
			for _, x := range e.fake.Messages(e.chat) {
				if x.Author.Bot && x.Reference != nil && x.Reference.MessageID == said {
					reply = x
				}
			}
			return reply != nil
		})
		if err != nil {
			t.Fatal("the bot never answered the reply")
		}
		if reply.Content != "Recorded: SQLite" {
			t.Errorf("reply = %q", reply.Content)
		}
		assertNoMentions(t, reply)
	})
	t.Run("chatter gets no answer", func(t *testing.T) {
		before := len(e.fake.Messages(e.chat))
		e.fake.Say(ana, e.chat, "chatter", "")
		e.fake.Say(ana, e.chat, "7", m.ID) // refused: answered, which proves chatter was handled first
		_ = discordfake.Until(testCtx(t), func() bool { return len(e.fake.Messages(e.chat)) >= before+3 })
		msgs := e.fake.Messages(e.chat)
		for _, x := range msgs[before:] {
			if x.Author.Bot && x.Reference != nil && e.fake.Message(x.Reference.MessageID).Content == "chatter" {
				t.Errorf("the bot answered chatter: %q", x.Content)
			}
		}
	})
}

func TestGatewayResumesAfterDrop(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, rec, nil)
	e.run(t)
	m, _ := e.post(t, question("k7m2qx", dbPrompt()))
	e.fake.DropConnections()
	err := discordfake.Until(testCtx(t), func() bool { return e.fake.Resumes() == 1 && e.fake.Connected() == 1 })
	if err != nil {
		t.Fatalf("the channel did not resume after the gateway dropped it (resumes %d, connected %d)", e.fake.Resumes(), e.fake.Connected())
	}
	e.fake.Click(e.fake.NewUser("ana"), m, "1o:k7m2qx.1/1:1")
	if in := rec.Wait(t, 1)[0]; in.Text != "/answer k7m2qx 1" {
		t.Errorf("inbound after resuming = %+v", in)
	}
}

func TestGatewayExplainsBadToken(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	t.Setenv(e.ch.cfg.TokenEnv, "not-the-token")
	c, err := New(e.ch.cfg, &brokertest.Inbox{}, channels.Options{Logger: slog.New(slog.NewTextHandler(e.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	err = discordfake.Until(testCtx(t), func() bool { return strings.Contains(e.logs.String(), "the bot token is invalid") })
	cancel()
	<-done
	if err != nil {
		t.Errorf("the refused token was not explained; logs:\n%s", e.logs.String())
	}
	if strings.Contains(e.logs.String(), "not-the-token") {
		t.Errorf("the token was logged")
	}
}

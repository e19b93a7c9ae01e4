package slack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// drain waits for the processing of every acked delivery.
func (c *Channel) drain() { c.work.Wait() }

func TestSocketModeTurnsActionsIntoInbound(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	q := sampleQuestion()
	m := postOne(t, e, q, general)
	multi := sampleQuestion()
	multi.Prompts[0].MultiSelect = true
	mm := postOne(t, e, multi, general)
	dmq := sampleQuestion()
	dm := postOne(t, e, dmq, ana.ID)

	button := func(m slackfake.Message, text string) slackfake.Button {
		b, ok := m.Button(text)
		if !ok {
			t.Fatalf("message has no %q button: %+v", text, m.Buttons())
		}
		return b
	}
	tests := []struct {
		name string
		typ  string
		pay  func() any
		want broker.Inbound
	}{
		{"option button", "interactive", func() any { return slackfake.ClickButton(m, ana, button(m, "SQLite")) },
			broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "/answer k7m2qx 2"}},
		{"decline button", "interactive", func() any { return slackfake.ClickButton(m, bob, button(m, "Decline")) },
			broker.Inbound{Chat: general, User: bob.ID, Name: "bob", Text: "/decline k7m2qx"}},
		{"checkboxes submit", "interactive", func() any {
			p, err := slackfake.SubmitCheckboxes(mm, ana, button(mm, "Submit"), 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "/answer k7m2qx 1,2"}},
		{"slash answer", "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", "k7m2qx 2"))
		}, broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "/answer k7m2qx 2"}},
		{"slash pending", "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(bob, general, "general", "/pending", ""))
		}, broker.Inbound{Chat: general, User: bob.ID, Name: "bob", Text: "/pending"}},
		{"slash decline in a DM", "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, slackfake.DMChannel(ana.ID), "directmessage", "/decline", "k7m2qx not now"))
		}, broker.Inbound{Chat: ana.ID, User: ana.ID, Name: "ana", Text: "/decline k7m2qx not now", Private: true}},
		{"bare number in the thread", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "2", ThreadTS: m.TS})
		}, broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "2", ReplyTo: m.TS}},
		{"free text with markup in the thread", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: bob, Channel: general, Text: "a < b & c", ThreadTS: m.TS})
		}, broker.Inbound{Chat: general, User: bob.ID, Name: "bob", Text: "a < b & c", ReplyTo: m.TS}},
		{"!answer typed in the channel", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "!answer k7m2qx 1"})
		}, broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "!answer k7m2qx 1"}},
		{"answer after a mention of the bot", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "<@" + slackfake.BotUserID + "> answer k7m2qx 1"})
		}, broker.Inbound{Chat: general, User: ana.ID, Name: "ana", Text: "answer k7m2qx 1"}},
		{"bare number in a DM", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: dm.Channel, ChannelType: "im", Text: "2"})
		}, broker.Inbound{Chat: ana.ID, User: ana.ID, Name: "ana", Text: "2", Private: true}},
		{"reply in a DM thread", "events_api", func() any {
			return slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: dm.Channel, ChannelType: "im", Text: "SQLite", ThreadTS: dm.TS})
		}, broker.Inbound{Chat: ana.ID, User: ana.ID, Name: "ana", Text: "SQLite", ReplyTo: dm.Channel + "/" + dm.TS, Private: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := len(rec.All())
			e.send(t, tt.typ, tt.pay())
			got := rec.Wait(t, n+1)[n]
			tt.want.Channel = "slack"
			if got.Channel != tt.want.Channel || got.Chat != tt.want.Chat || got.User != tt.want.User ||
				got.Name != tt.want.Name || got.Text != tt.want.Text || got.ReplyTo != tt.want.ReplyTo || got.Private != tt.want.Private {
				t.Errorf("inbound = %+v\nwant      %+v", got, tt.want)
			}
			waitEphemeral(t, e.fake, tt.want.User, escapeMrkdwn("Recorded: "+tt.want.Text))
		})
	}
}

func TestSocketModeOtherModal(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	m := postOne(t, e, sampleQuestion(), general)
	other, ok := m.Button("Other or note…")
	if !ok {
		t.Fatal("no Other or note… button")
	}
	click := slackfake.ClickButton(m, ana, other)
	e.send(t, "interactive", click)
	waitFake(t, e.fake, "views.open", func() bool { return len(e.fake.Views()) == 1 })
	v := e.fake.Views()[0]
	if v.TriggerID != click["trigger_id"] {
		t.Errorf("views.open trigger_id = %q, want the click's %q", v.TriggerID, click["trigger_id"])
	}
	// Opening the modal records nothing: the broker is asked only for
	// the question, whose card's language the modal speaks.
	for _, in := range rec.All() {
		if in.Text != "/pending k7m2qx" {
			t.Fatalf("opening the modal sent the broker %q", in.Text)
		}
	}
	n := len(rec.All())
	sub, err := slackfake.SubmitView(v, ana, "MySQL, we already run it")
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", sub)
	got := rec.Wait(t, n+1)[n]
	if got.Text != "/answer k7m2qx other MySQL, we already run it" || got.Chat != general || got.User != ana.ID || got.Name != "ana" {
		t.Errorf("inbound = %+v", got)
	}
}

func TestSocketModeIgnoresBotsEditsAndJoins(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	m := postOne(t, e, sampleQuestion(), general)
	for _, o := range []slackfake.MessageOpts{
		{Channel: general, Text: "2", ThreadTS: m.TS, BotID: slackfake.BotID, SubType: "bot_message"},
		{User: ana, Channel: general, Text: "2", ThreadTS: m.TS, BotID: "B0OTHER01"},
		{User: ana, Channel: general, Text: "2", ThreadTS: m.TS, SubType: "message_changed"},
		{User: bob, Channel: general, Text: "<@U0BOB0001> has joined the channel", SubType: "channel_join"},
	} {
		e.send(t, "events_api", slackfake.MessageEvent(o))
	}
	// A checkbox tick alone is no answer either.
	multi := sampleQuestion()
	multi.Prompts[0].MultiSelect = true
	mm := postOne(t, e, multi, general)
	tick := slackfake.ClickButton(mm, ana, slackfake.Button{BlockID: "ask.k7m2qx.0.actions", ActionID: actionPick})
	tick["actions"].([]any)[0].(map[string]any)["type"] = "checkboxes"
	e.send(t, "interactive", tick)
	// An event type slack-go does not know is acked all the same.
	unknown := slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "x"})
	unknown["event"].(map[string]any)["type"] = "brand_new_event"
	e.send(t, "events_api", unknown)

	e.ch.drain()
	if got := rec.All(); len(got) != 0 {
		t.Errorf("ignored messages reached the broker: %+v", got)
	}
	if n := len(e.fake.Ephemerals()); n != 0 {
		t.Errorf("%d ephemeral replies to ignored messages", n)
	}
}

func TestSocketModeSubmitWithNothingTicked(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	q := sampleQuestion()
	q.Prompts[0].MultiSelect = true
	m := postOne(t, e, q, general)
	b, _ := m.Button("Submit")
	p, err := slackfake.SubmitCheckboxes(m, ana, b)
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", p)
	waitEphemeral(t, e.fake, ana.ID, "Tick at least one option, then press Submit.")
	e.ch.drain()
	if got := rec.All(); len(got) != 0 {
		t.Errorf("an empty selection reached the broker: %+v", got)
	}
}

func TestRunStopsWithContextAndRefusesBadTokens(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	t.Setenv("TEST_SLACK_BOT", "xoxb-wrong")
	bad, err := New(e.ch.cfg, &brokertest.Inbox{}, channels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = bad.Run(ctx)
	if err == nil || !errorsIsPermanent(err) {
		t.Fatalf("Run with a refused token = %v, want a permanent invalid_auth error", err)
	}
}

func TestSocketModeReconnectsAndDropsRedeliveries(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	m := postOne(t, e, sampleQuestion(), general)

	if err := e.fake.Disconnect(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.fake.WaitConnections(ctx, 2); err != nil {
		t.Fatalf("no reconnection after a disconnect request: %v", err)
	}
	if n := e.fake.Calls("apps.connections.open"); n != 2 {
		t.Errorf("apps.connections.open called %d times, want 2", n)
	}
	ev := slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "2", ThreadTS: m.TS, EventID: "Ev0TWICE01"})
	e.send(t, "events_api", ev)
	e.send(t, "events_api", ev) // Slack redelivers when it missed the ack
	e.ch.drain()
	if got := rec.All(); len(got) != 1 || got[0].ReplyTo != m.TS {
		t.Errorf("inbounds = %+v, want the reply once", got)
	}
}

func TestRepliesFallBackToResponseURL(t *testing.T) {
	rec := &brokertest.Inbox{Reply: func(broker.Inbound) broker.Reply { return broker.Reply{OK: true, Text: "No open questions here."} }}
	e := newEnv(t, ModeSocket, rec)
	e.run(t)
	e.fake.FailChannel(random, "not_in_channel")
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("reply posted to a foreign response_url %s", r.URL)
	}))
	defer evil.Close()

	tests := []struct {
		name, responseURL string
		want              int
	}{
		{"slack's response_url", e.fake.HookURL(), 1},
		{"foreign response_url", evil.URL + "/hooks/x", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(e.fake.HookPosts())
			form := slackfake.SlashCommand(ana, random, "random", "/pending", "")
			form.Set("response_url", tt.responseURL)
			e.send(t, "slash_commands", slackfake.SlashPayload(form))
			e.ch.drain()
			posts := e.fake.HookPosts()[before:]
			if len(posts) != tt.want {
				t.Fatalf("%d replies through the response_url, want %d", len(posts), tt.want)
			}
			if tt.want > 0 && (posts[0].Text != "No open questions here." || posts[0].ResponseType != "ephemeral") {
				t.Errorf("reply = %+v", posts[0])
			}
		})
	}
}

func TestRunWaitsForSlackToComeBack(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	e.fake.FailMethod("auth.test", "internal_error")
	go func() {
		for e.fake.Calls("auth.test") == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		e.fake.FailMethod("auth.test", "")
	}()
	e.run(t) // waits for the Socket Mode connection
	if n := e.fake.Calls("auth.test"); n < 2 {
		t.Errorf("auth.test called %d times, want a retry", n)
	}
}

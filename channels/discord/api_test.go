package discord

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

func TestPostSendsRenderedMessage(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	q.Prompts[0].Question = "@everyone which **database**?"
	e.ch.now = func() time.Time { return fixed }
	m, ref := e.post(t, q)
	if ref.Channel != Name || ref.Chat != e.chat || ref.MessageID != m.ID {
		t.Errorf("ref = %+v, want discord/%s/%s", ref, e.chat, m.ID)
	}
	want := render(q, at)
	if m.Content != want.Content {
		t.Errorf("posted content:\n%s\nwant:\n%s", m.Content, want.Content)
	}
	if strings.Contains(m.Content, "@everyone") {
		t.Errorf("posted content can ping everyone: %s", m.Content)
	}
	assertNoMentions(t, m)
	if got := m.CustomIDs(); len(got) != 7 || got[1] != "1o:k7m2qx.1/1:2" {
		t.Errorf("posted custom ids = %q", got)
	}
	if b := m.Buttons()[0]; b.Style != discordfake.StylePrimary {
		t.Errorf("recommended button style = %d, want primary", b.Style)
	}
}

// assertNoMentions checks that the message was sent with allowed_mentions
// that parse nothing.
func assertNoMentions(t *testing.T, m *discordfake.Message) {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(m.AllowedMentionsRaw, &raw); err != nil {
		t.Fatalf("message %s was sent without allowed_mentions (%s)", m.ID, m.AllowedMentionsRaw)
	}
	if string(raw["parse"]) != "[]" {
		t.Errorf("allowed_mentions.parse = %s, want []", raw["parse"])
	}
	if m.AllowedMentions.RepliedUser || len(m.AllowedMentions.Users) > 0 || len(m.AllowedMentions.Roles) > 0 {
		t.Errorf("allowed_mentions lets someone be pinged: %s", m.AllowedMentionsRaw)
	}
}

func TestPostLongCustomIDNeverSent(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	long := strings.Repeat("q", 120)
	m, _ := e.post(t, question(long, dbPrompt()))
	for _, id := range m.CustomIDs() {
		if len(id) > 100 {
			t.Errorf("a custom_id of %d characters was sent", len(id))
		}
	}
	if !strings.Contains(m.Content, "`/answer "+long+" 1`") {
		t.Errorf("the typed command is not shown:\n%s", m.Content)
	}
	for _, r := range e.fake.Requests() {
		if strings.Contains(string(r.Body), `"custom_id":"/answer `+long) {
			t.Errorf("a request carried the long custom_id: %s %s", r.Method, r.Path)
		}
	}
}

func TestUpdateRemovesComponents(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	_, ref := e.post(t, q)
	q.Status, q.ResolvedAt = broker.StatusAnswered, fixed.Add(2*time.Minute)
	q.AnsweredBy = &broker.Responder{Channel: Name, User: "9", Name: "ana"}
	q.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	if err := e.ch.Update(testCtx(t), q, ref); err != nil {
		t.Fatalf("Update: %v", err)
	}
	m := e.fake.Message(ref.MessageID)
	if len(m.Components) != 0 || !strings.Contains(m.Content, "Answered by ana at 14:02 UTC: SQLite") {
		t.Errorf("after Update: components %d, content:\n%s", len(m.Components), m.Content)
	}
	assertNoMentions(t, m)
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1]
	if last.Method != "PATCH" || !strings.Contains(string(last.Body), `"components":[]`) {
		t.Errorf("edit request %s %s does not clear components: %s", last.Method, last.Path, last.Body)
	}
}

func TestRemindRepliesToQuestion(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	_, ref := e.post(t, q)
	e.ch.now = func() time.Time { return fixed.Add(15 * time.Minute) }
	if err := e.ch.Remind(testCtx(t), q, ref); err != nil {
		t.Fatalf("Remind: %v", err)
	}
	msgs := e.fake.Messages(e.chat)
	if len(msgs) != 2 {
		t.Fatalf("%d messages in the channel, want question and reminder", len(msgs))
	}
	r := msgs[1]
	if r.Reference == nil || r.Reference.MessageID != ref.MessageID {
		t.Errorf("reminder does not reply to the question: %+v", r.Reference)
	}
	if want := escape(broker.ReminderText(q, fixed.Add(15*time.Minute), time.UTC)); r.Content != want {
		t.Errorf("reminder = %q, want %q", r.Content, want)
	}
	assertNoMentions(t, r)
}

func TestPostFailures(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(e *env) string
		permanent bool
		wantText  string
	}{
		{"missing access", func(e *env) string { e.fake.Deny(e.chat, 50001); return e.chat }, true, "Missing Access"},
		{"missing permissions", func(e *env) string { e.fake.Deny(e.chat, 50013); return e.chat }, true, "Missing Permissions"},
		{"unknown channel", func(e *env) string { return "123456789012345678" }, true, "Unknown Channel"},
		{"not a channel id", func(e *env) string { return "general" }, true, "not a Discord channel id"},
		{"DMs closed", func(e *env) string { u := e.fake.NewUser("shy"); e.fake.CloseDMs(u.ID); return "user:" + u.ID }, true, "Cannot send messages to this user"},
		{"unknown user", func(e *env) string { return "user:123456789012345678" }, true, "open the DM with user 123456789012345678"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, &brokertest.Inbox{}, nil)
			chat := tt.setup(e)
			_, err := e.ch.Post(testCtx(t), question("k7m2qx", dbPrompt()), chat)
			if err == nil {
				t.Fatal("Post succeeded")
			}
			if errors.Is(err, broker.ErrPermanent) != tt.permanent || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("err = %v (permanent %v), want %q permanent=%v", err, errors.Is(err, broker.ErrPermanent), tt.wantText, tt.permanent)
			}
			if strings.Contains(err.Error(), e.fake.Token) {
				t.Errorf("the error carries the token: %v", err)
			}
			if len(e.fake.Messages(chat)) != 0 || len(e.fake.Messages(e.chat)) != 0 {
				t.Errorf("a message was posted anyway")
			}
		})
	}
}

func TestPostBadToken(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	t.Setenv(e.ch.cfg.TokenEnv, "wrong-token")
	c, err := New(e.ch.cfg, &brokertest.Inbox{}, channels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Post(testCtx(t), question("k7m2qx", dbPrompt()), e.chat)
	if !errors.Is(err, broker.ErrPermanent) || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("err = %v, want a permanent error without the token", err)
	}
}

func TestRateLimitDelaysButKeepsMessage(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	e.fake.RateLimitNext(2, 0.05)
	m, _ := e.post(t, question("k7m2qx", dbPrompt()))
	if got := len(e.fake.Messages(e.chat)); got != 1 {
		t.Errorf("%d messages posted, want exactly 1", got)
	}
	if n := len(e.fake.Requests()); n != 3 {
		t.Errorf("%d requests, want 2 rate-limited and 1 accepted", n)
	}
	if !strings.Contains(m.Content, "Which database") {
		t.Errorf("posted content: %s", m.Content)
	}
}

func TestRateLimitGivesUpWithContext(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	e.ch.maxRetries = 1
	e.fake.RateLimitNext(5, 0.01)
	_, err := e.ch.Post(testCtx(t), question("k7m2qx", dbPrompt()), e.chat)
	if err == nil || errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), "retry after") {
		t.Errorf("err = %v, want a retryable rate-limit error", err)
	}
	// The outbox learns of the rate limit from the error's type, with
	// the wait Discord asked for.
	if after, ok := broker.RetryAfterOf(err); !ok || after != 10*time.Millisecond {
		t.Errorf("RetryAfterOf(%v) = %s, %v; want Discord's retry_after, 10ms", err, after, ok)
	}
	if f := broker.Classify(err); f.Class != broker.FailRateLimited {
		t.Errorf("Classify(%v) = %q, want rate limited", err, f.Class)
	}
}

func TestLogPathHidesTokens(t *testing.T) {
	token := "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw"
	got := pathOf("https://discord.com/api/v9/interactions/1234567890/" + token + "/callback")
	if strings.Contains(got, token) || got != "/api/v9/interactions/1234567890/[token]/callback" {
		t.Errorf("pathOf = %q", got)
	}
}

func TestPostToPersonOpensDM(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	ana := e.fake.NewUser("ana")
	q := question("k7m2qx", dbPrompt())
	ref, err := e.ch.Post(testCtx(t), q, "user:"+ana.ID)
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	dm := e.fake.DM(ana.ID)
	if ref.Chat != "user:"+ana.ID || len(e.fake.Messages(dm)) != 1 {
		t.Fatalf("ref %+v; %d messages in the DM", ref, len(e.fake.Messages(dm)))
	}
	q.Status, q.Reason, q.ResolvedAt = broker.StatusCancelled, "the agent is gone", fixed.Add(time.Minute)
	if err := e.ch.Update(testCtx(t), q, ref); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if m := e.fake.Messages(dm)[0]; !strings.Contains(m.Content, "Cancelled at 14:01 UTC: the agent is gone") || len(m.Components) != 0 {
		t.Errorf("DM copy after Update: %q, %d components", m.Content, len(m.Components))
	}
	opened := 0
	for _, r := range e.fake.Requests() {
		if r.Path == "/api/v9/users/@me/channels" {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("the DM was opened %d times, want once", opened)
	}
}

func TestPostShowsTimesInLocation(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	e := newEnv(t, &brokertest.Inbox{}, nil)
	e.ch.loc, e.ch.now = berlin, func() time.Time { return fixed }
	m, _ := e.post(t, question("k7m2qx", dbPrompt()))
	if !strings.Contains(m.Content, "Expires 15:30 CET") {
		t.Errorf("content does not show the deadline in the configured zone:\n%s", m.Content)
	}
}

package discord

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// slowBroker holds every action until release is called, like a broker
// whose store is slow to answer.
type slowBroker struct {
	mu      sync.Mutex
	gate    chan struct{}
	answers func(broker.Inbound) broker.Reply
}

func (s *slowBroker) hold() func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
	g := s.gate
	return func() { close(g) }
}

func (s *slowBroker) HandleInbound(_ context.Context, in broker.Inbound) broker.Reply {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	if g != nil {
		<-g
	}
	return s.answers(in)
}

func TestSlowBrokerIsAcknowledgedInTime(t *testing.T) {
	q := question("k7m2qx", dbPrompt())
	resolved := q.Clone()
	resolved.Status, resolved.ResolvedAt = broker.StatusAnswered, fixed.Add(2*time.Minute)
	resolved.AnsweredBy = &broker.Responder{Channel: Name, Name: "ana"}
	resolved.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	slow := &slowBroker{answers: func(in broker.Inbound) broker.Reply {
		if in.Text == "/answer k7m2qx 2" {
			return broker.Reply{OK: true, Text: "Recorded: SQLite", Question: resolved}
		}
		return broker.Reply{Text: "Already answered by ana at 14:02 UTC", Question: resolved, Err: broker.ErrClosed}
	}}
	e := newEnv(t, slow, nil)
	e.ch.ackAfter = 20 * time.Millisecond
	e.run(t)
	ana := e.fake.NewUser("ana")

	deferred := func(t *testing.T, id string, typ int) {
		t.Helper()
		r, err := e.fake.WaitResponse(testCtx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Type != typ {
			t.Fatalf("first response = %s, want deferred type %d", r.Raw, typ)
		}
	}

	t.Run("refused tap gets an ephemeral follow-up", func(t *testing.T) {
		m, _ := e.post(t, q)
		release := slow.hold()
		id := e.fake.Click(ana, m, "1o:k7m2qx.1/1:1")
		deferred(t, id, discordfake.ResponseDeferredEdit)
		release()
		if err := discordfake.Until(testCtx(t), func() bool { return len(e.fake.FollowUps(id)) == 1 }); err != nil {
			t.Fatal("no follow-up came")
		}
		f := e.fake.FollowUps(id)[0]
		if f.Data.Flags&discordfake.FlagEphemeral == 0 || f.Content() != "Already answered by ana at 14:02 UTC" {
			t.Errorf("follow-up = %s", f.Raw)
		}
		if e.fake.Message(m.ID).Edits != 0 {
			t.Errorf("the refused tap edited the message")
		}
	})
	t.Run("accepted tap edits the message afterwards", func(t *testing.T) {
		m, _ := e.post(t, q)
		release := slow.hold()
		id := e.fake.Click(ana, m, "1o:k7m2qx.1/1:2")
		deferred(t, id, discordfake.ResponseDeferredEdit)
		if e.fake.Message(m.ID).Edits != 0 {
			t.Fatalf("the message changed before the broker answered")
		}
		release()
		err := discordfake.Until(testCtx(t), func() bool {
			after := e.fake.Message(m.ID)
			return len(after.Components) == 0 && strings.Contains(after.Content, "Answered by ana")
		})
		if err != nil {
			t.Errorf("the message was never updated: %+v", e.fake.Message(m.ID))
		}
	})
	t.Run("command gets its deferred reply filled in", func(t *testing.T) {
		release := slow.hold()
		id := e.fake.Command(ana, e.chat, "answer", "id", "k7m2qx", "choice", "2")
		deferred(t, id, discordfake.ResponseDeferredReply)
		if r, _ := e.fake.Response(id); r.Data == nil || r.Data.Flags&discordfake.FlagEphemeral == 0 {
			t.Errorf("deferred reply is not ephemeral: %s", r.Raw)
		}
		release()
		var got discordfake.Response
		err := discordfake.Until(testCtx(t), func() bool {
			var ok bool
			got, ok = e.fake.Original(id)
			return ok
		})
		if err != nil || got.Content() != "Recorded: SQLite" {
			t.Errorf("deferred reply became %q (%v)", got.Content(), err)
		}
	})
}

func TestSlowBrokerOverHTTP(t *testing.T) {
	q := question("k7m2qx", dbPrompt())
	resolved := q.Clone()
	resolved.Status, resolved.ResolvedAt = broker.StatusAnswered, fixed.Add(2*time.Minute)
	resolved.AnsweredBy = &broker.Responder{Channel: Name, Name: "ana"}
	resolved.Answers = map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	slow := &slowBroker{answers: func(broker.Inbound) broker.Reply {
		return broker.Reply{OK: true, Text: "Recorded: SQLite", Question: resolved}
	}}
	e, url, priv := httpEnv(t, slow)
	e.ch.ackAfter = 20 * time.Millisecond
	m, _ := e.post(t, q)
	release := slow.hold()
	_, body := e.fake.ButtonInteraction(e.fake.NewUser("ana"), m, "1o:k7m2qx.1/1:2")
	d, err := e.fake.Deliver(testCtx(t), url, priv, time.Now(), body)
	if err != nil || d.Status != 200 || d.Response.Type != discordfake.ResponseDeferredEdit {
		t.Fatalf("answered %d %s (%v), want a deferred update", d.Status, d.Body, err)
	}
	release()
	err = discordfake.Until(testCtx(t), func() bool {
		after := e.fake.Message(m.ID)
		return len(after.Components) == 0 && strings.Contains(after.Content, "Answered by ana")
	})
	if err != nil {
		t.Errorf("the message was never updated: %+v", e.fake.Message(m.ID))
	}
	e.ch.late.Wait()
}

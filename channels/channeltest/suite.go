package channeltest

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/channels"
)

// Run runs the round-trip suite against one platform: each case builds a
// fresh bridge, channel and fake platform with build. Call it from one
// test function per channel named TestChannelSuite<Platform>.
func Run(t *testing.T, build Build) {
	cases := []struct {
		name string
		run  func(t *testing.T, s *session)
	}{
		{"post, tap, every copy edited", tapEditsEveryCopy},
		{"typed command", typedCommand},
		{"reply with a number", replyWithNumber},
		{"stale tap", staleTap},
		{"stale tap after expiry", staleTapExpired},
		{"429 waited out", rateLimitWaitedOut},
		{"permanent failure", permanentFailure},
		{"quorum", quorum},
		{"snooze", snooze},
		{"button data", buttonData},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, start(t, build))
		})
	}
}

// session is one case's bridge, channel and platform.
type session struct {
	*Bridge
	ch    broker.Channel
	p     Platform
	chats [2]string
	// people are the platform's two people; names are how the bridge's
	// directory names them.
	people [2]Person
	names  [2]string
}

// snoozeBy is how far the Snooze button moves a deadline on the routes
// "prod" and "snooze", which allow one snooze.
const snoozeBy = 30 * time.Minute

func start(t *testing.T, build Build) *session {
	t.Helper()
	s := &session{p: build(t), names: [2]string{"Ana Lima", "Bob Reis"}}
	s.chats, s.people = s.p.Chats(), s.p.People()
	name := s.p.Name()
	target := func(i int) broker.Target { return broker.Target{Channel: name, Chat: s.chats[i]} }
	account := func(i int) string { return name + ":" + s.people[i].ID }
	snoozeOnce := &broker.SnoozePolicy{By: broker.Duration(snoozeBy), Max: 1}
	// The outbox paces the platforms the bridge paces by default, so that
	// a 429's hold on a chat applies as it does there; a millisecond
	// apart, so that the suite runs fast.
	var ocfg outbox.Config
	if _, ok := outbox.DefaultPacing()[name]; ok {
		ocfg.Pacing = map[string]outbox.Pacing{name: {PerChat: time.Millisecond, PerGroup: time.Millisecond}}
	}
	s.Bridge = newBridge(t, map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{target(0), target(1)}},
		"first":             {Targets: []broker.Target{target(0)}},
		"second":            {Targets: []broker.Target{target(1)}},
		// Two of the two people must approve.
		"prod": {Targets: []broker.Target{target(0)}, Responders: []string{account(0), account(1)},
			Policy: broker.Policy{Quorum: 2, Snooze: snoozeOnce}},
		"snooze": {Targets: []broker.Target{target(0)}, Policy: broker.Policy{Snooze: snoozeOnce}},
	}, ocfg, WithPeople(t,
		broker.Person{ID: "ana", Name: s.names[0], Accounts: []string{account(0)}},
		broker.Person{ID: "bob", Name: s.names[1], Accounts: []string{account(1)}},
	))
	s.ch = s.p.NewChannel(t, s.Broker, channels.Options{Logger: s.Logger})
	s.Start(s.ch)
	return s
}

func dbQuestion(route string) *broker.AskRequest {
	return &broker.AskRequest{
		Question: "Which database should we use?", Header: "Database", Route: route,
		Options: []broker.Option{{Label: "Postgres", Description: "Mature"}, {Label: "SQLite", Description: "Embedded"}},
	}
}

// posted waits for the bridge to have recorded the copy of q in chat,
// and for that message to show q, and returns it.
func (s *session) posted(t *testing.T, chat string, q *broker.Question) Message {
	t.Helper()
	ref := WaitCopy(t, s.Store, q.ID, broker.Target{Channel: s.p.Name(), Chat: chat})
	var m Message
	Eventually(t, "the copy "+ref.MessageID+" of "+q.ID+" shown in "+chat, func() bool {
		var ok bool
		m, ok = s.message(chat, ref.MessageID)
		return ok && strings.Contains(m.Text, q.Prompts[0].Question)
	})
	return m
}

// message returns the message id in chat as it stands.
func (s *session) message(chat, id string) (Message, bool) {
	for _, m := range s.p.Messages(chat) {
		if m.ID == id {
			return m, true
		}
	}
	return Message{}, false
}

// shows waits until the message id in chat reads want, and returns it.
func (s *session) shows(t *testing.T, chat, id, want string) Message {
	t.Helper()
	var m Message
	if !Within(WaitLimit, func() bool { m, _ = s.message(chat, id); return strings.Contains(m.Text, want) }) {
		t.Fatalf("the copy %s in %s never showed %q; it reads:\n%s", id, chat, want, m.Text)
	}
	return m
}

// tap presses the button of m labelled label as f's person and returns
// what they are told.
func tap(t *testing.T, f Fake, chat string, m Message, label string) Told {
	t.Helper()
	told, err := f.Tap(chat, m, button(t, m, label))
	if err != nil {
		t.Fatalf("tap %q: %v", label, err)
	}
	return told
}

// button returns m's button whose label contains label.
func button(t *testing.T, m Message, label string) Button {
	t.Helper()
	for _, b := range m.Buttons {
		if strings.Contains(b.Label, label) {
			return b
		}
	}
	t.Fatalf("message %s has no button %q; it has %+v", m.ID, label, m.Buttons)
	return Button{}
}

// resolved waits until q is answered with choice and returns it.
func (s *session) resolved(t *testing.T, id, choice string) *broker.Question {
	t.Helper()
	var q *broker.Question
	Eventually(t, "question "+id+" answered with "+choice, func() bool {
		q = s.Question(id)
		return q.Status == broker.StatusAnswered
	})
	if got := selected(q); got != choice {
		t.Fatalf("question %s answered with %q, want %q", id, got, choice)
	}
	return q
}

func selected(q *broker.Question) string {
	for _, a := range q.Answers {
		return strings.Join(a.Selected, ", ")
	}
	return ""
}

// edited waits until the copy of q in chat shows the outcome: the choice,
// and no buttons left to press.
func (s *session) edited(t *testing.T, chat, id, choice string) {
	t.Helper()
	var last Message
	edited := Within(WaitLimit, func() bool {
		for _, m := range s.p.Messages(chat) {
			if m.ID == id {
				last = m
				return len(m.Buttons) == 0 && strings.Contains(m.Text, choice)
			}
		}
		return false
	})
	if !edited {
		t.Fatalf("the copy %s in %s never showed the outcome %q without buttons; it reads:\n%s\nbuttons: %+v", id, chat, choice, last.Text, last.Buttons)
	}
}

func tapEditsEveryCopy(t *testing.T, s *session) {
	q := s.Ask(dbQuestion(""))
	first, second := s.posted(t, s.chats[0], q), s.posted(t, s.chats[1], q)
	told := tap(t, s.p, s.chats[0], first, "SQLite")
	if !strings.Contains(told.Text, "SQLite") {
		t.Errorf("after the tap the person is told %q, want the recorded choice", told.Text)
	}
	s.resolved(t, q.ID, "SQLite")
	s.edited(t, s.chats[0], first.ID, "SQLite")
	s.edited(t, s.chats[1], second.ID, "SQLite")
}

func typedCommand(t *testing.T, s *session) {
	q := s.Ask(dbQuestion("first"))
	m := s.posted(t, s.chats[0], q)
	if err := s.p.Type(s.chats[0], "/answer "+q.ID+" 2"); err != nil {
		t.Fatalf("type: %v", err)
	}
	s.resolved(t, q.ID, "SQLite")
	s.edited(t, s.chats[0], m.ID, "SQLite")
}

func replyWithNumber(t *testing.T, s *session) {
	q := s.Ask(dbQuestion("first"))
	m := s.posted(t, s.chats[0], q)
	if err := s.p.Reply(s.chats[0], m, "1"); err != nil {
		t.Fatalf("reply: %v", err)
	}
	s.resolved(t, q.ID, "Postgres")
	s.edited(t, s.chats[0], m.ID, "Postgres")
}

func permanentFailure(t *testing.T, s *session) {
	s.p.RefuseChat(s.chats[1])
	before := len(s.p.PostAttempts())
	q, _, err := s.Broker.Ask(s.Ctx, "agent", dbQuestion("second"))
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusUnsupported || !strings.Contains(q.Reason, "no channel could take the question") {
		t.Errorf("a question no chat can take is %s (%q), want unsupported with the reason", q.Status, q.Reason)
	}
	if n := len(s.p.PostAttempts()) - before; n != 1 {
		t.Errorf("a permanent refusal was tried %d times, want 1", n)
	}
	// The other chat still works.
	ok := s.Ask(dbQuestion("first"))
	s.posted(t, s.chats[0], ok)
}

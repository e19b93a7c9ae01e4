package channeltest

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
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
		{"429 then success", rateLimitedThenPosted},
		{"permanent failure", permanentFailure},
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
}

func start(t *testing.T, build Build) *session {
	t.Helper()
	s := &session{p: build(t)}
	s.chats = s.p.Chats()
	name := s.p.Name()
	target := func(i int) broker.Target { return broker.Target{Channel: name, Chat: s.chats[i]} }
	s.Bridge = NewBridge(t, map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{target(0), target(1)}},
		"first":             {Targets: []broker.Target{target(0)}},
		"second":            {Targets: []broker.Target{target(1)}},
	})
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

// posted waits for the message of q in chat, and for the bridge to have
// recorded it as q's copy, and returns it.
func (s *session) posted(t *testing.T, chat string, q *broker.Question) Message {
	t.Helper()
	ref := WaitCopy(t, s.Store, q.ID, broker.Target{Channel: s.p.Name(), Chat: chat})
	var m Message
	Eventually(t, "the question "+q.ID+" posted in "+chat, func() bool {
		for _, got := range s.p.Messages(chat) {
			if strings.Contains(got.Text, "Which database should we use?") {
				m = got
				return true
			}
		}
		return false
	})
	if m.ID != ref.MessageID {
		t.Fatalf("the copy of %s recorded in %s is message %s, want the one posted there, %s", q.ID, chat, ref.MessageID, m.ID)
	}
	return m
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
	told, err := s.p.Tap(s.chats[0], first, button(t, first, "SQLite"))
	if err != nil {
		t.Fatalf("tap: %v", err)
	}
	if !strings.Contains(told, "SQLite") {
		t.Errorf("after the tap the person is told %q, want the recorded choice", told)
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

func staleTap(t *testing.T, s *session) {
	q := s.Ask(dbQuestion(""))
	first, second := s.posted(t, s.chats[0], q), s.posted(t, s.chats[1], q)
	if _, err := s.p.Tap(s.chats[0], first, button(t, first, "Postgres")); err != nil {
		t.Fatalf("tap: %v", err)
	}
	s.resolved(t, q.ID, "Postgres")
	// The second copy's button, pressed as it was before its copy was
	// edited: the answer stands, and the person is told so.
	told, err := s.p.Tap(s.chats[1], second, button(t, second, "SQLite"))
	if err != nil {
		t.Fatalf("stale tap: %v", err)
	}
	if !strings.Contains(strings.ToLower(told), "already answered") {
		t.Errorf("a stale tap tells the person %q, want that it was already answered", told)
	}
	if got := s.resolved(t, q.ID, "Postgres"); got.Status != broker.StatusAnswered {
		t.Errorf("after a stale tap the question is %s", got.Status)
	}
	s.edited(t, s.chats[1], second.ID, "Postgres")
}

func rateLimitedThenPosted(t *testing.T, s *session) {
	s.p.RateLimitPosts(1)
	before := s.p.PostAttempts()
	q := s.Ask(dbQuestion("first"))
	s.posted(t, s.chats[0], q)
	if n := s.p.PostAttempts() - before; n != 2 {
		t.Errorf("the post took %d attempts, want 2 (one 429, then the post)", n)
	}
	if got := s.Question(q.ID); got.Status != broker.StatusPending {
		t.Errorf("after a 429 the question is %s: %s", got.Status, got.Reason)
	}
}

func permanentFailure(t *testing.T, s *session) {
	s.p.RefuseChat(s.chats[1])
	before := s.p.PostAttempts()
	q, _, err := s.Broker.Ask(s.Ctx, "agent", dbQuestion("second"))
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusUnsupported || !strings.Contains(q.Reason, "no channel could take the question") {
		t.Errorf("a question no chat can take is %s (%q), want unsupported with the reason", q.Status, q.Reason)
	}
	if n := s.p.PostAttempts() - before; n != 1 {
		t.Errorf("a permanent refusal was tried %d times, want 1", n)
	}
	// The other chat still works.
	ok := s.Ask(dbQuestion("first"))
	s.posted(t, s.chats[0], ok)
}

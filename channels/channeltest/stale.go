package channeltest

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// staleTap: once the question is answered, a button of a copy that still
// showed it, pressed by someone else, tells that person alone who
// answered and when, and changes nothing: not the answer, not a message
// of the chat.
func staleTap(t *testing.T, s *session) {
	q := s.Ask(dbQuestion(""))
	first, second := s.posted(t, s.chats[0], q), s.posted(t, s.chats[1], q)
	tap(t, s.p, s.chats[0], first, "Postgres")
	answered := s.resolved(t, q.ID, "Postgres")
	s.edited(t, s.chats[0], first.ID, "Postgres")
	s.edited(t, s.chats[1], second.ID, "Postgres")
	before := s.p.Messages(s.chats[1])

	// The second copy's button, pressed as it was before the copy was
	// edited.
	told := tap(t, s.p.As(1), s.chats[1], second, "SQLite")
	want := broker.ClosedText(answered, s.Broker.Location())
	if !strings.Contains(told.Text, want) || !told.Private {
		t.Errorf("a stale tap tells the person %+v, want %q for them alone", told, want)
	}
	if !strings.Contains(want, s.names[0]) {
		t.Errorf("%q does not name %s, who answered", want, s.names[0])
	}
	got := s.resolved(t, q.ID, "Postgres")
	if got.AnsweredBy == nil || got.AnsweredBy.User != s.people[0].ID || !got.ResolvedAt.Equal(answered.ResolvedAt) {
		t.Errorf("after a stale tap the question is answered by %+v at %v, want %s at %v as before",
			got.AnsweredBy, got.ResolvedAt, s.people[0].ID, answered.ResolvedAt)
	}
	if after := s.p.Messages(s.chats[1]); !reflect.DeepEqual(after, before) {
		t.Errorf("a stale tap changed the chat's messages:\nbefore %+v\nafter  %+v", before, after)
	}
}

// staleTapExpired: once the question has expired, a button of its copy
// tells the person alone when it expired, and changes nothing.
func staleTapExpired(t *testing.T, s *session) {
	q := s.Ask(dbQuestion("first"))
	m := s.posted(t, s.chats[0], q)
	expired, err := s.Broker.Resolve(s.Ctx, q.ID, broker.TimedOut(q, time.Now()))
	if err != nil {
		t.Fatalf("time out %s: %v", q.ID, err)
	}
	var last Message
	if !Within(WaitLimit, func() bool { last, _ = s.message(s.chats[0], m.ID); return len(last.Buttons) == 0 }) {
		t.Fatalf("the copy %s never lost its buttons at the timeout; it reads:\n%s", m.ID, last.Text)
	}
	before := s.p.Messages(s.chats[0])

	told := tap(t, s.p, s.chats[0], m, "Postgres")
	want := broker.ClosedText(expired, s.Broker.Location())
	if !strings.HasPrefix(want, "This question expired at ") || !strings.Contains(told.Text, want) || !told.Private {
		t.Errorf("a tap on an expired question tells the person %+v, want %q for them alone", told, want)
	}
	if got := s.Question(q.ID); got.Status != broker.StatusTimedOut || got.AnsweredBy != nil {
		t.Errorf("after a stale tap the question is %s by %+v, want timed out by no one", got.Status, got.AnsweredBy)
	}
	if after := s.p.Messages(s.chats[0]); !reflect.DeepEqual(after, before) {
		t.Errorf("a stale tap changed the chat's messages:\nbefore %+v\nafter  %+v", before, after)
	}
}

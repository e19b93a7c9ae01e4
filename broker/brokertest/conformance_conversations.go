package brokertest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// conversationTests check the conversations of live agent sessions
// (broker.Conversations): numbers that grow within a conversation, also
// under concurrent adds, conversations kept apart by agent and session,
// messages that expire, the cap on what a conversation keeps, and the
// session's listening mark.
var conversationTests = []storeTest{
	{"AddAndRead", testConversationAddAndRead},
	{"KeptApart", testConversationKeptApart},
	{"Expiry", testConversationExpiry},
	{"KeepsTheNewest", testConversationKeepsTheNewest},
	{"ConcurrentAddsDistinctNumbers", testConversationConcurrentAdds},
	{"Listening", testConversationListening},
}

// sessionMessage is a message of agent's session, written at at.
func sessionMessage(agent, session, from, text string, at time.Time) broker.SessionMessage {
	m := broker.SessionMessage{
		Agent: agent, SessionID: session, QuestionID: "k7m2qx", From: from, Text: text,
		Copy: broker.MessageRef{Channel: "slack", Chat: "C0OPS", MessageID: "1700000000.000100", PostedAt: at.Add(-time.Minute)},
		At:   at, ExpiresAt: at.Add(broker.SessionMessageTTL),
	}
	if from == broker.FromPerson {
		m.By = &ana
	}
	return m
}

// addMessages adds ms in order and returns their numbers.
func addMessages(t *testing.T, s broker.Store, ms ...broker.SessionMessage) []int64 {
	t.Helper()
	var seqs []int64
	for _, m := range ms {
		seq, err := s.AddSessionMessage(context.Background(), m)
		if err != nil {
			t.Fatalf("AddSessionMessage(%q): %v", m.Text, err)
		}
		seqs = append(seqs, seq)
	}
	return seqs
}

func testConversationAddAndRead(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	seqs := addMessages(t, s,
		sessionMessage("claude", "s1", broker.FromPerson, "Why did the build fail?", now),
		sessionMessage("claude", "s1", broker.FromAgent, "The linter refused main.go:12.", now.Add(time.Second)),
		sessionMessage("claude", "s1", broker.FromPerson, "Fix it & push <please>", now.Add(2*time.Second)))
	if seqs[0] < 1 || seqs[1] <= seqs[0] || seqs[2] <= seqs[1] {
		t.Fatalf("numbers %v, want growing from 1 up", seqs)
	}
	got, latest, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 0)
	if err != nil || len(got) != 3 || latest != seqs[2] {
		t.Fatalf("SessionMessages = %d messages, latest %d, %v; want 3, latest %d", len(got), latest, err, seqs[2])
	}
	for i, m := range got {
		if m.Seq != seqs[i] {
			t.Errorf("message %d has number %d, want %d", i, m.Seq, seqs[i])
		}
	}
	first := got[0]
	if first.Agent != "claude" || first.SessionID != "s1" || first.QuestionID != "k7m2qx" || first.From != broker.FromPerson ||
		first.Text != "Why did the build fail?" || !first.At.Equal(now) || !first.ExpiresAt.Equal(now.Add(broker.SessionMessageTTL)) {
		t.Errorf("first message read back as %+v", first)
	}
	if first.By == nil || first.By.Person == nil || first.By.Person.ID != "ana" || first.By.User != "U2" {
		t.Errorf("first message by %+v, want Ana's account", first.By)
	}
	if first.Copy.Channel != "slack" || first.Copy.Chat != "C0OPS" || first.Copy.MessageID != "1700000000.000100" {
		t.Errorf("first message's copy %+v", first.Copy)
	}
	if got[1].From != broker.FromAgent || got[1].By != nil || got[2].Text != "Fix it & push <please>" {
		t.Errorf("messages 2 and 3 read back as %+v, %+v", got[1], got[2])
	}
	rest, _, err := s.SessionMessages(ctx, "claude", "s1", seqs[0], now, 0)
	if err != nil || len(rest) != 2 || rest[0].Seq != seqs[1] {
		t.Fatalf("after %d: %+v, %v; want the last two", seqs[0], rest, err)
	}
	one, _, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 1)
	if err != nil || len(one) != 1 || one[0].Seq != seqs[0] {
		t.Fatalf("limit 1: %+v, %v; want the first", one, err)
	}
	none, latest, err := s.SessionMessages(ctx, "claude", "s1", seqs[2], now, 0)
	if err != nil || len(none) != 0 || latest != seqs[2] {
		t.Fatalf("after the last: %+v, latest %d, %v; want none, latest %d", none, latest, err, seqs[2])
	}
}

func testConversationKeptApart(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	addMessages(t, s,
		sessionMessage("claude", "s1", broker.FromPerson, "to claude's s1", now),
		sessionMessage("codex", "s1", broker.FromPerson, "to codex's s1", now),
		sessionMessage("claude", "s2", broker.FromPerson, "to claude's s2", now))
	for _, c := range []struct{ agent, session, text string }{
		{"claude", "s1", "to claude's s1"}, {"codex", "s1", "to codex's s1"}, {"claude", "s2", "to claude's s2"},
	} {
		got, latest, err := s.SessionMessages(ctx, c.agent, c.session, 0, now, 0)
		if err != nil || len(got) != 1 || got[0].Text != c.text || latest != got[0].Seq {
			t.Errorf("%s's %s: %+v, latest %d, %v; want only %q", c.agent, c.session, got, latest, err, c.text)
		}
	}
	got, latest, err := s.SessionMessages(ctx, "codex", "s2", 0, now, 0)
	if err != nil || len(got) != 0 || latest != 0 {
		t.Fatalf("a conversation never written: %+v, latest %d, %v; want none, 0", got, latest, err)
	}
}

func testConversationExpiry(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := sessionMessage("claude", "s1", broker.FromPerson, "an hour old, kept for half an hour", now.Add(-time.Hour))
	old.ExpiresAt = now.Add(-30 * time.Minute)
	seqs := addMessages(t, s, old, sessionMessage("claude", "s1", broker.FromPerson, "fresh", now))
	got, latest, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 0)
	if err != nil || len(got) != 1 || got[0].Text != "fresh" || latest != seqs[1] {
		t.Fatalf("SessionMessages = %+v, latest %d, %v; want only the fresh one, latest %d", got, latest, err, seqs[1])
	}
	later, _, err := s.SessionMessages(ctx, "claude", "s1", 0, now.Add(broker.SessionMessageTTL), 0)
	if err != nil || len(later) != 0 {
		t.Fatalf("a day later: %+v, %v; want none", later, err)
	}
}

func testConversationKeepsTheNewest(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var seqs []int64
	for i := range broker.MaxSessionMessages + 5 {
		seqs = append(seqs, addMessages(t, s, sessionMessage("claude", "s1", broker.FromPerson, fmt.Sprintf("message %d", i), now))...)
	}
	got, latest, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 10*broker.MaxSessionMessages)
	if err != nil || len(got) != broker.MaxSessionMessages || latest != seqs[len(seqs)-1] {
		t.Fatalf("SessionMessages = %d messages, latest %d, %v; want the newest %d", len(got), latest, err, broker.MaxSessionMessages)
	}
	if got[0].Seq != seqs[5] || got[0].Text != "message 5" || got[len(got)-1].Text != fmt.Sprintf("message %d", broker.MaxSessionMessages+4) {
		t.Fatalf("kept %q (%d) to %q; want message 5 to the last", got[0].Text, got[0].Seq, got[len(got)-1].Text)
	}
}

func testConversationConcurrentAdds(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	const n = 20
	var mu sync.Mutex
	var seqs []int64
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			seq, err := s.AddSessionMessage(ctx, sessionMessage("claude", "s1", broker.FromPerson, fmt.Sprintf("m%d", i), now))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			seqs = append(seqs, seq)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(seqs)
	if len(slices.Compact(slices.Clone(seqs))) != n {
		t.Fatalf("numbers %v: want %d distinct", seqs, n)
	}
	got, _, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 0)
	if err != nil || len(got) != n {
		t.Fatalf("read %d messages, %v; want %d", len(got), err, n)
	}
	for i, m := range got {
		if m.Seq != seqs[i] {
			t.Fatalf("message %d read with number %d, want %d (in order)", i, m.Seq, seqs[i])
		}
	}
}

func testConversationListening(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	if at, err := s.ListenedAt(ctx, "claude", "s1", now); err != nil || !at.IsZero() {
		t.Fatalf("ListenedAt before any poll = %v, %v; want zero", at, err)
	}
	for _, at := range []time.Time{now.Add(-time.Minute), now} {
		if err := s.MarkListening(ctx, "claude", "s1", at, at.Add(broker.SessionMessageTTL)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.ListenedAt(ctx, "claude", "s1", now); err != nil || !got.Equal(at) {
			t.Fatalf("ListenedAt after a poll at %v = %v, %v", at, got, err)
		}
	}
	if at, err := s.ListenedAt(ctx, "codex", "s1", now); err != nil || !at.IsZero() {
		t.Fatalf("another agent's session listened at %v, %v; want zero", at, err)
	}
	if at, err := s.ListenedAt(ctx, "claude", "s1", now.Add(broker.SessionMessageTTL)); err != nil || !at.IsZero() {
		t.Fatalf("ListenedAt once the mark expired = %v, %v; want zero", at, err)
	}
	// A mark keeps the numbers of its conversation going.
	seq := addMessages(t, s, sessionMessage("claude", "s1", broker.FromPerson, "hello", now))[0]
	if _, latest, err := s.SessionMessages(ctx, "claude", "s1", 0, now, 0); err != nil || latest != seq {
		t.Fatalf("latest %d, %v; want %d", latest, err, seq)
	}
}

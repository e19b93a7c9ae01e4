package brokertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var inboxTests = []storeTest{
	{"OpenByCreation", testInboxOpenOrder},
	{"CursorPages", testInboxPages},
	{"ResolvedByResolution", testInboxResolvedOrder},
	{"PurgeRemoves", testInboxPurge},
	{"BadQuery", testInboxBadQuery},
}

var web = []broker.Target{{Channel: "web"}}

// inboxPage reads a page of the web inbox and fails t on an error.
func inboxPage(t *testing.T, s broker.Store, q broker.InboxQuery) broker.InboxPage {
	t.Helper()
	if q.Channel == "" {
		q.Channel = "web"
	}
	p, err := s.InboxPage(context.Background(), q)
	if err != nil {
		t.Fatalf("InboxPage(%+v): %v", q, err)
	}
	return p
}

// createdAt stores a question on the web inbox (an in-process copy)
// created at at.
func createdAt(t *testing.T, s broker.Store, id string, at time.Time) *broker.Question {
	t.Helper()
	return mustCreateInProcess(t, s, NewQuestion(id, "a1", at), web)
}

// testInboxOpenOrder: the open part holds the pending questions with a
// copy on the channel, in-process or posted, newest first and, within a
// millisecond, the greater id first; not those of other channels, nor
// the resolved ones.
func testInboxOpenOrder(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	ids := newIDs(6)
	createdAt(t, s, ids[0], now.Add(-3*time.Second))
	createdAt(t, s, ids[1], now.Add(-time.Second))
	createdAt(t, s, ids[2], now.Add(-time.Second)) // same millisecond as ids[1]
	posted := NewQuestion(ids[3], "a1", now.Add(-2*time.Second))
	posted.Targets = []broker.Target{{Channel: "slack", Chat: "C1"}, {Channel: "web"}}
	mustCreate(t, s, posted)
	if err := s.AddMessage(ctx, ids[3], broker.MessageRef{Channel: "web", MessageID: ids[3], PostedAt: now}); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	other := NewQuestion(ids[4], "a1", now)
	other.Targets = []broker.Target{{Channel: "slack", Chat: "C1"}}
	mustCreate(t, s, other)
	if err := s.AddMessage(ctx, ids[4], broker.MessageRef{Channel: "slack", Chat: "C1", MessageID: "1.2", PostedAt: now}); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	createdAt(t, s, ids[5], now.Add(-4*time.Second))
	mustResolve(t, s, ids[5], answeredAt(now, "Postgres"))

	first, second := ids[1], ids[2]
	if second > first {
		first, second = second, first
	}
	got := inboxPage(t, s, broker.InboxQuery{Limit: 10})
	wantIDs(t, "open web questions", questionIDs(got.Questions), []string{first, second, ids[3], ids[0]})
	slack := inboxPage(t, s, broker.InboxQuery{Channel: "slack", Limit: 10})
	wantIDs(t, "open slack questions (a queued post is no copy yet)", questionIDs(slack.Questions), []string{ids[4]})
	if q := got.Questions[0]; q.Status != broker.StatusPending || len(q.Prompts) != 1 {
		t.Fatalf("an open question reads as %s with %d prompts, want it whole and pending", q.Status, len(q.Prompts))
	}
}

// testInboxPages: a page after a cursor holds what follows it, and More
// counts the rest; questions created after the first page are newer than
// every cursor, and one resolved meanwhile leaves the open part.
func testInboxPages(t *testing.T, s broker.Store) {
	now := baseTime()
	ids := newIDs(7)
	for i, id := range ids { // ids[0] newest
		createdAt(t, s, id, now.Add(-time.Duration(i)*time.Second))
	}
	p1 := inboxPage(t, s, broker.InboxQuery{Limit: 3, Count: 100})
	wantIDs(t, "first page", questionIDs(p1.Questions), ids[:3])
	if p1.More != 4 {
		t.Fatalf("first page: %d more, want 4", p1.More)
	}
	createdAt(t, s, newIDs(1)[0], now.Add(time.Minute))
	mustResolve(t, s, ids[4], answeredAt(now, "SQLite"))
	cur := broker.OpenCursor(p1.Questions[2])
	p2 := inboxPage(t, s, broker.InboxQuery{After: &cur, Limit: 3, Count: 100})
	wantIDs(t, "second page", questionIDs(p2.Questions), []string{ids[3], ids[5], ids[6]})
	if p2.More != 0 {
		t.Fatalf("second page: %d more, want 0", p2.More)
	}
	capped := inboxPage(t, s, broker.InboxQuery{Limit: 2, Count: 3})
	if capped.More != 3 {
		t.Fatalf("a count up to 3 of 5 that follow gives %d, want 3", capped.More)
	}
	if p := inboxPage(t, s, broker.InboxQuery{Limit: 3}); p.More != 0 {
		t.Fatalf("a page that does not ask to count says %d more", p.More)
	}
}

// testInboxResolvedOrder: the resolved part is ordered by resolution
// time, not creation, and pages the same way.
func testInboxResolvedOrder(t *testing.T, s broker.Store) {
	now := baseTime()
	ids := newIDs(4)
	for i, id := range ids {
		createdAt(t, s, id, now.Add(-time.Hour+time.Duration(i)*time.Second))
	}
	// Resolved in another order than created: 2, 0, 3 (1 stays open).
	mustResolve(t, s, ids[2], answeredAt(now.Add(-3*time.Minute), "Postgres"))
	mustResolve(t, s, ids[0], answeredAt(now.Add(-2*time.Minute), "Postgres"))
	mustResolve(t, s, ids[3], broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-time.Minute)})
	got := inboxPage(t, s, broker.InboxQuery{Resolved: true, Limit: 10})
	wantIDs(t, "resolved web questions", questionIDs(got.Questions), []string{ids[3], ids[0], ids[2]})
	if got.Questions[1].Status != broker.StatusAnswered || got.Questions[0].Status != broker.StatusCancelled {
		t.Fatalf("resolved questions read as %s and %s, want cancelled and answered", got.Questions[0].Status, got.Questions[1].Status)
	}
	cur := broker.ResolvedCursor(got.Questions[0])
	next := inboxPage(t, s, broker.InboxQuery{Resolved: true, After: &cur, Limit: 1, Count: 10})
	wantIDs(t, "resolved page after the latest", questionIDs(next.Questions), []string{ids[0]})
	if next.More != 1 {
		t.Fatalf("resolved page: %d more, want 1", next.More)
	}
	open := inboxPage(t, s, broker.InboxQuery{Limit: 10})
	wantIDs(t, "open web questions", questionIDs(open.Questions), []string{ids[1]})
}

// testInboxPurge: Purge takes purged questions out of the inbox and
// leaves the others.
func testInboxPurge(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	ids := newIDs(3)
	for i, id := range ids {
		createdAt(t, s, id, now.Add(-2*time.Hour+time.Duration(i)*time.Second))
	}
	mustResolve(t, s, ids[0], answeredAt(now.Add(-time.Hour), "Postgres"))
	mustResolve(t, s, ids[1], answeredAt(now, "Postgres"))
	if _, err := s.Purge(ctx, now.Add(-30*time.Minute)); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	got := inboxPage(t, s, broker.InboxQuery{Resolved: true, Limit: 10, Count: 10})
	wantIDs(t, "resolved web questions after the purge", questionIDs(got.Questions), []string{ids[1]})
	open := inboxPage(t, s, broker.InboxQuery{Limit: 10})
	wantIDs(t, "open web questions after the purge", questionIDs(open.Questions), []string{ids[2]})
}

// testInboxBadQuery: a query without a channel, or with a limit out of
// bounds, is refused with ErrInvalid.
func testInboxBadQuery(t *testing.T, s broker.Store) {
	for _, q := range []broker.InboxQuery{
		{Limit: 10},
		{Channel: "web"},
		{Channel: "web", Limit: broker.MaxInboxPage + 1},
		{Channel: "web", Limit: 1, Count: -1},
		{Channel: "web", Limit: 1, After: &broker.InboxCursor{At: time.Now()}},
	} {
		if _, err := s.InboxPage(context.Background(), q); !errors.Is(err, broker.ErrInvalid) {
			t.Errorf("InboxPage(%+v): %v, want ErrInvalid", q, err)
		}
	}
}

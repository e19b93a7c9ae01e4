package brokertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var messageTests = []storeTest{
	{"AddAndList", testMessages},
	{"LookupDistinguishesChatAndChannel", testLookupMessage},
	{"LookupUnknown", testLookupUnknown},
}

func testMessages(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	other := NewQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, q)
	mustCreate(t, s, other)
	want := []broker.MessageRef{
		{Channel: "telegram", Chat: "-100123", MessageID: "77", PostedAt: now.Add(time.Second)},
		{Channel: "slack", Chat: "C0123", MessageID: "1700000000.000100", PostedAt: now.Add(2 * time.Second)},
		{Channel: "web", PostedAt: now.Add(3 * time.Second)},
	}
	for _, m := range want {
		if err := s.AddMessage(ctx, q.ID, m); err != nil {
			t.Fatalf("AddMessage(%v): %v", m, err)
		}
	}
	if err := s.AddMessage(ctx, other.ID, broker.MessageRef{Channel: "telegram", Chat: "-100123", MessageID: "78", PostedAt: now}); err != nil {
		t.Fatalf("AddMessage(other): %v", err)
	}
	got, err := s.Messages(ctx, q.ID)
	if err != nil {
		t.Fatalf("Messages: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("Messages = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Channel != w.Channel || g.Chat != w.Chat || g.MessageID != w.MessageID {
			t.Fatalf("Messages[%d] = %+v, want %+v (oldest first)", i, g, w)
		}
		sameTime(t, fmt.Sprintf("Messages[%d].PostedAt", i), g.PostedAt, w.PostedAt)
	}
	// Messages survive resolution: the broker edits every copy afterwards.
	mustResolve(t, s, q.ID, answeredAt(now.Add(time.Minute), "Postgres"))
	got, err = s.Messages(ctx, q.ID)
	if err != nil || len(got) != len(want) {
		t.Fatalf("Messages after Resolve = %+v, %v; want the %d copies", got, err, len(want))
	}
}

func testLookupMessage(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	qs := newIDs(4)
	refs := []broker.MessageRef{
		{Channel: "telegram", Chat: "100", MessageID: "5"},
		{Channel: "telegram", Chat: "200", MessageID: "5"},
		{Channel: "discord", Chat: "100", MessageID: "5"},
		{Channel: "telegram", Chat: "100", MessageID: "6"},
	}
	for i, id := range qs {
		mustCreate(t, s, NewQuestion(id, "a1", now))
		refs[i].PostedAt = now
		if err := s.AddMessage(ctx, id, refs[i]); err != nil {
			t.Fatalf("AddMessage: %v", err)
		}
	}
	for i, r := range refs {
		got, err := s.LookupMessage(ctx, r.Channel, r.Chat, r.MessageID)
		if err != nil {
			t.Fatalf("LookupMessage(%s, %s, %s): %v", r.Channel, r.Chat, r.MessageID, err)
		}
		if got != qs[i] {
			t.Fatalf("LookupMessage(%s, %s, %s) = %s, want %s", r.Channel, r.Chat, r.MessageID, got, qs[i])
		}
	}
}

func testLookupUnknown(t *testing.T, s broker.Store) {
	ctx := context.Background()
	q := NewQuestion(broker.NewID(), "a1", baseTime())
	mustCreate(t, s, q)
	if err := s.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "telegram", Chat: "100", MessageID: "5", PostedAt: q.CreatedAt}); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	for _, c := range [][3]string{{"telegram", "100", "4"}, {"telegram", "101", "5"}, {"slack", "100", "5"}, {"telegram", "100", ""}} {
		_, err := s.LookupMessage(ctx, c[0], c[1], c[2])
		wantErr(t, fmt.Sprintf("LookupMessage%v", c), err, broker.ErrNotFound)
	}
}

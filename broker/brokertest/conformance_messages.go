package brokertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var messageTests = []storeTest{
	{"AddAndList", testMessages},
	{"LookupDistinguishesChatAndChannel", testLookupMessage},
	{"LookupUnknown", testLookupUnknown},
	{"CreateRecordsInProcessCopies", testCreateRecordsInProcessCopies},
}

// testCreateRecordsInProcessCopies: a store that says it records the
// copies at a question's in-process targets at Create (the broker then
// adds none itself) lists, indexes and looks them up as AddMessage's, on
// the plain and the idempotent Create, and queues no post task for them.
func testCreateRecordsInProcessCopies(t *testing.T, s broker.Store) {
	rec, ok := s.(broker.InProcessRecorder)
	if !ok || !rec.RecordsInProcessCopies() {
		t.Skip("the store does not record in-process copies at Create")
	}
	ctx := context.Background()
	now := baseTime()
	web, cli, tg := broker.Target{Channel: "web"}, broker.Target{Channel: "cli", Chat: "ops"}, broker.Target{Channel: "telegram", Chat: "-100123"}
	for _, key := range []string{"", "call-7"} {
		q := NewQuestion(broker.NewID(), "a1", now)
		q.ToolCallID = key
		q.Targets = []broker.Target{web, cli, tg}
		q.InProcess = []broker.Target{web, cli}
		mustCreate(t, s, q)
		got, err := s.Messages(ctx, q.ID)
		if err != nil || len(got) != 2 {
			t.Fatalf("tool call %q: Messages = %+v, %v; want the copies at web and cli:ops", key, got, err)
		}
		for i, want := range []broker.Target{web, cli} {
			if g := got[i]; g.Channel != want.Channel || g.Chat != want.Chat || g.MessageID != q.ID {
				t.Fatalf("tool call %q: Messages[%d] = %+v, want %s with the question's id", key, i, g, want)
			}
			sameTime(t, fmt.Sprintf("Messages[%d].PostedAt", i), got[i].PostedAt, q.CreatedAt)
			id, err := s.LookupMessage(ctx, want.Channel, want.Chat, q.ID)
			if err != nil || id != q.ID {
				t.Fatalf("tool call %q: LookupMessage(%s) = %q, %v; want %s", key, want, id, err, q.ID)
			}
		}
		// The question's id names no copy in another chat, nor at the
		// platform target, which has no copy yet.
		for _, c := range []broker.Target{{Channel: "cli", Chat: "dev"}, {Channel: "web", Chat: "ops"}, tg} {
			if id, err := s.LookupMessage(ctx, c.Channel, c.Chat, q.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("tool call %q: LookupMessage(%s, the question's id) = %q, %v; want ErrNotFound", key, c, id, err)
			}
		}
		for _, f := range []broker.Filter{{Channel: "cli", Chat: "ops"}, {Channel: "web"}} {
			listed, err := s.List(ctx, f)
			if err != nil || !slices.ContainsFunc(listed, func(x *broker.Question) bool { return x.ID == q.ID }) {
				t.Fatalf("tool call %q: List(%+v) = %d questions, %v; want %s among them", key, f, len(listed), err, q.ID)
			}
		}
		out, ok := s.(broker.PlatformOutbox)
		if !ok {
			continue
		}
		tasks, err := out.PlatformWork(ctx, q.ID)
		if err != nil || len(tasks) != 1 || tasks[0].Target != tg || tasks[0].Kind != broker.TaskPost {
			t.Fatalf("tool call %q: platform work = %+v, %v; want one post task, to %s", key, tasks, err, tg)
		}
	}
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

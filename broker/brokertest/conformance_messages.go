package brokertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var messageTests = []storeTest{
	{"AddAndList", testMessages},
	{"LookupDistinguishesChatAndChannel", testLookupMessage},
	{"LookupUnknown", testLookupUnknown},
	{"CreateRecordsInProcessCopies", testCreateRecordsInProcessCopies},
	{"CreateRefusesAStrayInProcessTarget", testCreateStrayInProcess},
}

// testCreateRecordsInProcessCopies: the copies at the in-process targets
// named to Create are listed, indexed and looked up as AddMessage's, on
// the plain, the idempotent and the capped Create, and no post task is
// queued for them.
func testCreateRecordsInProcessCopies(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	web, cli, tg := broker.Target{Channel: "web"}, broker.Target{Channel: "cli", Chat: "ops"}, broker.Target{Channel: "telegram", Chat: "-100123"}
	for _, c := range []struct {
		key    string
		capped bool
	}{{"", false}, {"call-7", false}, {"call-8", true}} {
		q := NewQuestion(broker.NewID(), "a1", now)
		q.ToolCallID = c.key
		q.Targets = []broker.Target{web, cli, tg}
		inProcess := []broker.Target{web, cli}
		if c.capped {
			if _, created, err := s.CreateCapped(ctx, q, inProcess, 10); err != nil || !created {
				t.Fatalf("CreateCapped = created %v, %v; want created", created, err)
			}
		} else {
			mustCreateInProcess(t, s, q, inProcess)
		}
		// What the caller passed is its own afterwards.
		inProcess[0] = tg
		got, err := s.Messages(ctx, q.ID)
		if err != nil || len(got) != 2 {
			t.Fatalf("tool call %q: Messages = %+v, %v; want the copies at web and cli:ops", c.key, got, err)
		}
		for i, want := range []broker.Target{web, cli} {
			if g := got[i]; g.Channel != want.Channel || g.Chat != want.Chat || g.MessageID != q.ID {
				t.Fatalf("tool call %q: Messages[%d] = %+v, want %s with the question's id", c.key, i, g, want)
			}
			sameTime(t, fmt.Sprintf("Messages[%d].PostedAt", i), got[i].PostedAt, q.CreatedAt)
			id, err := s.LookupMessage(ctx, want.Channel, want.Chat, q.ID)
			if err != nil || id != q.ID {
				t.Fatalf("tool call %q: LookupMessage(%s) = %q, %v; want %s", c.key, want, id, err, q.ID)
			}
		}
		// The question's id names no copy in another chat, nor at the
		// platform target, which has no copy yet.
		for _, o := range []broker.Target{{Channel: "cli", Chat: "dev"}, {Channel: "web", Chat: "ops"}, tg} {
			if id, err := s.LookupMessage(ctx, o.Channel, o.Chat, q.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("tool call %q: LookupMessage(%s, the question's id) = %q, %v; want ErrNotFound", c.key, o, id, err)
			}
		}
		for _, f := range []broker.Filter{{Channel: "cli", Chat: "ops"}, {Channel: "web"}} {
			listed, err := s.List(ctx, f)
			if err != nil || !slices.ContainsFunc(listed, func(x *broker.Question) bool { return x.ID == q.ID }) {
				t.Fatalf("tool call %q: List(%+v) = %d questions, %v; want %s among them", c.key, f, len(listed), err, q.ID)
			}
		}
		tasks, err := s.PlatformWork(ctx, q.ID)
		if err != nil || len(tasks) != 1 || tasks[0].Target != tg || tasks[0].Kind != broker.TaskPost {
			t.Fatalf("tool call %q: platform work = %+v, %v; want one post task, to %s", c.key, tasks, err, tg)
		}
	}
}

// testCreateStrayInProcess: an in-process target that is not one of the
// question's targets is refused with ErrInvalid by the plain and the
// capped Create, naming the target, and nothing is stored: no question,
// no audit trail, no copy, no post task, and neither the id nor the
// tool call's key is taken.
func testCreateStrayInProcess(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	web, tg := broker.Target{Channel: "web"}, broker.Target{Channel: "telegram", Chat: "-100123"}
	stray := broker.Target{Channel: "cli", Chat: "ops"}
	for _, c := range []struct {
		name   string
		create func(*broker.Question, []broker.Target) error
	}{
		{"Create", func(q *broker.Question, ip []broker.Target) error { _, _, err := s.Create(ctx, q, ip); return err }},
		{"CreateCapped", func(q *broker.Question, ip []broker.Target) error {
			_, _, err := s.CreateCapped(ctx, q, ip, 10)
			return err
		}},
	} {
		for _, ip := range [][]broker.Target{{stray}, {web, stray}, {{Channel: "web", Chat: "ops"}}} {
			q := NewQuestion(broker.NewID(), "a1", now)
			q.ToolCallID = "call-" + q.ID
			q.Targets = []broker.Target{web, tg}
			err := c.create(q, ip)
			wantErr(t, fmt.Sprintf("%s with in-process %v", c.name, ip), err, broker.ErrInvalid)
			if bad := ip[len(ip)-1].String(); !strings.Contains(err.Error(), bad) {
				t.Fatalf("%s with in-process %v: error %q does not name %s", c.name, ip, err, bad)
			}
			if _, err := s.Get(ctx, q.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("%s refused: Get = %v, want ErrNotFound", c.name, err)
			}
			if _, err := s.Audit(ctx, q.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("%s refused: Audit = %v, want ErrNotFound", c.name, err)
			}
			if id, err := s.LookupMessage(ctx, "web", "", q.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("%s refused: LookupMessage(web) = %q, %v; want ErrNotFound", c.name, id, err)
			}
			if tasks, err := s.PlatformWork(ctx, q.ID); err != nil || len(tasks) != 0 {
				t.Fatalf("%s refused: platform work = %+v, %v; want none", c.name, tasks, err)
			}
			// The id and the key are free: the same question with its
			// in-process target named right is stored as new.
			mustCreateInProcess(t, s, q, []broker.Target{web})
		}
	}
	if n, err := s.CountPending(ctx); err != nil || n != 6 {
		t.Fatalf("CountPending = %d, %v; want the 6 questions stored once named right", n, err)
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

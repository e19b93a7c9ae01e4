package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// A question's in-process targets get their copies recorded with it and
// no outbox task, neither a post at Create nor an edit at Resolve; its
// other targets keep both.
func TestInProcessTargetsHaveNoTasks(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	q := hotQuestion(broker.NewID(), now)
	remote := broker.Target{Channel: "telegram", Chat: "42"}
	q.Targets = append(q.Targets, remote)
	stored, created, err := s.Create(ctx, q, defaultTargets)
	if err != nil || !created {
		t.Fatalf("Create: %v, %v", created, err)
	}
	kinds := func() map[broker.Target][]broker.TaskKind {
		tasks, err := s.PlatformWork(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[broker.Target][]broker.TaskKind{}
		for _, x := range tasks {
			out[x.Target] = append(out[x.Target], x.Kind)
		}
		return out
	}
	if got := kinds(); len(got) != 1 || len(got[remote]) != 1 || got[remote][0] != broker.TaskPost {
		t.Fatalf("tasks after Create = %v, want only the post to %s", got, remote)
	}
	refs, err := s.Messages(ctx, q.ID)
	if err != nil || len(refs) != 2 {
		t.Fatalf("copies = %v, %v; want the two in-process ones", refs, err)
	}
	for i, m := range refs {
		if m.Target() != defaultTargets[i] || m.MessageID != q.ID || !m.PostedAt.Equal(stored.CreatedAt) {
			t.Fatalf("copy %d = %+v, want %s with message id %s", i, m, defaultTargets[i], q.ID)
		}
	}
	for _, ch := range []string{"web", "cli"} {
		got, err := s.List(ctx, broker.Filter{Channel: ch, Status: broker.StatusPending})
		if err != nil || len(got) != 1 || got[0].ID != q.ID {
			t.Fatalf("List channel %s = %v, %v", ch, got, err)
		}
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); len(got) != 1 || len(got[remote]) != 2 || got[remote][1] != broker.TaskEdit {
		t.Fatalf("tasks after Resolve = %v, want the post and the edit of %s only", got, remote)
	}
}

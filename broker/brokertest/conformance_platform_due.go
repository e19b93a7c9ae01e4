package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// testNextPlatformWork: NextPlatformWork tells the earliest unfinished
// task's next attempt, a claimed task's end of hold, a retry's time, and
// nothing once every task is finished.
func testNextPlatformWork(t *testing.T, s broker.Store) {
	ctx := context.Background()
	next := func(what string) (time.Time, bool) {
		t.Helper()
		at, ok, err := s.NextPlatformWork(ctx)
		if err != nil {
			t.Fatalf("NextPlatformWork %s: %v", what, err)
		}
		return at, ok
	}
	if at, ok := next("of an empty store"); ok {
		t.Fatalf("next platform work of an empty store = %s, want none", at)
	}
	now := baseTime()
	q := withTargets(broker.NewID(), now)
	mustCreate(t, s, q)
	at, ok := next("after a create")
	if !ok {
		t.Fatal("no next platform work after a create with two targets")
	}
	sameTime(t, "next platform work after a create", at, now)
	tasks := claimTasks(t, s, "", now, 10, time.Minute)
	if len(tasks) != 2 {
		t.Fatalf("claim = %v, want the two posts", taskNames(tasks))
	}
	at, _ = next("while claimed")
	sameTime(t, "next platform work while both posts are claimed", at, now.Add(time.Minute))
	retry := tasks[0]
	retry.State, retry.Attempts, retry.NextAt, retry.LastError, retry.UpdatedAt = broker.TaskRetrying, 1, now.Add(5*time.Second), "down", now
	retry.ErrorClass = broker.FailUnreachable
	if err := s.UpdatePlatformWork(ctx, retry); err != nil {
		t.Fatalf("record a retry: %v", err)
	}
	at, _ = next("after a retry was recorded")
	sameTime(t, "next platform work after a retry was recorded", at, now.Add(5*time.Second))
	for _, x := range tasks[1:] {
		x.State, x.Attempts, x.MessageID, x.UpdatedAt = broker.TaskDone, 1, "m-1", now
		if err := s.UpdatePlatformWork(ctx, x); err != nil {
			t.Fatalf("record a post: %v", err)
		}
	}
	at, _ = next("after the other post was done")
	sameTime(t, "next platform work after the other post was done", at, now.Add(5*time.Second))
	again := claimTasks(t, s, "", now.Add(5*time.Second), 10, time.Minute)
	if len(again) != 1 {
		t.Fatalf("claim of the retry = %v, want one task", taskNames(again))
	}
	again[0].State, again[0].Attempts, again[0].MessageID, again[0].UpdatedAt = broker.TaskDone, 2, "m-2", now.Add(5*time.Second)
	if err := s.UpdatePlatformWork(ctx, again[0]); err != nil {
		t.Fatalf("record the retried post: %v", err)
	}
	if at, ok := next("once every task is done"); ok {
		t.Fatalf("next platform work once every task is done = %s, want none", at)
	}
}

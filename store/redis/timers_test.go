package redis_test

import (
	"context"
	"slices"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestTimersOneEntryPerQuestion: a question has one entry in its shard's
// timer set, at its next reminder and then at its deadline, and none in
// the due and rem sets; the scans tell a due reminder from a due
// deadline; Resolve drops the entry. Questions of the older layout (in
// due and rem) are still found, reminded, counted and unindexed, an entry
// left by an older version's Resolve is dropped, and a due deadline is
// found behind many due reminders.
func TestTimersOneEntryPerQuestion(t *testing.T) {
	s := open(t, redistest.Shared(t))
	ctx := context.Background()
	rc := s.Client()
	now := time.Now().Truncate(time.Millisecond)
	// Every question in one shard, so that the 150 below stand before the
	// late one in one timer set.
	first := broker.NewID()
	newID := func() string { return redisstore.IDInShardOf(first) }
	ask := func(rem ...time.Duration) *broker.Question {
		t.Helper()
		q := brokertest.NewQuestion(newID(), "timer-agent", now)
		q.ExpiresAt = now.Add(30 * time.Minute)
		for _, d := range rem {
			q.Reminders = append(q.Reminders, now.Add(d))
		}
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
		return q
	}
	score := func(k, id string) (float64, bool) {
		t.Helper()
		v, err := rc.ZScore(ctx, k, id).Result()
		if err == goredis.Nil {
			return 0, false
		}
		if err != nil {
			t.Fatal(err)
		}
		return v, true
	}
	at := func(tm time.Time) float64 { return float64(tm.UnixMicro()) }
	wantIDs := func(what string, got []string, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}

	q := ask(10*time.Minute, 20*time.Minute)
	tm, due, rem := s.TimerKeyNames(q.ID)
	if v, ok := score(tm, q.ID); !ok || v != at(q.Reminders[0]) {
		t.Fatalf("timer of a new question = %v, %v; want its first reminder %v", v, ok, at(q.Reminders[0]))
	}
	for _, k := range []string{due, rem} {
		if _, ok := score(k, q.ID); ok {
			t.Fatalf("a new question is in %q", k)
		}
	}
	ids, err := s.DueReminders(ctx, q.Reminders[0], 10)
	wantIDs("DueReminders at the first reminder", ids, err, q.ID)
	ids, err = s.Due(ctx, q.Reminders[0], 10)
	wantIDs("Due at the first reminder", ids, err)
	for n, next := range []time.Time{q.Reminders[1], q.ExpiresAt} {
		if ok, err := s.ClaimReminder(ctx, q.ID, n+1); err != nil || !ok {
			t.Fatalf("ClaimReminder(%d) = %v, %v", n+1, ok, err)
		}
		if v, ok := score(tm, q.ID); !ok || v != at(next) {
			t.Fatalf("timer after reminder %d = %v, %v; want %v", n+1, v, ok, at(next))
		}
	}
	ids, err = s.DueReminders(ctx, q.ExpiresAt, 10)
	wantIDs("DueReminders at the deadline, both sent", ids, err)
	ids, err = s.Due(ctx, q.ExpiresAt, 10)
	wantIDs("Due at the deadline", ids, err, q.ID)

	// A question as older versions wrote it: layout 2, in due and rem.
	old := ask(10 * time.Minute)
	rec, _ := s.EventKeyNames(old.ID)
	otm, odue, orem := s.TimerKeyNames(old.ID)
	pipe := rc.TxPipeline()
	pipe.HSet(ctx, rec, "lv", "2")
	pipe.HDel(ctx, rec, "dl")
	pipe.ZRem(ctx, otm, old.ID)
	pipe.ZAdd(ctx, odue, goredis.Z{Score: at(old.ExpiresAt), Member: old.ID})
	pipe.ZAdd(ctx, orem, goredis.Z{Score: at(old.Reminders[0]), Member: old.ID})
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.CountPending(ctx); err != nil || n != 2 {
		t.Fatalf("CountPending = %d, %v; want 2", n, err)
	}
	ids, err = s.DueReminders(ctx, old.Reminders[0], 10)
	wantIDs("DueReminders of the older layout", ids, err, old.ID)
	if ok, err := s.ClaimReminder(ctx, old.ID, 1); err != nil || !ok {
		t.Fatalf("ClaimReminder of the older layout = %v, %v", ok, err)
	}
	if _, ok := score(orem, old.ID); ok {
		t.Fatal("the older layout's last reminder is still in rem")
	}
	if _, ok := score(otm, old.ID); ok {
		t.Fatal("a reminder of the older layout entered the timer set")
	}
	ids, err = s.Due(ctx, old.ExpiresAt, 10)
	wantIDs("Due of both layouts", ids, err, old.ID, q.ID)

	for _, x := range []*broker.Question{q, old} {
		if _, err := s.Resolve(ctx, x.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []struct{ key, id string }{{tm, q.ID}, {odue, old.ID}, {orem, old.ID}, {otm, old.ID}} {
		if _, ok := score(k.key, k.id); ok {
			t.Fatalf("%s is still in %q after Resolve", k.id, k.key)
		}
	}
	if n, err := s.CountPending(ctx); err != nil || n != 0 {
		t.Fatalf("CountPending after the resolutions = %d, %v; want 0", n, err)
	}

	// Snoozed by an older version: in due as well; Resolve drops both.
	snoozed := ask()
	srec, _ := s.EventKeyNames(snoozed.ID)
	later := now.Add(time.Hour)
	if err := rc.HSet(ctx, srec, "ex", later.UnixMicro()).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.ZAdd(ctx, due, goredis.Z{Score: at(later), Member: snoozed.ID}).Err(); err != nil {
		t.Fatal(err)
	}
	ids, err = s.Due(ctx, q.ExpiresAt, 10)
	wantIDs("Due before the snoozed deadline", ids, err)
	ids, err = s.Due(ctx, later, 10)
	wantIDs("Due at the snoozed deadline, in both sets", ids, err, snoozed.ID)
	if _, err := s.Resolve(ctx, snoozed.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{tm, due} {
		if _, ok := score(k, snoozed.ID); ok {
			t.Fatalf("the snoozed question is still in %q after Resolve", k)
		}
	}

	// An entry an older version's Resolve left behind is dropped.
	if err := rc.ZAdd(ctx, tm, goredis.Z{Score: at(now), Member: q.ID}).Err(); err != nil {
		t.Fatal(err)
	}
	ids, err = s.Due(ctx, now.Add(time.Hour), 10)
	wantIDs("Due with an entry of a resolved question", ids, err)
	if _, ok := score(tm, q.ID); ok {
		t.Fatal("the entry of a resolved question is still in the timer set")
	}

	// A due deadline behind many due reminders.
	var waiting []string
	for range 150 {
		waiting = append(waiting, ask(time.Minute).ID)
	}
	late := brokertest.NewQuestion(newID(), "timer-agent", now.Add(-time.Hour))
	late.ExpiresAt = now.Add(2 * time.Minute)
	if _, _, err := s.Create(ctx, late, nil); err != nil {
		t.Fatal(err)
	}
	ids, err = s.Due(ctx, now.Add(2*time.Minute), 5)
	wantIDs("Due behind 150 due reminders", ids, err, late.ID)
	ids, err = s.DueReminders(ctx, now.Add(2*time.Minute), 200)
	wantIDs("DueReminders of the 150", ids, err, waiting...)
}

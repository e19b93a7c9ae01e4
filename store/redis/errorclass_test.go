package redis_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// A task written before its error's class was kept apart has the class at
// the head of its last error: it is read with the class apart and shown as
// before. Recorded again, the class is the value's last field, and a task
// with no class keeps the shorter value of before.
func TestTaskErrorClass(t *testing.T) {
	tg, sl := broker.Target{Channel: "telegram", Chat: "-100"}, broker.Target{Channel: "slack", Chat: "C1"}
	s, q, now := askWithCopies(t, tg, sl)
	ctx := context.Background()
	rec, _ := s.BodyKeyNames(q.ID)
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	created, next, deadline := now.Add(-time.Hour), now.Add(-time.Second), now.Add(29*time.Minute)
	older := func(state, attempts, lastErr string) string {
		return strings.Join([]string{state, attempts, ms(next), ms(deadline), "1", "0", ms(created), ms(next), "", lastErr}, "\t")
	}
	tgField, slField := "o\tpost\ttelegram\t-100", "o\tpost\tslack\tC1"
	if err := s.Client().HSet(ctx, rec,
		tgField, older("retrying", "1", "timeout: the platform did not answer in time"),
		slField, older("failed", "3", `gave up after 3 attempts: unreachable: Post "http://10.0.0.5:8080/x": EOF`)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Client().ZAdd(ctx, s.OutboxKeyName(q.ID), goredis.Z{Score: float64(next.UnixMilli()), Member: q.ID + tgField[1:]}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Client().ZRem(ctx, s.OutboxKeyName(q.ID), q.ID+slField[1:]).Err(); err != nil {
		t.Fatal(err)
	}
	work, err := s.PlatformWork(ctx, q.ID)
	if err != nil || len(work) != 2 {
		t.Fatalf("older tasks read as %+v, %v", work, err)
	}
	want := map[string][3]string{
		"slack":    {"unreachable", "the platform could not be reached or did not take the call", "gave up after 3 attempts: unreachable: the platform could not be reached or did not take the call"},
		"telegram": {"timeout", "the platform did not answer in time", "timeout: the platform did not answer in time"},
	}
	for _, w := range work {
		x := want[w.Target.Channel]
		if string(w.ErrorClass) != x[0] || w.LastError != x[1] || w.ErrorLine() != x[2] {
			t.Errorf("older %s task read as class %q, text %q, shown %q; want %q", w.Target, w.ErrorClass, w.LastError, w.ErrorLine(), x)
		}
	}

	tasks, err := s.ClaimPlatformWork(ctx, q.ID, now, 10, time.Minute)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("claim: %+v, %v", tasks, err)
	}
	task := tasks[0]
	task.Attempts, task.NextAt, task.UpdatedAt = 2, now.Add(time.Minute), now
	task.ErrorClass, task.LastError = broker.FailRateLimited, "the platform asked to wait 3s"
	if err := s.UpdatePlatformWork(ctx, task); err != nil {
		t.Fatal(err)
	}
	raw, _ := s.Client().HGet(ctx, rec, tgField).Result()
	if f := strings.Split(raw, "\t"); len(f) != 11 || f[9] != "the platform asked to wait 3s" || f[10] != "rate limited" {
		t.Errorf("recorded task %q, want the text and then the class as the last field", raw)
	}
	work, _ = s.PlatformWork(ctx, q.ID)
	if w := work[1]; w.ErrorClass != broker.FailRateLimited || w.LastError != "the platform asked to wait 3s" {
		t.Errorf("recorded task read as %+v", w)
	}

	tasks, err = s.ClaimPlatformWork(ctx, q.ID, now.Add(time.Minute), 10, time.Minute)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("claim again: %+v, %v", tasks, err)
	}
	task = tasks[0]
	task.State, task.Attempts, task.MessageID, task.UpdatedAt = broker.TaskDone, 3, "77", now.Add(time.Minute)
	task.ErrorClass, task.LastError = "", ""
	if err := s.UpdatePlatformWork(ctx, task); err != nil {
		t.Fatal(err)
	}
	if raw, _ := s.Client().HGet(ctx, rec, tgField).Result(); len(strings.Split(raw, "\t")) != 10 {
		t.Errorf("a task without an error class is written as %q, want the ten fields of before", raw)
	}
}

package redis_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// checkCompact fails unless every task value of question id fits Redis's
// default hash-max-listpack-value (64 bytes) and the record is still a
// listpack, as Redis keeps it only while every field and value fits.
func checkCompact(t *testing.T, s *redisstore.Store, id, when string) {
	t.Helper()
	ctx := context.Background()
	rec, _ := s.BodyKeyNames(id)
	m, err := s.Client().HGetAll(ctx, rec).Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for f, v := range m {
		if strings.HasPrefix(f, "o\t") {
			n++
			if len(v) > 64 {
				t.Errorf("%s: task %q has a %d-byte value %q", when, f, len(v), v)
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: the record holds no task", when)
	}
	if enc, err := s.Client().ObjectEncoding(ctx, rec).Result(); err != nil || enc != "listpack" {
		t.Errorf("%s: the record's encoding is %q (%v), want listpack", when, enc, err)
	}
}

// askWithCopies creates, on a Redis of its own with the defaults, a
// question with a post task to each of targets, created now.
func askWithCopies(t *testing.T, targets ...broker.Target) (*redisstore.Store, *broker.Question, time.Time) {
	t.Helper()
	addr, _ := redistest.StartServer(t)
	s := open(t, redisstore.Config{Addrs: []string{addr}})
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := fourOptions(now)
	q.Reminders = nil
	q.Targets = targets
	if _, _, err := s.Create(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	return s, q, now
}

// A question with chat copies keeps its record compact on Redis's
// defaults through its tasks' life: queued, claimed, and posted with the
// longest message ids the chat platforms give (a Discord snowflake, a
// Slack ts); and the tasks read back to the millisecond.
func TestTaskValuesKeepTheRecordCompact(t *testing.T) {
	s, q, now := askWithCopies(t,
		broker.Target{Channel: "discord", Chat: "1234567890123456789"},
		broker.Target{Channel: "slack", Chat: "C0123456789"},
		broker.Target{Channel: "telegram", Chat: "-1001234567890"})
	ctx := context.Background()
	checkCompact(t, s, q.ID, "created")
	rec, _ := s.BodyKeyNames(q.ID)
	raw, err := s.Client().HGet(ctx, rec, "o\tpost\ttelegram\t-1001234567890").Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := redisstore.NewTaskValue(q.CreatedAt.UnixMilli(), q.ExpiresAt.UnixMilli()); raw != want {
		t.Errorf("queued post task %q, want %q", raw, want)
	}

	at := now.Add(time.Second)
	tasks, err := s.ClaimPlatformWork(ctx, q.ID, at, 10, time.Minute)
	if err != nil || len(tasks) != 3 {
		t.Fatalf("claim: %d tasks, %v", len(tasks), err)
	}
	checkCompact(t, s, q.ID, "claimed")
	ids := map[string]string{"discord": "1234567890123456789", "slack": "1764633600.123456", "telegram": "2147483647"}
	for _, task := range tasks {
		if !task.CreatedAt.Equal(now) || !task.Deadline.Equal(q.ExpiresAt) || !task.Claim.Equal(at.Add(time.Minute)) || !task.NextAt.Equal(at.Add(time.Minute)) || task.Gen != 1 {
			t.Errorf("claimed %+v: want created %v, deadline %v, claim and next %v, gen 1", task, now, q.ExpiresAt, at.Add(time.Minute))
		}
		task.State, task.Attempts, task.MessageID, task.UpdatedAt = broker.TaskDone, 1, ids[task.Target.Channel], at.Add(1500*time.Millisecond)
		if err := s.UpdatePlatformWork(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	checkCompact(t, s, q.ID, "posted")
	got, err := s.PlatformWork(ctx, q.ID)
	if err != nil || len(got) != 3 {
		t.Fatalf("platform work: %d tasks, %v", len(got), err)
	}
	for _, task := range got {
		if task.State != broker.TaskDone || task.MessageID != ids[task.Target.Channel] || !task.UpdatedAt.Equal(at.Add(1500*time.Millisecond)) || !task.Claim.IsZero() || !task.CreatedAt.Equal(now) {
			t.Errorf("posted task read back as %+v", task)
		}
	}
}

// A task written in the decimal form of older versions is claimed,
// renewed and updated by this version with its times kept to the
// millisecond, and written back in base 62.
func TestOlderTaskValues(t *testing.T) {
	s, q, now := askWithCopies(t, broker.Target{Channel: "telegram", Chat: "-1001234567890"})
	ctx := context.Background()
	const field = "o\tpost\ttelegram\t-1001234567890"
	rec, _ := s.BodyKeyNames(q.ID)
	ms := func(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }
	created, next, deadline := now.Add(-time.Hour), now.Add(-time.Second), now.Add(29*time.Minute)
	older := strings.Join([]string{"retrying", "2", ms(next), ms(deadline), "4", "0", ms(created), ms(next), "", "a timeout"}, "\t")
	if err := s.Client().HSet(ctx, rec, field, older).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Client().ZAdd(ctx, s.OutboxKeyName(q.ID), goredis.Z{Score: float64(next.UnixMilli()), Member: q.ID + field[1:]}).Err(); err != nil {
		t.Fatal(err)
	}
	work, err := s.PlatformWork(ctx, q.ID)
	if err != nil || len(work) != 1 || !work[0].CreatedAt.Equal(created) || !work[0].NextAt.Equal(next) || work[0].Attempts != 2 || work[0].Gen != 4 {
		t.Fatalf("older task read as %+v, %v", work, err)
	}

	// The shard-wide claim (no question named) finds it by its score.
	tasks, err := s.ClaimPlatformWork(ctx, "", now, 10, time.Minute)
	if err != nil || len(tasks) != 1 {
		t.Fatalf("claim: %+v, %v", tasks, err)
	}
	task := tasks[0]
	if !task.CreatedAt.Equal(created) || !task.Deadline.Equal(deadline) || !task.Claim.Equal(now.Add(time.Minute)) || task.LastError != "a timeout" || task.Gen != 4 {
		t.Fatalf("claimed %+v", task)
	}
	raw, _ := s.Client().HGet(ctx, rec, field).Result()
	if len(raw) >= len(older) || strings.Contains(raw, ms(created)) {
		t.Errorf("a claimed task is written back as %q, want its times in base 62", raw)
	}
	// Renewed while claimed: a newer deadline and gen, its claim kept;
	// the attempt's success then queues it again, for the renewal.
	renewed := now.Add(2 * time.Hour)
	if err := s.EnqueuePlatformWork(ctx, q.ID, broker.TaskPost, q.Targets, now.Add(time.Second), renewed); err != nil {
		t.Fatal(err)
	}
	task.State, task.Attempts, task.MessageID, task.UpdatedAt = broker.TaskDone, 3, "77", now.Add(2*time.Second)
	if err := s.UpdatePlatformWork(ctx, task); err != nil {
		t.Fatal(err)
	}
	work, err = s.PlatformWork(ctx, q.ID)
	if err != nil || len(work) != 1 {
		t.Fatal(work, err)
	}
	w := work[0]
	if w.State != broker.TaskQueued || w.Gen != 5 || w.Attempts != 3 || !w.Deadline.Equal(renewed) || !w.CreatedAt.Equal(created) ||
		!w.NextAt.Equal(now.Add(2*time.Second)) || !w.UpdatedAt.Equal(now.Add(2*time.Second)) || !w.Claim.IsZero() || w.MessageID != "77" {
		t.Errorf("after a renewal and an attempt: %+v", w)
	}
	if sc, err := s.Client().ZScore(ctx, s.OutboxKeyName(q.ID), q.ID+field[1:]).Result(); err != nil || int64(sc) != now.Add(2*time.Second).UnixMilli() {
		t.Errorf("outbox score %v (%v), want the next attempt %d", sc, err, now.Add(2*time.Second).UnixMilli())
	}
	// (The record itself stays a hash table: Redis never converts one
	// back to a listpack while it runs.)
	if raw, _ := s.Client().HGet(ctx, rec, field).Result(); len(raw) > 64 {
		t.Errorf("rewritten task %q is %d bytes", raw, len(raw))
	}
}

// Lua and Go write a task's times alike (Create writes a value in Go,
// every later change in Lua), and Lua reads both forms back to the same
// decimal milliseconds.
func TestTaskValueLuaAgreesWithGo(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	s := open(t, redisstore.Config{Addrs: []string{addr}})
	ctx := context.Background()
	script := redisstore.TaskValueLua + `
local t = tsplit(ARGV[1])
return {t[3], t[4], t[6], t[7], t[8], tjoin(t)}
`
	for _, times := range [][5]int64{
		{0, 0, 0, 0, 0},
		{1, 61, 62, 3843, 3844},
		{1_796_000_000_123, 1_796_001_800_123, 0, 1_796_000_000_000, 1_796_000_000_999},
		{1 << 40, 1<<52 - 1, 1 << 52, 2_147_483_647, 3_521_614_606_207},
	} {
		b62 := make([]string, 5)
		dec := make([]string, 5)
		for i, n := range times {
			b62[i], dec[i] = redisstore.B62(n), strconv.FormatInt(n, 10)
		}
		compact := strings.Join([]string{"retrying", "2", b62[0], b62[1], "3", b62[2], b62[3], b62[4], "42", "an error"}, "\t")
		older := strings.Join([]string{"retrying", "2", dec[0], dec[1], "3", dec[2], dec[3], dec[4], "42", "an error"}, "\t")
		for _, v := range []string{compact, older} {
			if v == older && len(dec[3]) < 12 {
				continue // an older value always has a created time of this century
			}
			got, err := s.Client().Eval(ctx, script, nil, v).StringSlice()
			if err != nil {
				t.Fatal(err)
			}
			if want := append(dec[:5:5], compact); !slices.Equal(got, want) {
				t.Errorf("Lua read %q as\n%q\nwant\n%q", v, got, want)
			}
		}
	}
}

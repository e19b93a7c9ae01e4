package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// eventually polls cond every 10ms until it holds or limit passes.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRestartKeepsQuestions kills Redis (SIGKILL) under AOF with fsync on
// every write and starts it again on the same directory: resolved
// questions are unchanged and pending ones can still be resolved.
func TestRestartKeepsQuestions(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	s := open(t, redisstore.Config{Addrs: []string{srv.Addr}})
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	pending := brokertest.FullQuestion(broker.NewID(), "a1", now)
	if _, _, err := s.Create(ctx, pending, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	done := brokertest.NewQuestion(broker.NewID(), "a1", now)
	done.CallbackURL = "https://agent.example/cb"
	if _, _, err := s.Create(ctx, done, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := s.AddMessage(ctx, done.ID, broker.MessageRef{Channel: "telegram", Chat: "1", MessageID: "9", PostedAt: now}); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	resolved, err := s.Resolve(ctx, done.ID, broker.Resolution{Status: broker.StatusAnswered,
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}, ResolvedAt: now})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}

	srv.Kill()
	srv.Restart()

	got, err := s.Get(ctx, done.ID)
	if err != nil {
		t.Fatalf("Get after restart: %v", err)
	}
	if got.Status != broker.StatusAnswered || got.Answers["Which database?"].Selected[0] != "SQLite" || !got.ResolvedAt.Equal(resolved.ResolvedAt) {
		t.Fatalf("resolved question after restart = %+v, want it answered SQLite", got)
	}
	if id, err := s.LookupMessage(ctx, "telegram", "1", "9"); err != nil || id != done.ID {
		t.Fatalf("LookupMessage after restart = %q, %v", id, err)
	}
	if ds, err := s.Deliveries(ctx, done.ID); err != nil || len(ds) != 1 || ds[0].State != broker.DeliveryPending {
		t.Fatalf("Deliveries after restart = %+v, %v; want one pending", ds, err)
	}
	if evs, err := s.Events(ctx, "", 0, 10); err != nil || len(evs) != 1 || evs[0].QuestionID != done.ID {
		t.Fatalf("Events after restart = %+v, %v", evs, err)
	}
	due, err := s.Due(ctx, pending.ExpiresAt, 10)
	if err != nil || len(due) != 1 || due[0] != pending.ID {
		t.Fatalf("Due after restart = %v, %v; want the pending question", due, err)
	}
	q, err := s.Resolve(ctx, pending.ID, broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone})
	if err != nil || q.Status != broker.StatusTimedOut {
		t.Fatalf("Resolve of the pending question after restart = %+v, %v", q, err)
	}
}

// TestRedisDown stops Redis: calls fail promptly with ErrUnavailable;
// when Redis is back the same Store works again and watchers are told to
// re-check.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	s := open(t, redisstore.Config{Addrs: []string{srv.Addr}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	watch := s.Watch(ctx)

	srv.Kill()
	for _, c := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Ping", s.Ping},
		{"Get", func(ctx context.Context) error { _, err := s.Get(ctx, q.ID); return err }},
		{"Resolve", func(ctx context.Context) error {
			_, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled})
			return err
		}},
		{"List", func(ctx context.Context) error { _, err := s.List(ctx, broker.Filter{}); return err }},
		{"Due", func(ctx context.Context) error { _, err := s.Due(ctx, time.Now(), 10); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Generous bound: the point is that the call returns (no
			// hang until the caller's deadline), with the right error.
			cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
			defer ccancel()
			err := c.call(cctx)
			if !errors.Is(err, broker.ErrUnavailable) {
				t.Fatalf("%s with Redis down: err = %v, want ErrUnavailable", c.name, err)
			}
			if cctx.Err() != nil {
				t.Fatalf("%s with Redis down returned only at the caller's deadline", c.name)
			}
		})
	}

	srv.Restart()
	eventually(t, 10*time.Second, "Ping after Redis came back", func() bool { return s.Ping(ctx) == nil })
	// The feed reconnects and asks watchers to re-check.
	timer := time.NewTimer(15 * time.Second)
	defer timer.Stop()
	for hint := (broker.Resolved{ID: "x"}); hint.ID != ""; {
		select {
		case hint = <-watch:
		case <-timer.C:
			t.Fatal("watcher got no re-check hint after Redis came back")
		}
	}
	got, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "back"})
	if err != nil || got.Status != broker.StatusCancelled {
		t.Fatalf("Resolve after Redis came back = %+v, %v", got, err)
	}
}

// TestFeedAcrossStores checks that a resolution made through one Store
// reaches the watchers of another Store on the same Redis.
func TestFeedAcrossStores(t *testing.T) { testFeedAcrossStores(t, redistest.Shared(t)) }

func testFeedAcrossStores(t *testing.T, cfg redisstore.Config) {
	a, b := open(t, cfg), open(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := b.Watch(ctx)
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := a.Create(ctx, q, nil); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := a.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		select {
		case r := <-watch:
			if r.ID == q.ID {
				if r.Agent != q.Agent {
					t.Fatalf("the other store's watcher saw %s with agent %q, want %q", q.ID, r.Agent, q.Agent)
				}
				return
			}
		case <-timer.C:
			t.Fatalf("the other store's watcher never saw %s", q.ID)
		}
	}
}

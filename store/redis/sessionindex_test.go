package redis_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestSessionIndexPerAgent: a session is indexed per agent, so two
// agents' sessions of one id share no index; questions an older version
// indexed under the session id alone are still listed and cancelled, by
// their own agent only, and Purge takes them out of that index.
func TestSessionIndexPerAgent(t *testing.T) {
	ctx := context.Background()
	s := open(t, redistest.Shared(t))
	rc := s.Client()
	now := time.Now()
	create := func(id, agent string, at time.Time) {
		t.Helper()
		q := brokertest.NewQuestion(id, agent, at)
		q.SessionID = "s1"
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Four questions in one shard: a1's and a2's, indexed as this
	// version does, and a1's and a2's moved to the older version's index.
	first := broker.NewID()
	ids := []string{first, redisstore.IDInShardOf(first), redisstore.IDInShardOf(first), redisstore.IDInShardOf(first)}
	agents := []string{"a1", "a2", "a1", "a2"}
	for i, id := range ids {
		create(id, agents[i], now.Add(time.Duration(i)*time.Second))
	}
	_, a1Sess, _ := s.IndexKeyNames(first, "a1", "s1", "", "")
	_, a2Sess, _ := s.IndexKeyNames(first, "a2", "s1", "", "")
	old := s.OldSessionKey(first, "s1")
	if a1Sess == a2Sess {
		t.Fatalf("two agents' sessions s1 share the index %q", a1Sess)
	}
	for i, id := range ids {
		idx := a1Sess
		if agents[i] == "a2" {
			idx = a2Sess
		}
		score, err := rc.ZScore(ctx, idx, id).Result()
		if err != nil {
			t.Fatalf("ZSCORE %q %s: %v; the question is not in its agent's session index", idx, id, err)
		}
		if i >= 2 { // as an older version indexed it
			if err := rc.ZRem(ctx, idx, id).Err(); err != nil {
				t.Fatal(err)
			}
			if err := rc.ZAdd(ctx, old, goredis.Z{Score: score, Member: id}).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	list := func(agent string) []string {
		t.Helper()
		qs, err := s.List(ctx, broker.Filter{Agent: agent, SessionID: "s1", Status: broker.StatusPending})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return out
	}
	if got := list("a1"); len(got) != 2 || got[0] != ids[2] || got[1] != ids[0] {
		t.Fatalf("a1's session s1 lists %v, want %v (newest first, from both indexes)", got, []string{ids[2], ids[0]})
	}
	b, err := broker.New(broker.Config{Store: s, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cancelled, err := b.CancelSession(ctx, "a1", "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cancelled) != 2 {
		t.Fatalf("CancelSession(a1, s1) cancelled %d questions, want a1's 2", len(cancelled))
	}
	for i, id := range ids {
		want := broker.StatusCancelled
		if agents[i] == "a2" {
			want = broker.StatusPending
		}
		if q, err := s.Get(ctx, id); err != nil || q.Status != want {
			t.Fatalf("question %d (%s's) is %v, %v; want %s", i, agents[i], q.Status, err, want)
		}
	}
	if got := list("a2"); len(got) != 2 || got[0] != ids[3] || got[1] != ids[1] {
		t.Fatalf("a2's session s1 lists %v, want %v", got, []string{ids[3], ids[1]})
	}

	// Purge takes the purged questions out of both indexes.
	if _, err := s.Purge(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct{ key, id string }{{a1Sess, ids[0]}, {old, ids[2]}} {
		if _, err := rc.ZScore(ctx, k.key, k.id).Result(); err == nil {
			t.Fatalf("after Purge, %s is still in %q", k.id, k.key)
		}
	}
	if n, err := rc.ZCard(ctx, old).Result(); err != nil || n != 1 {
		t.Fatalf("ZCARD %q = %d, %v after Purge; want a2's pending question only", old, n, err)
	}
}

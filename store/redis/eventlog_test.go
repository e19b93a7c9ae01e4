package redis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// resolveAt asks a question of agent and cancels it at resolved, and
// returns its id.
func resolveAt(t *testing.T, s *redisstore.Store, agent string, resolved time.Time) string {
	t.Helper()
	return resolveIDAt(t, s, broker.NewID(), agent, resolved)
}

// trimmingID returns a new id whose resolution trims its agent's event
// log (trims), or one whose resolution does not: about one id in 16
// does, chosen by its first and last bytes.
func trimmingID(trims bool) string {
	for {
		id := broker.NewID()
		if ((int(id[0])+int(id[len(id)-1]))%16 == 0) == trims {
			return id
		}
	}
}

// resolveIDAt is resolveAt for a question with the given id.
func resolveIDAt(t *testing.T, s *redisstore.Store, id, agent string, resolved time.Time) string {
	t.Helper()
	ctx := context.Background()
	q := brokertest.NewQuestion(id, agent, resolved.Add(-time.Minute))
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: resolved}); err != nil {
		t.Fatal(err)
	}
	return q.ID
}

// bothModes runs test against a store on the shared Redis as a single
// server and as it acts on Cluster (the event logged in a second step).
func bothModes(t *testing.T, test func(t *testing.T, s *redisstore.Store)) {
	for _, mode := range []string{"single", "cluster"} {
		t.Run(mode, func(t *testing.T) {
			s := open(t, redistest.Shared(t))
			if mode == "cluster" {
				s.ActAsCluster()
			}
			test(t, s)
		})
	}
}

// TestEventsOfEveryAgentMerged: a resolution is logged in its agent's log
// only (no log of every agent's events is written), and the events of
// every agent are the agents' logs merged in sequence order, page by
// page.
func TestEventsOfEveryAgentMerged(t *testing.T) {
	bothModes(t, func(t *testing.T, s *redisstore.Store) {
		ctx := context.Background()
		now := time.Now()
		agents := []string{"a1", "a2", "a1", "a3", "a2", "a1", "a1"}
		var ids []string
		for _, a := range agents {
			ids = append(ids, resolveAt(t, s, a, now))
		}
		_, everyAgent, _ := s.EventLogNames("a1")
		if n, err := s.Client().Exists(ctx, everyAgent).Result(); err != nil || n != 0 {
			t.Fatalf("EXISTS %s = %d, %v; want 0: no log of every agent's events", everyAgent, n, err)
		}
		all, err := s.Events(ctx, "", 0, 100)
		if err != nil || len(all) != len(ids) {
			t.Fatalf("Events(\"\") = %d events, %v; want %d", len(all), err, len(ids))
		}
		for i, ev := range all {
			if ev.QuestionID != ids[i] || ev.Agent != agents[i] || (i > 0 && ev.Seq <= all[i-1].Seq) {
				t.Fatalf("event %d = %s of %s (seq %d); want %s of %s, in rising seq", i, ev.QuestionID, ev.Agent, ev.Seq, ids[i], agents[i])
			}
		}
		var paged []broker.Event
		for after := int64(0); ; {
			page, err := s.Events(ctx, "", after, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 3 {
				t.Fatalf("a page of %d events, want at most 3", len(page))
			}
			if len(page) == 0 {
				break
			}
			paged = append(paged, page...)
			after = page[len(page)-1].Seq
		}
		if len(paged) != len(all) {
			t.Fatalf("pages of 3 gave %d events, want %d", len(paged), len(all))
		}
		for i := range all {
			if paged[i].Seq != all[i].Seq {
				t.Fatalf("paged event %d has seq %d, want %d", i, paged[i].Seq, all[i].Seq)
			}
		}
		a1, err := s.Events(ctx, "a1", 0, 100)
		if err != nil || len(a1) != 4 {
			t.Fatalf("Events(a1) = %d events, %v; want 4", len(a1), err)
		}
		if after, err := s.Events(ctx, "", all[len(all)-1].Seq, 100); err != nil || len(after) != 0 {
			t.Fatalf("Events after the last = %+v, %v; want none", after, err)
		}
	})
}

// TestEventLogsTrimmed: events older than the retention (and its grace)
// leave the logs: an agent's own resolutions trim its log now and then;
// Purge trims the logs of agents that resolve nothing any more, and what
// older versions left in the log of every agent's events. The ids entries
// of the dropped events go with them; newer events stay.
func TestEventLogsTrimmed(t *testing.T) {
	bothModes(t, func(t *testing.T, s *redisstore.Store) {
		ctx := context.Background()
		rc := s.Client()
		now := time.Now()
		old := now.Add(-(redisstore.DefaultRetention + 2*time.Hour))
		for range 3 {
			resolveIDAt(t, s, trimmingID(false), "idle", old)
		}
		var fresh []string
		for range 20 {
			resolveIDAt(t, s, trimmingID(false), "busy", old)
		}
		for range 19 {
			fresh = append(fresh, resolveIDAt(t, s, trimmingID(false), "busy", now))
		}
		if busy, err := s.Events(ctx, "busy", 0, 100); err != nil || len(busy) != 20+19 {
			t.Fatalf("Events(busy) = %d events, %v; want all 39 before a resolution that trims", len(busy), err)
		}
		fresh = append(fresh, resolveIDAt(t, s, trimmingID(true), "busy", now))
		busy, err := s.Events(ctx, "busy", 0, 100)
		if err != nil || len(busy) != len(fresh) {
			t.Fatalf("Events(busy) = %d events, %v; want only its %d recent ones", len(busy), err, len(fresh))
		}
		for i, ev := range busy {
			if ev.QuestionID != fresh[i] {
				t.Fatalf("busy's event %d is %s, want %s", i, ev.QuestionID, fresh[i])
			}
		}
		if idle, err := s.Events(ctx, "idle", 0, 100); err != nil || len(idle) != 3 {
			t.Fatalf("Events(idle) before Purge = %d, %v; want its 3 old events", len(idle), err)
		}
		// What an older version left: an old and a recent event in
		// the log of every agent's events, with their ids entries.
		_, everyAgent, ids := s.EventLogNames("gone")
		member := func(at time.Time, id string) string {
			return strconv.FormatInt(at.UnixMicro(), 10) + ` {"question_id":"` + id + `","agent":"gone","status":"cancelled"}`
		}
		if err := rc.ZAdd(ctx, everyAgent, goredis.Z{Score: 1e6, Member: member(old, "legacyold")},
			goredis.Z{Score: 1e6 + 1, Member: member(now, "legacynew")}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rc.HSet(ctx, ids, "legacyold", "1000000 gone", "legacynew", "1000001 gone").Err(); err != nil {
			t.Fatal(err)
		}
		// Purge removes no question here (none resolved before its
		// time): the logs' trim does the work.
		if n, err := s.Purge(ctx, now.Add(-30*24*time.Hour)); err != nil || n != 0 {
			t.Fatalf("Purge = %d, %v; want 0 questions", n, err)
		}
		if idle, err := s.Events(ctx, "idle", 0, 100); err != nil || len(idle) != 0 {
			t.Fatalf("Events(idle) after Purge = %+v, %v; want none", idle, err)
		}
		if busy, err := s.Events(ctx, "busy", 0, 100); err != nil || len(busy) != len(fresh) {
			t.Fatalf("Events(busy) after Purge = %d, %v; want %d", len(busy), err, len(fresh))
		}
		left, err := rc.ZRange(ctx, everyAgent, 0, -1).Result()
		if err != nil || len(left) != 1 || left[0] != member(now, "legacynew") {
			t.Fatalf("log of every agent's events after Purge = %q, %v; want the recent entry only", left, err)
		}
		named, err := rc.HKeys(ctx, ids).Result()
		if err != nil {
			t.Fatal(err)
		}
		want := 1 // legacynew
		if s.ActsAsCluster() {
			want += len(fresh) // on Cluster ids names each resolution's event
		}
		if len(named) != want {
			t.Fatalf("ids holds %d entries after Purge, want %d: %q", len(named), want, named)
		}
		for _, k := range named {
			if k == "legacyold" {
				t.Fatalf("ids still names the dropped legacy event")
			}
		}
	})
}

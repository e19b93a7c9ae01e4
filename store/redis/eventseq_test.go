package redis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestResolutionEventNamedInRecord: off Cluster a resolution's event is
// named by its question's record (field es), not by an entry in ids; on
// Cluster, where the event is logged in a second step, ids still names
// it. Either way Purge drops the event from the log and the agent's log,
// and so it does for a record written before es existed (ids names its
// event).
func TestResolutionEventNamedInRecord(t *testing.T) {
	for _, mode := range []string{"single", "cluster", "older record"} {
		t.Run(mode, func(t *testing.T) {
			s := open(t, redistest.Shared(t))
			if mode == "cluster" {
				s.ActAsCluster()
			}
			ctx := context.Background()
			rc := s.Client()
			now := time.Now()
			ask := func(resolved time.Time) string {
				q := brokertest.NewQuestion(broker.NewID(), "seq-agent", now.Add(-4*time.Hour))
				if _, _, err := s.Create(ctx, q, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: resolved}); err != nil {
					t.Fatal(err)
				}
				return q.ID
			}
			// The second resolved two hours ago: Purge removes it only.
			kept, id := ask(now), ask(now.Add(-2*time.Hour))
			evs, err := s.Events(ctx, "seq-agent", 0, 10)
			if err != nil || len(evs) != 2 || evs[1].QuestionID != id {
				t.Fatalf("Events = %+v, %v; want the two resolutions", evs, err)
			}
			seq := strconv.FormatInt(evs[1].Seq, 10)
			rec, ids := s.EventKeyNames(id)
			es, esErr := rc.HGet(ctx, rec, "es").Result()
			named, idsErr := rc.HGet(ctx, ids, id).Result()
			switch mode {
			case "single":
				if esErr != nil || es != seq {
					t.Fatalf("record's es = %q, %v; want the event's seq %s", es, esErr, seq)
				}
				if idsErr == nil {
					t.Fatalf("ids names the event (%q) although the record does", named)
				}
			case "cluster":
				if esErr == nil {
					t.Fatalf("record's es = %q on Cluster, want none", es)
				}
				if idsErr != nil || named != seq+" seq-agent" {
					t.Fatalf("ids entry = %q, %v; want %q", named, idsErr, seq+" seq-agent")
				}
			case "older record":
				// As an older version left it: the event in ids only.
				if err := rc.HDel(ctx, rec, "es").Err(); err != nil {
					t.Fatal(err)
				}
				if err := rc.HSet(ctx, ids, id, seq+" seq-agent").Err(); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := s.Purge(ctx, now.Add(-time.Hour)); err != nil || n != 1 {
				t.Fatalf("Purge = %d, %v; want 1", n, err)
			}
			for _, agent := range []string{"", "seq-agent"} {
				evs, err := s.Events(ctx, agent, 0, 10)
				if err != nil || len(evs) != 1 || evs[0].QuestionID != kept {
					t.Fatalf("Events(%q) after Purge = %+v, %v; want only %s's", agent, evs, err, kept)
				}
			}
			if n, err := rc.HExists(ctx, ids, id).Result(); err != nil || n {
				t.Fatalf("HEXISTS ids %s = %v, %v after Purge; want false", id, n, err)
			}
		})
	}
}

package redis_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestQuorumVotesOnTwoInstances has two responders vote at the same
// instant, each through another bridge instance on one Redis: the
// question resolves once, with both votes.
func TestQuorumVotesOnTwoInstances(t *testing.T) {
	cfg := redistest.Shared(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	route := broker.Route{Targets: []broker.Target{{Channel: "web"}}, Responders: []string{"person:ana", "person:bo", "person:cy"}, Policy: broker.Policy{Quorum: 2}}
	people, err := broker.NewPeople([]broker.Person{{ID: "ana"}, {ID: "bo"}, {ID: "cy"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	newInstance := func() (*broker.Broker, broker.Store) {
		st := open(t, cfg)
		b, err := broker.New(broker.Config{Store: st, Routes: map[string]broker.Route{"default": route}, Logger: quiet, People: people})
		if err != nil {
			t.Fatalf("broker.New: %v", err)
		}
		outbox.Attach(b, st, outbox.Config{})
		b.Register(brokertest.NewChannel("web"))
		go b.Run(ctx)
		t.Cleanup(b.Close)
		return b, st
	}
	a, st := newInstance()
	b, _ := newInstance()
	for range 20 {
		q, _, err := a.Ask(ctx, "agent-1", &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
		if err != nil {
			t.Fatalf("Ask: %v", err)
		}
		var wg sync.WaitGroup
		replies := make([]broker.Reply, 2)
		for i, inst := range []*broker.Broker{a, b} {
			user := []string{"ana", "bo"}[i]
			wg.Go(func() {
				replies[i] = inst.HandleInbound(ctx, broker.Inbound{Channel: "web", User: user, Text: "/answer " + q.ID + " 1"})
			})
		}
		wg.Wait()
		for _, r := range replies {
			if !r.OK {
				t.Fatalf("vote refused: %+v", r)
			}
		}
		got, err := st.Get(ctx, q.ID)
		if err != nil || got.Status != broker.StatusAnswered || len(got.Result().Voters) != 2 || len(got.State.Votes) != 2 {
			t.Fatalf("after two votes on two instances: %+v, %v; want answered with both votes", got, err)
		}
		log, err := st.Audit(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if ok, bad, why := broker.VerifyAudit(log); !ok {
			t.Fatalf("audit chain broken at %d: %s", bad, why)
		}
		votes, last := 0, log[len(log)-1]
		for _, e := range log {
			if e.Kind == broker.AuditVote {
				votes++
			}
		}
		if votes != 2 || last.Kind != broker.AuditResolved || len(last.Voters) != 2 {
			t.Fatalf("audit = %+v; want the two votes, then the resolution by both", log)
		}
		evs, err := st.Events(ctx, "agent-1", 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs {
			if e.QuestionID == q.ID {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d resolution events for %s, want 1", n, q.ID)
		}
	}
}

// TestAuditTrailOutlivesRecord: once a question is resolved, its record
// expires after the store's retention, and its audit trail, whether
// written by Create and Resolve alone, AddAudit or Amend, at least the
// audit retention after its newest entry.
func TestAuditTrailOutlivesRecord(t *testing.T) {
	cfg := redistest.Shared(t)
	cfg.Retention = 24 * time.Hour
	s := open(t, cfg)
	const keep = 30 * 24 * time.Hour
	s.SetAuditRetention(keep)
	ctx := context.Background()
	entry := broker.AuditEntry{At: time.Now(), Kind: "vote", Choice: "SQLite"}
	cases := []struct {
		name  string
		audit func(id string) error
	}{
		{"AddAudit", func(id string) error { return s.AddAudit(ctx, id, entry) }},
		{"Amend", func(id string) error {
			_, err := s.Amend(ctx, id, 0, broker.Amendment{Audit: []broker.AuditEntry{entry}})
			return err
		}},
		{"none", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
			if _, _, err := s.Create(ctx, q, nil); err != nil {
				t.Fatal(err)
			}
			if tc.audit != nil {
				if err := tc.audit(q.ID); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusDeclined, ResolvedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			tag := fmt.Sprintf("%s{s%d}:", cfg.KeyPrefix, crc32.ChecksumIEEE([]byte(q.ID))%16)
			audit, err := s.Client().PTTL(ctx, tag+"au:"+q.ID).Result()
			if err != nil {
				t.Fatal(err)
			}
			record, err := s.Client().PTTL(ctx, tag+"q:"+q.ID).Result()
			if err != nil {
				t.Fatal(err)
			}
			// The trail's time to live, set as it opens, covers the
			// question's lifetime too (8 days at most).
			if audit < keep || audit > keep+8*24*time.Hour || record > 2*cfg.Retention {
				t.Fatalf("after the answer the audit trail expires in %v and the record in %v; want the trail in %v, plus up to 8 days", audit, record, keep)
			}
		})
	}
}

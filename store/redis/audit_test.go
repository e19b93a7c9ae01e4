package redis_test

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// kindsOf names the entries of a trail, checking its chain.
func kindsOf(t *testing.T, log []broker.AuditEntry, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	if ok, bad, why := broker.VerifyAudit(log); !ok {
		t.Fatalf("chain broken at %d: %s\n%+v", bad, why, log)
	}
	kinds := make([]string, len(log))
	for i, e := range log {
		kinds[i] = e.Kind
	}
	return strings.Join(kinds, ",")
}

// TestAuditAcrossInstances appends to one trail from two stores on one
// Redis, each knowing only the trail's end it saw itself: every append
// lands after the one before, and the resolution names the vote the other
// store recorded.
func TestAuditAcrossInstances(t *testing.T) {
	cfg := redistest.Shared(t)
	a, b := open(t, cfg), open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	q.Policy = broker.Policy{Quorum: 2}
	if _, _, err := a.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "slack", Chat: "C1", MessageID: "1.2", PostedAt: now}); err != nil {
		t.Fatalf("AddMessage on the other store: %v", err)
	}
	if err := a.AddAudit(ctx, q.ID, broker.AuditEntry{At: now, Kind: broker.AuditRefused, Reason: "not_responder"}); err != nil {
		t.Fatalf("AddAudit: %v", err)
	}
	ana := broker.Responder{Channel: "slack", User: "U1"}
	st := broker.PolicyState{Votes: []broker.Vote{{By: ana, Choice: "SQLite", At: now}, {By: broker.Responder{Channel: "slack", User: "U2"}, Choice: "SQLite", At: now}}}
	if _, err := b.Amend(ctx, q.ID, 0, broker.Amendment{State: st, Audit: []broker.AuditEntry{{At: now, Kind: broker.AuditVote, By: &ana, Choice: "SQLite"}}}); err != nil {
		t.Fatalf("Amend on the other store: %v", err)
	}
	rev := int64(1)
	if _, err := a.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusAnswered, AnsweredBy: &ana, ResolvedAt: now.Add(time.Second), IfRev: &rev,
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	log, err := b.Audit(ctx, q.ID)
	if got := kindsOf(t, log, err); got != "asked,posted,refused,vote,resolved" {
		t.Fatalf("audit = %s", got)
	}
	if res := log[4]; len(res.Voters) != 2 || res.Choice != "SQLite" {
		t.Fatalf("resolution entry = %+v, want both voters of SQLite", res)
	}
}

// TestAuditCreateRefusedLeavesNoTrail: a Create the cap refuses, or that
// finds a trail kept under its id, leaves the trails as they were.
func TestAuditCreateRefusedLeavesNoTrail(t *testing.T) {
	cfg := redistest.Shared(t)
	s := open(t, cfg)
	ctx := context.Background()
	now := time.Now()
	for _, idem := range []bool{false, true} {
		t.Run(fmt.Sprint("tool call id ", idem), func(t *testing.T) {
			first := brokertest.NewQuestion(broker.NewID(), "capped", now)
			if idem {
				first.ToolCallID = "call-" + first.ID
			}
			if _, _, err := s.CreateCapped(ctx, first, nil, 1); err != nil {
				t.Fatal(err)
			}
			second := brokertest.NewQuestion(broker.NewID(), "capped", now)
			if idem {
				second.ToolCallID = "call-" + second.ID
			}
			_, _, err := s.CreateCapped(ctx, second, nil, 1)
			var le *broker.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("second Create: %v, want the cap", err)
			}
			if _, err := s.Audit(ctx, second.ID); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("Audit of the refused question: %v, want ErrNotFound", err)
			}
			tag := fmt.Sprintf("%s{s%d}:", cfg.KeyPrefix, crc32.ChecksumIEEE([]byte(second.ID))%16)
			if n, _ := s.Client().Exists(ctx, tag+"au:"+second.ID).Result(); n != 0 {
				t.Fatalf("the refused question left a trail")
			}
			if _, err := s.Resolve(ctx, first.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Purge(ctx, now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			again := brokertest.NewQuestion(first.ID, "capped", now)
			if idem {
				again.ToolCallID = "another-call-" + first.ID
			}
			if _, _, err := s.CreateCapped(ctx, again, nil, 1); !errors.Is(err, broker.ErrIDTaken) {
				t.Fatalf("Create with the id of a purged question: %v, want ErrIDTaken", err)
			}
			log, err := s.Audit(ctx, first.ID)
			if got := kindsOf(t, log, err); got != "asked,resolved" {
				t.Fatalf("the kept trail after the refused Create = %s", got)
			}
		})
	}
}

// TestAuditTrailFromBefore reads a trail written before the chain, as an
// older version left it beside a record without its length: the entries
// read numbered by their place, new ones follow them, and the check names
// the first as unsealed.
func TestAuditTrailFromBefore(t *testing.T) {
	cfg := redistest.Shared(t)
	s := open(t, cfg)
	ctx := context.Background()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("%s{s%d}:", cfg.KeyPrefix, crc32.ChecksumIEEE([]byte(q.ID))%16)
	c := s.Client()
	if err := c.Del(ctx, tag+"au:"+q.ID).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HDel(ctx, tag+"q:"+q.ID, "an").Err(); err != nil {
		t.Fatal(err)
	}
	old := `{"at":"2026-11-29T14:00:00Z","kind":"vote","by":{"channel":"slack","user":"U1"},"choice":"SQLite"}`
	if err := c.RPush(ctx, tag+"au:"+q.ID, old, old).Err(); err != nil {
		t.Fatal(err)
	}
	other := open(t, cfg) // knows nothing of the trail
	if err := other.AddAudit(ctx, q.ID, broker.AuditEntry{At: now, Kind: broker.AuditRefused}); err != nil {
		t.Fatal(err)
	}
	log, err := s.Audit(ctx, q.ID)
	if err != nil || len(log) != 3 || log[0].Seq != 1 || log[1].Seq != 2 || log[2].Seq != 3 || log[2].Prev != "" || log[0].Question != q.ID {
		t.Fatalf("audit = %+v, %v; want the two entries from before, then seq 3", log, err)
	}
	if ok, bad, why := broker.VerifyAudit(log); ok || bad != 1 || !strings.Contains(why, "recorded before the audit chain") {
		t.Fatalf("VerifyAudit = %v, %d, %q; want entry 1 unsealed", ok, bad, why)
	}
}

package redis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestInboxBuiltOnOpen: a store written before the inbox sets existed
// (here: the sets and the shards' markers deleted) is indexed when a
// bridge opens it: the open questions by creation, the resolved ones by
// resolution.
func TestInboxBuiltOnOpen(t *testing.T) {
	ctx := context.Background()
	cfg := redistest.Shared(t)
	s := open(t, cfg)
	now := time.Now().UTC().Truncate(time.Millisecond)
	var ids []string
	for i := range 40 {
		q := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(time.Duration(i)*time.Millisecond))
		if _, _, err := s.Create(ctx, q, []broker.Target{{Channel: "web"}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	if _, err := s.Resolve(ctx, ids[0], broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	c := s.Client()
	var gone int
	for _, pattern := range []string{"*:io:*", "*:ih:*", "*:ixv"} {
		keys, err := c.Keys(ctx, cfg.KeyPrefix+pattern).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) > 0 {
			gone += int(c.Del(ctx, keys...).Val())
		}
	}
	if gone < 16 {
		t.Fatalf("deleted %d inbox keys and markers, want at least the 16 markers", gone)
	}
	if p, err := s.InboxPage(ctx, broker.InboxQuery{Channel: "web", Limit: 100}); err != nil || len(p.Questions) != 0 {
		t.Fatalf("inbox without its sets = %d questions, %v; want none", len(p.Questions), err)
	}

	s2 := open(t, cfg)
	p, err := s2.InboxPage(ctx, broker.InboxQuery{Channel: "web", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := len(ids) - 1; i >= 1; i-- {
		want = append(want, ids[i])
	}
	if got := questionIDs(p.Questions); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("open questions after Open indexed the store = %v\nwant %v", got, want)
	}
	r, err := s2.InboxPage(ctx, broker.InboxQuery{Channel: "web", Resolved: true, Limit: 100})
	if err != nil || fmt.Sprint(questionIDs(r.Questions)) != fmt.Sprint([]string{ids[0]}) {
		t.Fatalf("resolved questions after Open indexed the store = %v, %v; want [%s]", questionIDs(r.Questions), err, ids[0])
	}
}

func questionIDs(qs []*broker.Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.ID
	}
	return out
}

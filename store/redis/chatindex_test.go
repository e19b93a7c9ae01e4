package redis_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestCopyWithoutChatHasNoChatIndex: a copy that names no chat (the web
// inbox, the terminal) writes no chat index, on Create and on
// AddMessage, while one that names a chat still does; the question is
// still listed by channel and by chat, its copies and lookups are as
// before, the agent's pending cap still counts it, and Purge removes it.
// Through both create scripts, and the steps taken on Cluster.
func TestCopyWithoutChatHasNoChatIndex(t *testing.T) {
	for _, c := range []struct{ name, call string }{{"plain", ""}, {"idempotent", "call"}, {"cluster", ""}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := redistest.Shared(t)
			s := open(t, cfg)
			if c.name == "cluster" {
				s.ActAsCluster()
			}
			ctx := context.Background()
			rc := s.Client()
			web := broker.Target{Channel: "web"}
			term := broker.Target{Channel: "cli", Chat: "ops"}
			tg := broker.Target{Channel: "telegram", Chat: "-100"}
			n := 0
			ask := func(max int) (string, error) {
				n++
				q := brokertest.NewQuestion(broker.NewID(), "chat-agent", time.Now())
				if c.call != "" {
					q.ToolCallID = c.call + string(rune('a'+n))
				}
				q.Targets = []broker.Target{web, tg, term}
				_, _, err := s.CreateCapped(ctx, q, []broker.Target{web, term}, max)
				return q.ID, err
			}
			id, err := ask(2)
			if err != nil {
				t.Fatal(err)
			}
			_, _, webIdx := s.IndexKeyNames(id, "", "", "web", "")
			_, _, termIdx := s.IndexKeyNames(id, "", "", "cli", "ops")
			_, _, tgIdx := s.IndexKeyNames(id, "", "", "telegram", "-100")
			if k, err := rc.Exists(ctx, webIdx).Result(); err != nil || k != 0 {
				t.Fatalf("EXISTS %q = %d, %v; want no index for a copy without a chat", webIdx, k, err)
			}
			if _, err := rc.ZScore(ctx, termIdx, id).Result(); err != nil {
				t.Fatalf("ZSCORE %q %s: %v; the copy in chat ops is not indexed", termIdx, id, err)
			}
			if err := s.AddMessage(ctx, id, broker.MessageRef{Channel: "telegram", Chat: "-100", MessageID: "7", PostedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			// A second web copy, as a channel that posts later adds it.
			if err := s.AddMessage(ctx, id, broker.MessageRef{Channel: "web", MessageID: "w2", PostedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if k, err := rc.Exists(ctx, webIdx).Result(); err != nil || k != 0 {
				t.Fatalf("after AddMessage: EXISTS %q = %d, %v; want none", webIdx, k, err)
			}
			if _, err := rc.ZScore(ctx, tgIdx, id).Result(); err != nil {
				t.Fatalf("ZSCORE %q %s: %v; AddMessage did not index the telegram chat", tgIdx, id, err)
			}
			ms, err := s.Messages(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.Channel+"/"+m.Chat+"/"+m.MessageID)
			}
			want := []string{"web//" + id, "cli/ops/" + id, "telegram/-100/7", "web//w2"}
			if !slices.Equal(got, want) {
				t.Fatalf("Messages = %q, want %q", got, want)
			}
			for _, m := range []struct{ channel, chat, msg string }{{"web", "", id}, {"web", "", "w2"}, {"cli", "ops", id}, {"telegram", "-100", "7"}} {
				if found, err := s.LookupMessage(ctx, m.channel, m.chat, m.msg); err != nil || found != id {
					t.Fatalf("LookupMessage(%s, %q, %s) = %q, %v; want %s", m.channel, m.chat, m.msg, found, err, id)
				}
			}
			listed := func(f broker.Filter) bool {
				t.Helper()
				qs, err := s.List(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				return slices.ContainsFunc(qs, func(q *broker.Question) bool { return q.ID == id })
			}
			for _, f := range []broker.Filter{
				{Channel: "web"}, {Channel: "web", Status: broker.StatusPending},
				{Channel: "cli"}, {Channel: "cli", Chat: "ops"}, {Channel: "telegram", Chat: "-100"},
			} {
				if !listed(f) {
					t.Fatalf("List(%+v) misses the question", f)
				}
			}
			if listed(broker.Filter{Channel: "slack"}) || listed(broker.Filter{Channel: "cli", Chat: "dev"}) {
				t.Fatal("List by a channel or chat the question was not posted to lists it")
			}

			// The pending cap still counts questions with such copies.
			if _, err := ask(2); err != nil {
				t.Fatal(err)
			}
			if _, err := ask(2); !errors.Is(err, broker.ErrLimit) {
				t.Fatalf("third question with a cap of 2: %v, want ErrLimit", err)
			}

			if _, err := s.Resolve(ctx, id, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Purge(ctx, time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, id); !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("Get after Purge: %v, want ErrNotFound", err)
			}
			for _, k := range []string{termIdx, tgIdx} {
				if _, err := rc.ZScore(ctx, k, id).Result(); err == nil {
					t.Fatalf("%q still holds %s after Purge", k, id)
				}
			}
			if listed(broker.Filter{Channel: "web"}) {
				t.Fatal("List(web) lists a purged question")
			}
		})
	}
}

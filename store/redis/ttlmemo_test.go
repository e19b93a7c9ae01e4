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

// TestIndexKeysRenewedOncePerWindow: the first Create of an agent,
// session and in-process chat gives each index key the index TTL; the
// next ones within the window leave the TTL alone (a marker TTL set in
// between stays); once the window has passed a Create renews them again;
// a Create refused because its id is taken renews nothing and leaves the
// keys due. AddMessage treats a platform chat's index the same way, and
// one to an unknown question marks nothing. Both
// with and without a tool call id (the two create scripts).
func TestIndexKeysRenewedOncePerWindow(t *testing.T) {
	for _, call := range []string{"", "call"} {
		t.Run("tool_call_id="+call, func(t *testing.T) {
			cfg := redistest.Shared(t)
			cfg.Retention = 24 * time.Hour
			s := open(t, cfg)
			ctx := context.Background()
			rc := s.Client()
			// An in-process copy that names a chat (one without has no
			// chat index: TestCopyWithoutChatHasNoChatIndex).
			term := broker.Target{Channel: "cli", Chat: "ops"}
			n := 0
			ask := func(id string) error {
				n++
				q := brokertest.NewQuestion(id, "memo-agent", time.Now())
				q.SessionID = "memo-session"
				if call != "" {
					q.ToolCallID = call + string(rune('a'+n))
				}
				q.Targets = []broker.Target{term}
				_, _, err := s.Create(ctx, q, []broker.Target{term})
				return err
			}
			first := broker.NewID()
			if err := ask(first); err != nil {
				t.Fatal(err)
			}
			agent, session, chat := s.IndexKeyNames(first, "memo-agent", "memo-session", "cli", "ops")
			keys := []string{agent, session, chat}
			ttl := func(k string) time.Duration {
				t.Helper()
				d, err := rc.PTTL(ctx, k).Result()
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			renewed := func(when string) {
				t.Helper()
				for _, k := range keys {
					if d := ttl(k); d < s.IndexTTL()-time.Minute || d > s.IndexTTL() {
						t.Fatalf("%s: PTTL(%q) = %v, want the index TTL %v", when, k, d, s.IndexTTL())
					}
				}
			}
			// Index keys are per shard: the questions that follow are
			// in first's.
			sameShard := func() string { return redisstore.IDInShardOf(first) }
			const marker = 10 * time.Minute
			mark := func() {
				t.Helper()
				for _, k := range keys {
					if err := rc.PExpire(ctx, k, marker).Err(); err != nil {
						t.Fatal(err)
					}
				}
			}
			untouched := func(when string) {
				t.Helper()
				for _, k := range keys {
					if d := ttl(k); d <= 0 || d > marker {
						t.Fatalf("%s: PTTL(%q) = %v, want the marker's %v or less: the key was renewed again", when, k, d, marker)
					}
				}
			}
			renewed("first Create")
			// The copy at the in-process target has no lookup key; its
			// lookup reads the record.
			if n, err := rc.Exists(ctx, cfg.KeyPrefix+"l:cli\x00ops\x00"+first).Result(); err != nil || n != 0 {
				t.Fatalf("lookup key of the in-process copy: EXISTS = %d, %v; want none", n, err)
			}
			if id, err := s.LookupMessage(ctx, "cli", "ops", first); err != nil || id != first {
				t.Fatalf("LookupMessage(cli, ops, %s) = %q, %v", first, id, err)
			}

			mark()
			if err := ask(sameShard()); err != nil {
				t.Fatal(err)
			}
			untouched("second Create within the window")

			s.ForgetRenewals()
			if err := ask(first); !errors.Is(err, broker.ErrIDTaken) {
				t.Fatalf("Create with a taken id: %v, want ErrIDTaken", err)
			}
			untouched("a refused Create")
			for _, k := range keys {
				if !s.RenewalDue(k) {
					t.Fatalf("after a refused Create, %q is marked renewed", k)
				}
			}

			if err := ask(sameShard()); err != nil {
				t.Fatal(err)
			}
			renewed("a Create after the window")

			// A platform chat's index, through AddMessage.
			_, _, tg := s.IndexKeyNames(first, "", "", "telegram", "-100")
			keys = []string{tg}
			add := func(msg string) {
				t.Helper()
				if err := s.AddMessage(ctx, first, broker.MessageRef{Channel: "telegram", Chat: "-100", MessageID: msg, PostedAt: time.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			add("1")
			renewed("first AddMessage")
			mark()
			add("2")
			untouched("AddMessage within the window")
			s.ForgetRenewals()
			add("3")
			renewed("AddMessage after the window")
			// An AddMessage to a question that does not exist writes
			// nothing, and so marks nothing.
			s.ForgetRenewals()
			mark()
			err := s.AddMessage(ctx, sameShard(), broker.MessageRef{Channel: "telegram", Chat: "-100", MessageID: "4", PostedAt: time.Now()})
			if !errors.Is(err, broker.ErrNotFound) {
				t.Fatalf("AddMessage to an unknown question: %v, want ErrNotFound", err)
			}
			untouched("AddMessage to an unknown question")
			if !s.RenewalDue(tg) {
				t.Fatalf("after an AddMessage that wrote nothing, %q is marked renewed", tg)
			}
			if id, err := s.LookupMessage(ctx, "telegram", "-100", "3"); err != nil || id != first {
				t.Fatalf("LookupMessage(telegram, 3) = %q, %v", id, err)
			}
		})
	}
}

package slack

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/internal/testutil"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// replayStores open two handles on one fresh store, as two bridge
// instances have: two Opens of one SQLite file, or of one Redis with one
// key prefix.
var replayStores = []struct {
	name string
	open func(t *testing.T) (a, b broker.Store)
}{
	{"sqlite", func(t *testing.T) (broker.Store, broker.Store) {
		path := filepath.Join(t.TempDir(), "askbridge.db")
		open := func() broker.Store {
			s, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatalf("open sqlite: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
		return open(), open()
	}},
	{"redis", func(t *testing.T) (broker.Store, broker.Store) {
		cfg := redistest.Shared(t)
		open := func() broker.Store {
			s, err := redisstore.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatalf("open redis: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		}
		return open(), open()
	}},
}

// instance is one bridge's Slack channel in http mode, serving its
// handler, over its own handle on the shared store.
type instance struct {
	ch   *Channel
	srv  *httptest.Server
	logs *testutil.Buffer
}

func newInstance(t *testing.T, fake *slackfake.Server, h broker.InboundHandler, replay broker.ReplayGuard) instance {
	t.Helper()
	t.Setenv("TEST_SLACK_BOT", slackfake.BotToken)
	t.Setenv("TEST_SLACK_SECRET", testSecret)
	logs := &testutil.Buffer{}
	ch, err := New(Config{BotTokenEnv: "TEST_SLACK_BOT", SigningSecretEnv: "TEST_SLACK_SECRET", Mode: ModeHTTP, APIURL: fake.URL},
		h, channels.Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Replay: replay})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(srv.Close)
	return instance{ch: ch, srv: srv, logs: logs}
}

// TestHTTPReplayAcrossInstances: a signed slash command, interaction or
// event sent again within its signature's window, to the instance that
// took it or to another one sharing the store, is answered 200 and
// dropped, so the broker records it once; a different request is taken.
func TestHTTPReplayAcrossInstances(t *testing.T) {
	for _, st := range replayStores {
		t.Run(st.name, func(t *testing.T) {
			fake := slackfake.New(t)
			fake.AddUser(ana)
			fake.AddUser(bob)
			rec := &brokertest.Inbox{}
			sa, sb := st.open(t)
			a, b := newInstance(t, fake, rec, sa), newInstance(t, fake, rec, sb)
			m := postOne(t, &testEnv{fake: fake, ch: a.ch}, sampleQuestion(), general)
			button, _ := m.Button("SQLite")

			command := func(text string) []byte {
				return []byte(slackfake.SlashCommand(bob, general, "general", "/answer", text).Encode())
			}
			click := func() []byte {
				return []byte(url.Values{"payload": {string(mustJSON(t, slackfake.ClickButton(m, ana, button)))}}.Encode())
			}
			event := mustJSON(t, slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "1", ThreadTS: m.TS, EventID: "Ev0REPLAY1"}))

			type send struct {
				to     instance
				resign bool // signed anew, as Slack signs a redelivered event
			}
			tests := []struct {
				name, contentType string
				body              []byte
				sends             []send
				want              string // the inbound text, recorded once
			}{
				{"slash command replayed to the other instance", formType, command("k7m2qx 1"), []send{{to: a}, {to: b}}, "/answer k7m2qx 1"},
				{"slash command replayed to the same instance", formType, command("k7m2qx 2"), []send{{to: b}, {to: b}, {to: a}}, "/answer k7m2qx 2"},
				{"interaction replayed to the other instance", formType, click(), []send{{to: a}, {to: b}}, "/answer k7m2qx 2"},
				{"interaction replayed to the same instance", formType, click(), []send{{to: b}, {to: b}}, "/answer k7m2qx 2"},
				{"event redelivered to the other instance", "application/json", event, []send{{to: a}, {to: b, resign: true}, {to: a}}, "1"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					rec.Take()
					h := slackfake.Sign(testSecret, time.Now(), tt.body)
					for i, s := range tt.sends {
						if s.resign {
							h = slackfake.Sign(testSecret, time.Now().Add(time.Second), tt.body)
						}
						code, resp := deliver(t, s.to.srv, PathCommands, tt.contentType, tt.body, h)
						if code != http.StatusOK {
							t.Fatalf("copy %d: %d %q, want 200 (a replay is answered as taken)", i+1, code, resp)
						}
					}
					a.ch.drain()
					b.ch.drain()
					got := rec.Take()
					if len(got) != 1 || got[0].Text != tt.want {
						t.Fatalf("the broker got %d inbounds (%+v), want one %q", len(got), got, tt.want)
					}
				})
			}

			t.Run("a different request is taken", func(t *testing.T) {
				rec.Take()
				// The same command typed again is a new request: Slack
				// gives it a trigger_id of its own.
				for i, to := range []instance{a, b} {
					body := command("k7m2qx 1")
					if code, resp := deliver(t, to.srv, PathCommands, formType, body, slackfake.Sign(testSecret, time.Now(), body)); code != http.StatusOK {
						t.Fatalf("command %d: %d %q", i+1, code, resp)
					}
				}
				a.ch.drain()
				b.ch.drain()
				if got := rec.Take(); len(got) != 2 {
					t.Fatalf("the broker got %d inbounds (%+v), want both commands", len(got), got)
				}
			})
			if !strings.Contains(a.logs.String()+b.logs.String(), "slack request already taken; dropped") {
				t.Errorf("no replay was logged:\n%s\n%s", a.logs, b.logs)
			}
		})
	}
}

// A request that cannot be checked against replays (the store is down)
// is refused with 503, which Slack retries for an event, and not
// processed.
func TestHTTPReplayCheckFailing(t *testing.T) {
	fake := slackfake.New(t)
	fake.AddUser(bob)
	rec := &brokertest.Inbox{}
	st, _ := replayStores[0].open(t)
	in := newInstance(t, fake, rec, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	body := []byte(slackfake.SlashCommand(bob, general, "general", "/answer", "k7m2qx 1").Encode())
	code, resp := deliver(t, in.srv, PathCommands, formType, body, slackfake.Sign(testSecret, time.Now(), body))
	if code != http.StatusServiceUnavailable || !strings.Contains(resp, "could not be checked against replays") {
		t.Fatalf("%d %q, want 503 saying the request could not be checked", code, resp)
	}
	in.ch.drain()
	if got := rec.All(); len(got) != 0 {
		t.Fatalf("an unchecked request reached the broker: %+v", got)
	}
}

// The guard of a channel without the store's keeps each key for its ttl
// and, full, makes room by forgetting the expired keys, then the one that
// expires first.
func TestMemoryGuard(t *testing.T) {
	ctx := context.Background()
	g := newMemoryGuard(2)
	seen := func(key string, ttl time.Duration) bool {
		t.Helper()
		first, err := g.FirstSeen(ctx, key, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return first
	}
	if !seen("a", time.Hour) || seen("a", time.Hour) {
		t.Fatal("a key is not taken once")
	}
	if !seen("b", 20*time.Millisecond) {
		t.Fatal("a second key is not new")
	}
	if !seen("c", time.Hour) || len(g.keys) != 2 {
		t.Fatalf("full: %v, want the one expiring first made room", g.keys)
	}
	if seen("a", time.Hour) || seen("c", time.Hour) {
		t.Fatal("a full guard forgot a key that expires later")
	}
	if _, err := g.FirstSeen(ctx, "", time.Hour); err == nil {
		t.Fatal("an empty key is accepted")
	}
}

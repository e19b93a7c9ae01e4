package slack

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/internal/testutil"
)

const (
	testSecret = "fake-signing-secret"
	general    = "C0GENERAL"
	random     = "C0RANDOM1"
)

var (
	ana = slackfake.User{ID: "U0ANA0001", Name: "ana"}
	bob = slackfake.User{ID: "U0BOB0001", Name: "bob"}
)

type testEnv struct {
	fake *slackfake.Server
	ch   *Channel
	logs *testutil.Buffer
}

// newEnv builds a channel in mode against a new fake Slack.
func newEnv(t *testing.T, mode string, h broker.InboundHandler) *testEnv {
	t.Helper()
	fake := slackfake.New(t)
	fake.AddUser(ana)
	fake.AddUser(bob)
	t.Setenv("TEST_SLACK_BOT", slackfake.BotToken)
	t.Setenv("TEST_SLACK_APP", slackfake.AppToken)
	t.Setenv("TEST_SLACK_SECRET", testSecret)
	logs := &testutil.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := New(Config{
		BotTokenEnv: "TEST_SLACK_BOT", AppTokenEnv: "TEST_SLACK_APP", SigningSecretEnv: "TEST_SLACK_SECRET",
		Mode: mode, APIURL: fake.URL,
	}, h, channels.Options{Logger: log})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &testEnv{fake: fake, ch: ch, logs: logs}
}

// run starts the channel's Run until the test ends; in socket mode it
// waits for the connection.
func (e *testEnv) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.ch.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	if e.ch.cfg.Mode == ModeSocket {
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		defer wcancel()
		if err := e.fake.WaitConnected(wctx); err != nil {
			t.Fatal(err)
		}
	}
}

// send pushes an envelope and waits for its ack.
func (e *testEnv) send(t *testing.T, typ string, payload any) {
	t.Helper()
	id, err := e.fake.Send(typ, payload)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := e.fake.WaitAck(ctx, id); err != nil {
		t.Fatalf("envelope %s (%s) not acked within 3 s: %v", id, typ, err)
	}
}

// waitFake polls the fake until cond holds.
func waitFake(t *testing.T, f *slackfake.Server, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := f.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// waitEphemeral waits for an ephemeral message to user (anyone when "")
// containing want.
func waitEphemeral(t *testing.T, f *slackfake.Server, user, want string) slackfake.Ephemeral {
	t.Helper()
	var found slackfake.Ephemeral
	waitFake(t, f, "ephemeral to "+user+" saying "+want, func() bool {
		for _, e := range f.Ephemerals() {
			if (user == "" || e.User == user) && strings.Contains(e.Text, want) {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func boolp(b bool) *bool { return &b }

// sampleNow is when sampleQuestion was asked.
var sampleNow = time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)

// sampleQuestion is a pending question as the broker would pass it.
func sampleQuestion() *broker.Question {
	now := sampleNow
	return &broker.Question{
		ID: "k7m2qx", Agent: "agent", Route: "default", Status: broker.StatusPending,
		Timeout: 30 * time.Minute, CreatedAt: now, ExpiresAt: now.Add(30 * time.Minute),
		Targets: []broker.Target{{Channel: "slack", Chat: general}},
		Prompts: []broker.Prompt{{
			Question: "Which database?", Header: "DB",
			Options: []broker.Option{
				{Label: "Postgres (Recommended)", Description: "reliable"},
				{Label: "SQLite", Description: "embedded"},
			},
			Default: broker.StringList{"SQLite"},
		}},
	}
}

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// testCard is q's card as the channel builds it, read at sampleNow in
// UTC.
func testCard(q *broker.Question) broker.Card {
	return broker.BuildCard(q, broker.Viewer{Now: sampleNow, Loc: time.UTC, Channel: Name})
}

// resolved returns q answered by ana.
func resolved(q *broker.Question) *broker.Question {
	r := q.Clone()
	r.Status = broker.StatusAnswered
	r.ResolvedAt = r.CreatedAt.Add(2 * time.Minute)
	r.AnsweredBy = &broker.Responder{Channel: "slack", User: ana.ID, Name: ana.Name}
	r.Answers = map[string]broker.Answer{r.Prompts[0].Question: {Selected: []string{"SQLite"}}}
	return r
}

func errorsIsPermanent(err error) bool { return errors.Is(err, broker.ErrPermanent) }

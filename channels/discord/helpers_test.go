package discord

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
	"github.com/askbridge/askbridge/internal/testutil"
)

// waitTimeout bounds every wait in these tests; nothing here should take
// more than a fraction of it.
const waitTimeout = 10 * time.Second

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

var envCounter atomic.Int64

// env is a channel wired to a fake Discord with one guild channel.
type env struct {
	fake  *discordfake.Server
	ch    *Channel
	guild string
	chat  string
	logs  *testutil.Buffer
}

// newEnv builds a channel against a fresh fake; mutate adjusts the config.
func newEnv(t *testing.T, h broker.InboundHandler, mutate func(*Config)) *env {
	t.Helper()
	fake := discordfake.New()
	t.Cleanup(fake.Close)
	e := &env{fake: fake, guild: fake.NewGuild(), logs: &testutil.Buffer{}}
	e.chat = fake.AddChannel(e.guild)
	name := fmt.Sprintf("ASKBRIDGE_TEST_DISCORD_TOKEN_%d", envCounter.Add(1))
	t.Setenv(name, fake.Token)
	cfg := Config{TokenEnv: name, APIURL: fake.URL(), ApplicationID: fake.AppID, GuildID: e.guild}
	if mutate != nil {
		mutate(&cfg)
	}
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ch, err := New(cfg, h, channels.Options{Logger: log})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.ch = ch
	t.Cleanup(func() {
		if strings.Contains(e.logs.String(), fake.Token) {
			t.Errorf("the bot token appears in the logs:\n%s", e.logs.String())
		}
	})
	return e
}

// run connects the channel to the fake gateway until the test ends.
func (e *env) run(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.ch.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("Run did not return after its context ended")
		}
	})
	if err := e.fake.WaitConnected(testCtx(t)); err != nil {
		t.Fatalf("the channel never connected to the gateway: %v", err)
	}
	if err := discordfake.Until(testCtx(t), func() bool { return e.fake.Commands(e.ch.cfg.GuildID) != nil }); err != nil {
		t.Fatalf("the application commands were never registered: %v", err)
	}
}

// fixed is the clock of the hand-made questions.
var fixed = time.Date(2026, 3, 4, 14, 0, 0, 0, time.UTC)

// question builds a pending question by hand.
func question(id string, prompts ...broker.Prompt) *broker.Question {
	return &broker.Question{
		ID: id, Agent: "agent", Prompts: prompts, Route: "default", Timeout: 30 * time.Minute,
		Status: broker.StatusPending, CreatedAt: fixed, ExpiresAt: fixed.Add(30 * time.Minute),
	}
}

func dbPrompt() broker.Prompt {
	return broker.Prompt{
		Question: "Which database should we use?", Header: "Database",
		Options: []broker.Option{
			{Label: "Postgres (Recommended)", Description: "Reliable and relational"},
			{Label: "SQLite", Description: "Embedded, zero set-up"},
			{Label: "MySQL"},
		},
		Default: broker.StringList{"SQLite"},
	}
}

// post sends q to the env's chat and returns the message as the fake has it.
func (e *env) post(t *testing.T, q *broker.Question) (*discordfake.Message, broker.MessageRef) {
	t.Helper()
	ref, err := e.ch.Post(testCtx(t), q, e.chat)
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	m := e.fake.Message(ref.MessageID)
	if m == nil {
		t.Fatalf("the fake has no message %s", ref.MessageID)
	}
	return m, ref
}

// at is how the hand-made questions are read: at fixed, in UTC, as the
// Discord copy.
var at = broker.Viewer{Now: fixed, Loc: time.UTC, Channel: Name}

// data is the custom id of a step: what a button, a menu or a form of
// prompt r carries.
func data(kind broker.StepKind, r broker.PromptRef, options ...int) string {
	return broker.EncodeStep(broker.Step{Kind: kind, Ref: r, Options: options})
}

package telegram

import (
	"context"
	"errors"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// floodNoHint is a 429 that does not say how long to wait.
var floodNoHint = telegramfake.Failure{Code: 429, Description: "Too Many Requests"}

// TestRateLimitWithoutRetryAfterBacksOff: on a call made directly (a
// reply), a 429 that names no wait is waited out with growing pauses
// (from 1 s, with jitter), then the call goes through.
func TestRateLimitWithoutRetryAfterBacksOff(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	for range maxRetries {
		e.fake.FailNext("sendMessage", floodNoHint)
	}
	if _, err := e.ch.send(e.ctx, "reply", tgbotapi.NewMessage(team.ID, "Recorded: SQLite")); err != nil {
		t.Fatalf("reply after 429s: %v", err)
	}
	got := e.sleep.recorded()
	steps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(got) != len(steps) {
		t.Fatalf("waited %v, want %d pauses", got, len(steps))
	}
	for i, step := range steps {
		if got[i] < step/2 || got[i] >= step {
			t.Errorf("pause %d is %s, want within [%s, %s)", i+1, got[i], step/2, step)
		}
	}
	if n := len(e.fake.Calls("sendMessage")); n != maxRetries+1 {
		t.Errorf("%d sendMessage calls, want %d", n, maxRetries+1)
	}
}

// TestRateLimitPauseEndsWithTheContext: on a call made directly, a
// context that ends during the pause after a 429 ends the call with the context's error, without
// another try.
func TestRateLimitPauseEndsWithTheContext(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	before := len(e.fake.Calls("sendMessage"))

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	e.ch.sleep = func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }
	for range maxRetries {
		e.fake.FailNext("sendMessage", floodNoHint)
	}
	_, err := e.ch.send(ctx, "reply", tgbotapi.NewMessage(team.ID, "Recorded: SQLite"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("reply with the context ended in the pause: %v, want context.Canceled", err)
	}
	if n := len(e.fake.Calls("sendMessage")) - before; n != 1 {
		t.Errorf("%d sendMessage calls after the context ended, want 1", n)
	}
}

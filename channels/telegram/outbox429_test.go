package telegram

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// TestOutboxCallsReturnRetryAfter: the calls the outbox makes (post, edit,
// remind) are made once; a 429 comes back with its retry_after for the
// outbox to pace, and the channel does not wait or send again itself.
func TestOutboxCallsReturnRetryAfter(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(dbRequest(), team)
	ref := broker.MessageRef{Channel: Name, Chat: chatID(team), MessageID: strconv.Itoa(m.ID)}
	tests := []struct {
		name, method string
		call         func() error
	}{
		{"post", "sendMessage", func() error { _, err := e.ch.Post(e.ctx, q, chatID(team)); return err }},
		{"update", "editMessageText", func() error { return e.ch.Update(e.ctx, q, ref) }},
		{"remind", "sendMessage", func() error { return e.ch.Remind(e.ctx, q, ref) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, msgs := len(e.fake.Calls(tt.method)), len(e.fake.BotMessages(team.ID))
			e.fake.FailNext(tt.method, telegramfake.TooManyRequests(3))
			err := tt.call()
			if d, ok := broker.RetryAfterOf(err); !ok || d != 3*time.Second || !errors.Is(err, broker.ErrRateLimited) {
				t.Errorf("err = %v (retry after %s, %v), want rate limited for 3s", err, d, ok)
			}
			if errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), "Too Many Requests") || strings.Contains(err.Error(), testToken) {
				t.Errorf("err = %v, want a transient 429 without the token", err)
			}
			if n := len(e.fake.Calls(tt.method)) - before; n != 1 {
				t.Errorf("%d %s calls, want 1: the outbox sends again, not the channel", n, tt.method)
			}
			if n := len(e.fake.BotMessages(team.ID)) - msgs; n != 0 {
				t.Errorf("%d messages sent, want none", n)
			}
			if waits := e.sleep.recorded(); len(waits) != 0 {
				t.Errorf("the channel waited %v itself", waits)
			}
		})
	}
}

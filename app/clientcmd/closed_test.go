package clientcmd

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// Cancelling a question that has ended says how and when it ended, in
// the words of a person, never the store's ("sqlite: resolve …").
func TestCancelEndedQuestionSaysHowItEnded(t *testing.T) {
	b := sqlitetest.NewBroker(t)
	ctx := context.Background()
	now := time.Now()
	answered := brokertest.NewQuestion(broker.NewID(), api.LocalAgent, now)
	cancelled := brokertest.NewQuestion(broker.NewID(), api.LocalAgent, now)
	for _, q := range []*broker.Question{answered, cancelled} {
		q.Targets = []broker.Target{{Channel: "cli"}}
		if _, _, err := b.Store.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	prompt := answered.Prompts[0].Question
	if _, err := b.Resolve(ctx, answered.ID, broker.Resolution{
		Status:     broker.StatusAnswered,
		Answers:    map[string]broker.Answer{prompt: {Selected: []string{answered.Prompts[0].Options[0].Label}}},
		AnsweredBy: &broker.Responder{Channel: "slack", User: "U1", Name: "ana"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resolve(ctx, cancelled.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "moved on"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	defer srv.Close()
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")

	tests := []struct{ id, says string }{
		{answered.ID, "bridge cancel: question " + answered.ID + " is already answered by ana (slack) at "},
		{cancelled.ID, "bridge cancel: question " + cancelled.ID + " is already cancelled at "},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run([]string{"cancel", tt.id}, strings.NewReader(""), &stdout, &stderr)
		if code != cmdline.ExitFailure || !strings.HasPrefix(stderr.String(), tt.says) {
			t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tt.says)
		}
		if s := stderr.String(); strings.Contains(s, "sqlite") || strings.Contains(s, "resolve") {
			t.Fatalf("stderr shows the store's words: %s", s)
		}
	}
	var stdout, stderr bytes.Buffer
	run([]string{"cancel", cancelled.ID}, strings.NewReader(""), &stdout, &stderr)
	if !strings.HasSuffix(strings.TrimSpace(stderr.String()), ": moved on") {
		t.Fatalf("the reason is not said: %s", stderr.String())
	}
}

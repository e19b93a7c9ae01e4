package clientcmd

import (
	"bytes"
	"context"
	"encoding/json"
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

// hostile is text that would act on a terminal or reorder what it shows.
const hostile = "Deploy \x1b[31mnow\x1b[0m? \u202eevorppa\u202c \u009b2J\x7f"

// rawTerminalBytes lists what must never reach a terminal raw.
var rawTerminalBytes = []string{"\x1b", "\u202e", "\u202c", "\u009b", "\x7f"}

// TestCLIEscapesWhatItPrints checks the CLI's output of questions and
// answers holding control and bidirectional characters, as a store
// written before these were refused may hold: nothing reaches the
// terminal raw, and the table shows a visible escape instead.
func TestCLIEscapesWhatItPrints(t *testing.T) {
	b := sqlitetest.NewBroker(t)
	st := b.Store
	now := time.Now()
	pending := brokertest.NewQuestion(broker.NewID(), api.LocalAgent, now)
	pending.Prompts[0].Question = hostile
	pending.Prompts[0].Options[0].Label = "Yes\x1b[2J\tTab"
	pending.Targets = []broker.Target{{Channel: "cli"}}
	answered := brokertest.NewQuestion(broker.NewID(), api.LocalAgent, now)
	answered.Prompts[0].Question = hostile
	for _, q := range []*broker.Question{pending, answered} {
		if _, _, err := st.Create(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Resolve(context.Background(), answered.ID, broker.Resolution{
		Status:     broker.StatusAnswered,
		Answers:    map[string]broker.Answer{hostile: {Selected: []string{}, CustomText: "ok \x1b]0;title\a \u2066x\u2069"}},
		AnsweredBy: &broker.Responder{Channel: "cli", User: "ana"},
	}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, st))
	defer srv.Close()
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")
	t.Setenv("ASKBRIDGE_RESPONDER_KEY", "")

	tests := []struct {
		name string
		args []string
		want []string // visible escapes the output must show
	}{
		{"list", []string{"list", "--status", "pending"}, []string{`Deploy \x1b[31mnow\x1b[0m? \u202eevorppa\u202c \u009b2J\x7f`, `1=Yes\x1b[2J\tTab`}},
		{"list --json", []string{"list", "--json"}, []string{`\u001b[31m`, `\u202e`, `\u009b`, `\u007f`}},
		{"wait", []string{"wait", answered.ID}, []string{`ok \u001b]0;title\u0007 \u2066x\u2069`}},
		{"answer", []string{"answer", pending.ID, "1"}, []string{`Recorded: Yes\x1b[2J\tTab`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, strings.NewReader(""), &stdout, &stderr); code != cmdline.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			out := stdout.String()
			for _, raw := range rawTerminalBytes {
				if strings.Contains(out, raw) {
					t.Errorf("output holds %q raw:\n%s", raw, out)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
			if strings.HasSuffix(tt.name, "json") || tt.name == "wait" {
				var v any
				if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
					t.Fatalf("escaped output is no longer JSON: %v", err)
				}
				// The text itself is kept: only its spelling changed.
				if !bytes.Contains(mustMarshal(t, v), []byte("\u202eevorppa\u202c \u009b2J\x7f")) {
					t.Fatalf("the JSON lost the text: %s", mustMarshal(t, v))
				}
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

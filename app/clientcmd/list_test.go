package clientcmd

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/cmdline/cmdlinetest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// bridgeWithQuestion serves a bridge holding one pending question whose
// text is long, and points the client commands at it.
func bridgeWithQuestion(t *testing.T, text string) {
	t.Helper()
	b := sqlitetest.NewBroker(t)
	q := brokertest.NewQuestion(broker.NewID(), api.LocalAgent, time.Now())
	q.Prompts[0].Question = text
	q.Targets = []broker.Target{{Channel: "cli"}}
	if _, _, err := b.Store.Create(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(srv.Close)
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")
}

// On a terminal every line of the list fits its width, the question cut
// with "…"; on a pipe the question is whole.
func TestListFitsTheTerminal(t *testing.T) {
	long := "Which of the databases that the team has used before should the new billing service use for its ledger? " + strings.Repeat("Really. ", 10)
	bridgeWithQuestion(t, long)

	for _, cols := range []int{100, 60, 50} {
		pty := cmdlinetest.Open(t, cols)
		var stderr bytes.Buffer
		if code := run([]string{"list"}, strings.NewReader(""), pty.Term, &stderr); code != cmdline.ExitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		out := pty.Output()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], "…") {
			t.Fatalf("%d columns: want a header and one cut row:\n%s", cols, out)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > cols {
				t.Errorf("%d columns: a line of %d: %q", cols, n, l)
			}
		}
	}

	var stdout, stderr bytes.Buffer
	if code := run([]string{"list"}, strings.NewReader(""), &stdout, &stderr); code != cmdline.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), strings.TrimSpace(long)) || strings.Contains(stdout.String(), "…") {
		t.Fatalf("on a pipe the question is cut:\n%s", stdout.String())
	}
}

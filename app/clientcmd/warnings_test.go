package clientcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// textOnlyBridge serves a bridge whose default route is the text channel
// alone, so that every question is warned of, and points the commands at
// it.
func textOnlyBridge(t *testing.T) *sqlitetest.Broker {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(srv.Close)
	t.Setenv("ASKBRIDGE_SERVER", srv.URL)
	t.Setenv("ASKBRIDGE_KEY", "")
	return b
}

// `bridge ask --pending` prints the ask's warnings beside the id when
// nobody watches where the question went (here, only the text channel).
func TestAskPendingPrintsWarnings(t *testing.T) {
	textOnlyBridge(t)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"ask", "--pending", "Rename the repository?"}, strings.NewReader(""), &stdout, &stderr); code != cmdline.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out struct {
		ID       string        `json:"id"`
		Status   broker.Status `json:"status"`
		Warnings []string      `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if out.ID == "" || out.Status != broker.StatusPending || len(out.Warnings) != 1 ||
		!strings.HasPrefix(out.Warnings[0], "nobody is told of the question; the question will wait until ") {
		t.Fatalf("printed %s", stdout.String())
	}
}

// watchWriter is a standard error that tells warned of the first line
// starting "warning:", from the Write that carries it.
type watchWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	warned func(line string)
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	before := w.buf.Len()
	w.buf.Write(p)
	all := w.buf.String()
	w.mu.Unlock()
	if i := strings.Index(all, "warning: "); i >= 0 && i+len("warning: ") > before && w.warned != nil {
		line, _, _ := strings.Cut(all[i:], "\n")
		w.warned(line)
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// A waiting `bridge ask` says on standard error, as soon as the bridge
// has asked, that nobody watches where the question went, and goes on
// waiting: the answer given after the warning is what it prints.
func TestAskPrintsWarningsAtOnce(t *testing.T) {
	b := textOnlyBridge(t)

	warned := make(chan string, 1)
	stderr := &watchWriter{warned: func(line string) {
		select {
		case warned <- line:
		default:
		}
	}}
	var stdout bytes.Buffer
	code := make(chan int, 1)
	// The submit itself waits five minutes: a warning only at its end
	// would not come in time.
	req := `{"question": "Rename the repository?", "options": [{"label": "Rename"}, {"label": "Keep"}], "wait": "5m"}`
	go func() { code <- run([]string{"ask", "--request", "-"}, strings.NewReader(req), &stdout, stderr) }()
	var line string
	select {
	case line = <-warned:
	case c := <-code:
		t.Fatalf("ask ended (exit %d) with no warning: %s", c, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no warning while the ask waits; standard error: %q", stderr.String())
	}
	if !strings.HasPrefix(line, "warning: nobody is told of the question; the question will wait until ") || strings.Contains(line, "\x1b[") {
		t.Fatalf("warning line %q, want the bridge's sentence, without colour off a terminal", line)
	}
	qs, err := b.Store.List(context.Background(), broker.Filter{Status: broker.StatusPending})
	if err != nil || len(qs) != 1 {
		t.Fatalf("pending questions after the warning: %v, %v", qs, err)
	}
	if rep := b.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + qs[0].ID + " Keep"}); !rep.OK {
		t.Fatalf("answer: %s", rep.Text)
	}
	if c := <-code; c != cmdline.ExitOK {
		t.Fatalf("exit %d: %s", c, stderr.String())
	}
	var out struct {
		Status   broker.Status `json:"status"`
		Answers  any           `json:"answers"`
		Warnings []string      `json:"warnings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out.Status != broker.StatusAnswered || !strings.Contains(stdout.String(), `"Keep"`) ||
		len(out.Warnings) != 1 || "warning: "+out.Warnings[0] != line {
		t.Fatalf("printed %s (%v); want the answer Keep with the warning of %q", stdout.String(), err, line)
	}
	if n := strings.Count(stderr.String(), "warning: "); n != 1 {
		t.Fatalf("standard error warns %d times: %q", n, stderr.String())
	}
}

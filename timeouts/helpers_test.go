package timeouts_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
	"github.com/askbridge/askbridge/timeouts"
)

// start is the moment every test begins at: 14:00 UTC.
var start = time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)

// clock is a clock the test moves by hand.
type clock = brokertest.Clock

func newClock() *clock { return brokertest.NewClock(start) }

// setAt moves c to start+d and returns that time.
func setAt(c *clock, d time.Duration) time.Time { return c.Set(start.Add(d)) }

// env is a broker on a real SQLite file with a recording channel on the
// default route, and a sweeper on the same store. chat is nil when the
// env was opened with another channel.
type env struct {
	clock   *clock
	path    string
	store   *sqlite.Store
	broker  *broker.Broker
	chat    *brokertest.Channel
	sweeper *timeouts.Sweeper
}

const chatID = "c1"

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newEnv opens a fresh store in t.TempDir.
func newEnv(t testing.TB, cfg broker.Config) *env {
	t.Helper()
	return openEnv(t, filepath.Join(t.TempDir(), "askbridge.db"), newClock(), cfg)
}

// openEnv opens the store at path with a new broker, channel and sweeper,
// as a restarted bridge would.
func openEnv(t testing.TB, path string, c *clock, cfg broker.Config) *env {
	t.Helper()
	ch := brokertest.NewChannel("chat")
	e := openEnvWith(t, path, c, cfg, ch)
	e.chat = ch
	return e
}

// openEnvWith is openEnv with ch (named "chat") as the channel.
func openEnvWith(t testing.TB, path string, c *clock, cfg broker.Config, ch broker.Channel) *env {
	t.Helper()
	if cfg.Routes == nil {
		sqlitetest.DefaultRoute("chat", chatID)(&cfg)
	}
	b := sqlitetest.OpenBroker(t, path, func(bc *broker.Config) {
		cfg.Store, cfg.Now, cfg.Logger = bc.Store, c.Now, quiet
		*bc = cfg
	})
	b.Register(ch)
	return &env{clock: c, path: path, store: b.Store, broker: b.Broker,
		sweeper: timeouts.New(b.Broker, b.Store, timeouts.Options{Logger: quiet})}
}

// ask asks req as agent "a1" and fails the test on an error.
func (e *env) ask(t testing.TB, req *broker.AskRequest) *broker.Question {
	t.Helper()
	q, _, err := e.broker.Ask(context.Background(), "a1", req)
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusPending {
		t.Fatalf("asked question is %s, want pending", q.Status)
	}
	return q
}

// sweep sweeps at start+d.
func (e *env) sweep(t testing.TB, d time.Duration) timeouts.Stats {
	t.Helper()
	st, err := e.sweeper.Sweep(context.Background(), setAt(e.clock, d))
	if err != nil {
		t.Fatalf("sweep at +%s: %v", d, err)
	}
	return st
}

func (e *env) get(t testing.TB, id string) *broker.Question {
	t.Helper()
	q, err := e.store.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return q
}

// events returns the statuses in the event log of question id.
func (e *env) events(t testing.TB, id string) []broker.Status {
	t.Helper()
	evs, err := e.store.Events(context.Background(), "", 0, 1000000)
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	var out []broker.Status
	for _, ev := range evs {
		if ev.QuestionID == id {
			out = append(out, ev.Status)
		}
	}
	return out
}

// outcomes waits until the channel saw an update of question id and
// returns the outcome lines of its updates.
func (e *env) outcomes(t testing.TB, id string) []string {
	t.Helper()
	lines := func() []string {
		var out []string
		for _, q := range e.chat.Updates() {
			if q.ID == id && q.Status.Terminal() {
				out = append(out, broker.OutcomeText(q, time.UTC))
			}
		}
		return out
	}
	e.chat.WaitFor(5*time.Second, func(*brokertest.Channel) bool { return len(lines()) > 0 })
	return lines()
}

// reminders returns the reminders the channel sent for question id.
func (e *env) reminders(id string) int {
	n := 0
	for _, r := range e.chat.Reminders() {
		if strings.HasPrefix(r, id+"@") {
			n++
		}
	}
	return n
}

// answer has person u1 in the question's chat send text.
func (e *env) answer(text string) broker.Reply {
	return e.broker.HandleInbound(context.Background(), broker.Inbound{Channel: "chat", Chat: chatID, User: "u1", Name: "ana", Text: text})
}

func dur(d time.Duration) *broker.Duration { v := broker.Duration(d); return &v }

func options(labels ...string) []broker.Option {
	var out []broker.Option
	for _, l := range labels {
		out = append(out, broker.Option{Label: l})
	}
	return out
}

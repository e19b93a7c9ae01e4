package outbox_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// env is a broker with its outbox on a real SQLite file, with one
// recording channel "chat" posting to chats "c1" and "c2".
type env struct {
	b     *broker.Broker
	ob    *outbox.Outbox
	st    broker.Store
	ch    *brokertest.Channel
	clock *clock
}

// clock is the clock the tests move by hand.
type clock = brokertest.Clock

func newEnv(t testing.TB, routes map[string]broker.Route) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	var ob *outbox.Outbox
	b, ch := brokertest.StartBroker(t, st, routes, clk.Now, func(b *broker.Broker) { ob = outbox.Attach(b, st, outbox.Config{}) })
	return &env{b: b, ob: ob, st: st, ch: ch, clock: clk}
}

func dbQuestion() *broker.AskRequest {
	return &broker.AskRequest{
		SessionID: "s1", Question: "Which database should the service use?", Header: "Database",
		Options: []broker.Option{{Label: "Postgres (Recommended)", Description: "server"}, {Label: "SQLite"}, {Label: "MySQL"}},
	}
}

func (e *env) ask(t testing.TB, req *broker.AskRequest) *broker.Question {
	t.Helper()
	q, created, err := e.b.Ask(context.Background(), "agent", req)
	if err != nil || !created {
		t.Fatalf("ask: created=%v err=%v", created, err)
	}
	return q
}

func in(chat, user, text string) broker.Inbound {
	return broker.Inbound{Channel: "chat", Chat: chat, User: user, Name: user, Text: text}
}

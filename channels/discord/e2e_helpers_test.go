package discord

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// world is the real broker with a SQLite store and the Discord channel,
// against the fake Discord.
type world struct {
	*env
	b     *broker.Broker
	st    broker.Store
	other string // a second channel of the guild, not on any route
	gated string // a channel whose route names responders
	ana   discordfake.User
	bo    discordfake.User
	lead  discordfake.User // holds the "lead" role
	role  string
}

// newWorld wires store, broker and channel. In gateway mode the channel
// is connected; in http mode the caller serves Handler.
func newWorld(t *testing.T, mutate func(*Config)) *world {
	t.Helper()
	w := &world{}
	// newEnv needs a handler before the broker exists; hand it the
	// broker through a forwarder.
	fwd := &forward{}
	w.env = newEnv(t, fwd, mutate)
	w.other = w.fake.AddChannel(w.guild)
	w.gated = w.fake.AddChannel(w.guild)
	w.role = w.fake.NewGuild() // any fresh snowflake serves as a role id
	w.ana = w.fake.NewUser("ana")
	w.bo = w.fake.NewUser("bo")
	w.lead = w.fake.NewUser("lee", w.role)
	br := channeltest.NewBridge(t, map[string]broker.Route{
		"default": {Targets: []broker.Target{{Channel: Name, Chat: w.chat}}},
		"gated": {
			Targets:    []broker.Target{{Channel: Name, Chat: w.gated}},
			Responders: []string{"discord:" + w.ana.ID, "discord:role:" + w.role},
		},
		"denied": {Targets: []broker.Target{{Channel: Name, Chat: w.other}}},
		"dm":     {Targets: []broker.Target{{Channel: Name, Chat: "user:" + w.ana.ID}}},
	}, func(c *broker.Config) { c.Location, c.Logger = time.UTC, slog.New(slog.NewTextHandler(w.logs, nil)) }, channeltest.WithPeople(t,
		broker.Person{ID: "ana", Accounts: []string{"discord:" + w.ana.ID}},
		broker.Person{ID: "bo", Accounts: []string{"discord:" + w.bo.ID}}))
	fwd.h = br
	w.b, w.st = br.Broker, br.Store
	br.Register(w.ch)
	if w.ch.cfg.Mode == ModeGateway {
		w.run(t)
	}
	return w
}

type forward struct{ h broker.InboundHandler }

func (f *forward) HandleInbound(ctx context.Context, in broker.Inbound) broker.Reply {
	return f.h.HandleInbound(ctx, in)
}

// asked is a question asked by an agent who waits for it.
type asked struct {
	q      *broker.Question
	msg    *discordfake.Message
	result chan waited
}

type waited struct {
	q   *broker.Question
	err error
}

// ask asks req as "agent", finds its Discord message and starts a
// blocking Wait.
func (w *world) ask(t *testing.T, req *broker.AskRequest) *asked {
	t.Helper()
	ctx := testCtx(t)
	q, _, err := w.b.Ask(ctx, "agent", req)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	a := &asked{q: q, result: make(chan waited, 1)}
	if q.Status == broker.StatusPending && len(q.Targets) == 1 {
		// The post may end after the ask returns (its grace ran out).
		ref := channeltest.WaitCopy(t, w.st, q.ID, q.Targets[0])
		a.msg = w.fake.Message(ref.MessageID)
	} else {
		refs, err := w.st.Messages(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) == 1 {
			a.msg = w.fake.Message(refs[0].MessageID)
		}
	}
	go func() {
		// A snooze ends a wait early with the question still pending and
		// its new deadline; an agent waits again, and so does this one.
		got, err := w.b.Wait(ctx, "agent", q.ID)
		for err == nil && got.Status == broker.StatusPending && ctx.Err() == nil {
			got, err = w.b.Wait(ctx, "agent", q.ID)
		}
		a.result <- waited{got, err}
	}()
	return a
}

// done returns the question once the blocked Wait returned it resolved.
func (a *asked) done(t *testing.T) *broker.Question {
	t.Helper()
	select {
	case r := <-a.result:
		if r.err != nil || r.q == nil || !r.q.Status.Terminal() {
			t.Fatalf("Wait returned %+v, %v; want a resolved question", r.q, r.err)
		}
		return r.q
	case <-time.After(waitTimeout):
		t.Fatalf("Wait for %s never returned", a.q.ID)
	}
	return nil
}

// status reads the stored status of the question.
func (w *world) status(t *testing.T, id string) broker.Status {
	t.Helper()
	q, err := w.st.Get(testCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	return q.Status
}

// edited waits until the question message shows want and has no
// components left.
func (w *world) edited(t *testing.T, msgID, want string) *discordfake.Message {
	t.Helper()
	var m *discordfake.Message
	err := discordfake.Until(testCtx(t), func() bool {
		m = w.fake.Message(msgID)
		return len(m.Components) == 0 && strings.Contains(m.Content, want)
	})
	if err != nil {
		t.Fatalf("the question message never showed %q without buttons; it shows %d components and:\n%s", want, len(m.Components), m.Content)
	}
	return m
}

func dbRequest() *broker.AskRequest {
	return &broker.AskRequest{
		Question: "Which database should we use?", Header: "Database",
		Options: []broker.Option{{Label: "Postgres (Recommended)"}, {Label: "SQLite"}, {Label: "MySQL"}},
	}
}

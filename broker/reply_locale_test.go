package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestRepliesInTheReadersLanguage: a reply is in the language of the
// person who acted, else the route's, else the channel's; the commands
// they typed stay English.
func TestRepliesInTheReadersLanguage(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	people, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Name: "Ana", Accounts: []string{"chat:ana"}, Locale: "de"},
		{ID: "bo", Name: "Bo", Accounts: []string{"chat:bo"}, Locale: "ja"},
		{ID: "cy", Name: "Cy", Accounts: []string{"chat:cy"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}, Responders: []string{"person:ana", "person:bo", "person:cy"},
		Policy: broker.Policy{Quorum: 3, Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour), Max: 1}}}}
	clk := &clock{now: time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)}
	b, err := broker.New(broker.Config{Store: st, Routes: routes, Now: clk.Now, Logger: slog.New(slog.DiscardHandler),
		People: people, ChannelLocales: map[string]string{"chat": "en-XA"}})
	if err != nil {
		t.Fatal(err)
	}
	b.Register(brokertest.NewChannel("chat"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; b.Close() })
	e := &env{b: b, st: st, clock: clk}
	q := e.ask(t, allowDeny())

	if r := b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 1")); !r.OK || r.Text != "Ihre Stimme ist erfasst: Allow (1 von 3: Allow von Ana)." {
		t.Errorf("Ana's vote: %+v", r)
	}
	if r := b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 1")); r.OK || r.Text != "Sie haben bereits Allow für "+q.ID+" gewählt; nichts wurde geändert." {
		t.Errorf("Ana's vote again: %+v", r)
	}
	audit, err := st.Audit(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := audit[len(audit)-1]; last.Detail != "You already chose Allow on "+q.ID+"; nothing changed." {
		t.Errorf("the refusal's audit entry %+v: the audit log stays English", last)
	}
	if r := b.HandleInbound(ctx, in("c1", "bo", "/snooze "+q.ID)); !r.OK || r.Text != "後回しにしました: "+q.ID+" の期限は 15:30 UTC です（1 / 1 回）。" {
		t.Errorf("Bo's snooze: %+v", r)
	}
	r := b.HandleInbound(ctx, in("c1", "cy", "/answer "+q.ID+" 1"))
	if !r.OK || !strings.HasPrefix(r.Text, "[") {
		t.Errorf("Cy's vote in the channel's pseudo-locale: %+v", r)
	}
	if words := i18ntest.Untranslated(r.Text, "Allow", "Ana", "Cy"); len(words) > 0 {
		t.Errorf("Cy's reply %q has untranslated %q", r.Text, words)
	}
}

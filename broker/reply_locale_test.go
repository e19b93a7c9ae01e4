package broker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// TestRepliesInTheReadersLanguage: a reply is in the language of the
// person who acted, else the route's, else the channel's; the commands
// they typed stay English.
func TestRepliesInTheReadersLanguage(t *testing.T) {
	people := newPeople(t, []broker.Person{
		{ID: "ana", Name: "Ana", Accounts: []string{"chat:ana"}, Locale: "de"},
		{ID: "bo", Name: "Bo", Accounts: []string{"chat:bo"}, Locale: "ja"},
		{ID: "cy", Name: "Cy", Accounts: []string{"chat:cy"}},
	}, nil)
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}, Responders: []string{"person:ana", "person:bo", "person:cy"},
		Policy: broker.Policy{Quorum: 3, Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour), Max: 1}}}}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, People: people, ChannelLocales: map[string]string{"chat": "en-XA"}},
		brokertest.NewChannel("chat"))
	e := &env{b: b, st: st, clock: clk}
	ctx := context.Background()
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

package broker_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/testutil"
)

// TestSessionRepliesInTheReadersLanguage: what a person whose locale is
// de is told about text to an agent's session, sent or not, is German.
func TestSessionRepliesInTheReadersLanguage(t *testing.T) {
	people := newPeople(t, []broker.Person{{ID: "ana", Name: "Ana Lima", Accounts: []string{"chat:ana"}, Locale: "de"}}, nil)
	routes := map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}},
		"ops":               {Targets: []broker.Target{{Channel: "chat", Chat: "c2"}}, Responders: []string{"person:ana"}},
	}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	chat := &threadChannel{Channel: brokertest.NewChannel("chat")}
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, People: people}, chat)
	e := &talkEnv{b: b, st: st, chat: chat, clock: clk, logs: &testutil.Buffer{}}
	ctx := context.Background()

	q := e.ask(t, "claude", "s1", true)
	c2 := e.copyIn(t, q, "chat", "c2")
	if r := b.HandleInbound(ctx, inThread(c2, "ana", "/answer "+q.ID+" 1")); !r.OK || r.Text != "Erfasst: Allow once" {
		t.Fatalf("answer: %+v", r)
	}
	say := func(text string) broker.Reply { return b.HandleInbound(ctx, inThread(c2, "ana", text)) }
	if r := say("warum?"); r.OK || r.Text != "Die Sitzung des Agenten ist nicht verbunden; nichts wurde gesendet." {
		t.Errorf("nobody listening: %+v", r)
	}
	e.listen(t, "claude", "s1")
	long := strings.Repeat("x", broker.MaxSessionMessageChars+1)
	for _, c := range []struct {
		text string
		ok   bool
		want string
	}{
		{"warum?", true, "An die Sitzung des Agenten gesendet."},
		{long, false, "Nichts wurde gesendet: Ihre Nachricht hat " + strconv.Itoa(broker.MaxSessionMessageChars+1) + " Zeichen; die Sitzung des Agenten nimmt höchstens " + strconv.Itoa(broker.MaxSessionMessageChars) + " an."},
		{"wa\x01rum", false, "Nichts wurde gesendet: Der Text enthält an Zeichen 3 ein Steuerzeichen (U+0001); erlaubt sind nur Zeilenumbruch und Tabulator."},
	} {
		if r := say(c.text); r.OK != c.ok || r.Text != c.want {
			t.Errorf("%.20q: %+v, want %q", c.text, r, c.want)
		}
	}
}

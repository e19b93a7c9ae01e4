package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestSessionRepliesInTheReadersLanguage: what a person whose locale is
// de is told about text to an agent's session, sent or not, is German.
func TestSessionRepliesInTheReadersLanguage(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	people, err := broker.NewPeople([]broker.Person{{ID: "ana", Name: "Ana Lima", Accounts: []string{"chat:ana"}, Locale: "de"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}},
		"ops":               {Targets: []broker.Target{{Channel: "chat", Chat: "c2"}}, Responders: []string{"person:ana"}},
	}
	clk := &clock{now: time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)}
	b, err := broker.New(broker.Config{Store: st, Routes: routes, Now: clk.Now, People: people,
		Logger: slog.New(slog.DiscardHandler), Grace: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	chat := &threadChannel{Channel: brokertest.NewChannel("chat")}
	b.Register(chat)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	sent := make(chan struct{})
	go func() { b.RunOutbox(ctx); close(sent) }()
	t.Cleanup(func() { cancel(); <-done; <-sent; b.Close() })
	e := &talkEnv{b: b, st: st, chat: chat, clock: clk, logs: &testutil.Buffer{}}

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

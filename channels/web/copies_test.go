package web

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// downChannel is a platform whose every post fails for a while (an
// unreachable network): its copies are retried, never given up.
type downChannel struct{ posts atomic.Int64 }

func (d *downChannel) Name() string { return "telegram" }
func (d *downChannel) Post(context.Context, *broker.Question, string) (broker.MessageRef, error) {
	d.posts.Add(1)
	return broker.MessageRef{}, errors.New("dial tcp: connection refused")
}

// The inbox shows where else a question was posted and how each copy
// stands, from the same copies view the API serves: here a Telegram copy
// being retried, in a real browser.
func TestBrowserShowsRetryingCopy(t *testing.T) {
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}, {Channel: "telegram", Chat: "-1001234567890"}}}}
	br := channeltest.NewBridge(t, routes, func(c *broker.Config) {
		c.ReminderPoints, c.Location, c.Logger = []float64{}, time.UTC, quiet
		c.Grace = 5 * time.Second
	})
	ch, err := New(Config{}, br, Options{Logger: quiet, Location: time.UTC, Lister: br.Store, Loopback: true, Copies: br.Broker})
	if err != nil {
		t.Fatalf("new web channel: %v", err)
	}
	br.Register(ch)
	down := &downChannel{}
	br.Register(down)
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })

	q, _, err := br.Broker.Ask(context.Background(), "agent", &broker.AskRequest{Question: "Deploy now?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	if err != nil || q.Status != broker.StatusPending {
		t.Fatalf("ask: %v, %v", q, err)
	}
	if down.posts.Load() == 0 {
		t.Fatal("the Telegram copy was never attempted")
	}
	ctx := tab(t, newBrowser(t), false)
	open(t, ctx, srv.URL+"/")
	card := "#q-" + q.ID + " .copies"
	waitText(t, ctx, card, "Telegram -1001234567890: retrying (unreachable")
	if got := pageText(ctx, card); got == "" || strings.Contains(got, "web") {
		t.Errorf("copies line %q names the inbox itself", got)
	}
}

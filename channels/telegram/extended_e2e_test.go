package telegram

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Ana taps Snooze on the Telegram copy while the agent waits through the
// HTTP API: the agent's wait learns the new deadline at once and keeps
// waiting, and its event stream shows the extended event with who
// snoozed; the answer given afterwards ends the wait.
func TestSnoozeButtonReachesTheWaitingAgent(t *testing.T) {
	e := newEnv(t, envOptions{people: true})
	srv := api.New(api.Config{AgentKeys: []api.Key{{Name: "agent", Secret: "k1"}}, Logger: slog.New(slog.DiscardHandler)}, e.b, e.st)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	c := client.New(hs.URL, "k1")
	extended := make(chan client.Result, 4)
	c.OnExtended = func(r client.Result) { extended <- r }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	q, m := e.ask(&broker.AskRequest{Route: "prod", Question: "Deploy 412?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}}, team)
	events, errc := c.Events(ctx, client.EventsFilter{LastEventID: "0"})
	done := make(chan *client.Result, 1)
	go func() {
		res, err := c.Wait(ctx, q.ID)
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		done <- res
	}()
	for e.b.Waiting() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["⏰ Snooze"]))
	next := q.ExpiresAt.Add(30 * time.Minute)
	select {
	case r := <-extended:
		if r.Status != client.StatusPending || !r.ExpiresAt.Equal(next) || r.Snoozes != 1 {
			t.Fatalf("the wait learned %+v, want pending until %v after 1 snooze", r, next)
		}
	case <-ctx.Done():
		t.Fatal("the waiting agent did not learn of the snooze")
	}
	select {
	case ev := <-events:
		if ev.Type != client.EventExtended || ev.Result.ID != q.ID || !ev.Result.ExpiresAt.Equal(next) || ev.Extension == nil ||
			ev.Extension.SnoozedBy.Channel != Name || ev.Extension.SnoozedBy.User != "42" || ev.Extension.Snoozes != 1 {
			t.Fatalf("event %+v (extension %+v), want Ana's snooze of %s to %v", ev, ev.Extension, q.ID, next)
		}
	case err := <-errc:
		t.Fatalf("event stream ended: %v", err)
	case <-ctx.Done():
		t.Fatal("no extended event on the stream")
	}
	mine := e.fake.Send(bob, team.ID, "/answer "+q.ID+" 2", 0)
	e.waitReply(team.ID, mine)
	if res := <-done; res == nil || res.Status != client.StatusDeclined && res.Status != client.StatusAnswered {
		t.Fatalf("the wait ended with %+v, want the question's end", res)
	}
}

package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// newSnoozeEnv is an evEnv whose route lets people snooze, 30 minutes at
// a time, twice.
func newSnoozeEnv(t *testing.T) *evEnv {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "askbridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pol := broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}}
	b, err := broker.New(broker.Config{
		Store:  st,
		Routes: map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: "test", Chat: "c1"}}, Policy: pol}},
		Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	b.Register(brokertest.NewChannel("test"))
	ctx, cancel := context.WithCancel(context.Background())
	go b.Run(ctx)
	srv := New(Config{Loopback: true, Logger: log}, b, st)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close(); cancel() })
	return &evEnv{b: b, srv: hs}
}

// snooze snoozes question id as ana would with the Snooze button.
func (e *evEnv) snooze(t *testing.T, id string) {
	t.Helper()
	r := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: "test", Chat: "c1", User: "ana", Name: "ana", Text: "/snooze " + id})
	if !r.OK {
		t.Fatalf("snooze: %+v", r)
	}
}

// expiresAt reads the deadline of question id.
func (e *evEnv) expiresAt(t *testing.T, id string) time.Time {
	t.Helper()
	q, err := e.b.Get(context.Background(), LocalAgent, id)
	if err != nil {
		t.Fatal(err)
	}
	return q.ExpiresAt
}

// A long-poll (GET with wait, and the wait of an ask) returns as soon as
// a snooze moves the deadline: still pending, with the new expires_at.
func TestLongPollReturnsOnExtension(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		call   func(e *evEnv, id string) (*http.Response, error)
	}{
		{"get with wait", http.StatusOK, func(e *evEnv, id string) (*http.Response, error) {
			return http.Get(e.srv.URL + "/v1/questions/" + id + "?wait=60s")
		}},
		{"ask with wait", http.StatusAccepted, func(e *evEnv, _ string) (*http.Response, error) {
			return http.Post(e.srv.URL+"/v1/questions", "application/json",
				strings.NewReader(`{"question":"Deploy?","options":[{"label":"Yes"},{"label":"No"}],"wait":"60s"}`))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newSnoozeEnv(t)
			id := ""
			if tt.status == http.StatusOK {
				id = e.ask(t, LocalAgent, "s1", "")
			}
			type reply struct {
				code int
				body broker.Result
				err  error
			}
			done := make(chan reply, 1)
			go func() {
				resp, err := tt.call(e, id)
				if err != nil {
					done <- reply{err: err}
					return
				}
				defer resp.Body.Close()
				var r reply
				r.code, r.err = resp.StatusCode, json.NewDecoder(resp.Body).Decode(&r.body)
				done <- r
			}()
			for e.b.Waiting() == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			if id == "" {
				qs, err := e.b.List(context.Background(), broker.Filter{Agent: LocalAgent})
				if err != nil || len(qs) != 1 {
					t.Fatalf("list: %d questions (%v), want the one asked", len(qs), err)
				}
				id = qs[0].ID
			}
			want := e.expiresAt(t, id).Add(30 * time.Minute)
			e.snooze(t, id)
			r := <-done
			if r.err != nil || r.code != tt.status || r.body.ID != id || r.body.Status != broker.StatusPending || !r.body.ExpiresAt.Equal(want) {
				t.Fatalf("long-poll answered %d %+v (%v), want %d pending with expires_at %v", r.code, r.body, r.err, tt.status, want)
			}
		})
	}
}

// The event stream sends each snooze as an extended event with the new
// deadline, who snoozed and the count, between the resolutions, live and
// on a replay; a session filter keeps other sessions' extensions out.
func TestEventsStreamExtended(t *testing.T) {
	e := newSnoozeEnv(t)
	id := e.ask(t, LocalAgent, "s1", "")
	other := e.ask(t, LocalAgent, "s2", "")
	before := e.expiresAt(t, id)
	evs, closeStream, _ := openStream(t, e.srv.URL+"/v1/events", nil)
	// The first block carries the position; wait for it, so that the
	// snooze comes after the stream started.
	if first := <-evs; first.id == "" {
		t.Fatalf("first block %+v, want the stream's position", first)
	}
	e.snooze(t, id)
	ev := nextOf(t, evs)
	var x extendedView
	if err := json.Unmarshal([]byte(ev.data), &x); err != nil {
		t.Fatalf("extended data %q: %v", ev.data, err)
	}
	if ev.event != "extended" || x.ID != id || x.Status != broker.StatusPending || x.SessionID != "s1" || !x.ExpiresAt.Equal(before.Add(30*time.Minute)) ||
		x.SnoozedBy.User != "ana" || x.SnoozedBy.Channel != "test" || x.Snoozes != 1 || x.ExtendedAt.IsZero() {
		t.Fatalf("event %+v, data %+v: want extended, pending, s1, expiring %v, by ana, snooze 1", ev, x, before.Add(30*time.Minute))
	}
	e.snooze(t, other)
	e.answer(t, id)
	if ev := nextOf(t, evs); ev.event != "extended" {
		t.Fatalf("event %+v, want the other question's extension", ev)
	}
	if ev, res := nextEvent(t, evs); ev.event != "resolved" || res.ID != id || res.Status != broker.StatusAnswered {
		t.Fatalf("event %+v (%+v), want the resolution after the extension", ev, res)
	}
	closeStream()

	replay, closeReplay, _ := openStream(t, e.srv.URL+"/v1/events?last_event_id=0&session_id=s1", nil)
	defer closeReplay()
	for _, want := range []string{"extended", "resolved"} {
		if ev, res := nextEvent(t, replay); ev.event != want || res.ID != id {
			t.Fatalf("replayed %+v (%s), want %s of %s", ev, res.ID, want, id)
		}
	}
}

// nextOf returns the next event of any type, skipping comments and
// position blocks.
func nextOf(t *testing.T, evs <-chan sseEvent) sseEvent {
	t.Helper()
	ev, _ := nextEvent(t, evs)
	return ev
}

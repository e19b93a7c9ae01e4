package timeouts_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// TestRemindersAtFiftyAndNinetyPercent follows one 30-minute question
// through its reminder points: each reminder goes out once, at its time.
func TestRemindersAtFiftyAndNinetyPercent(t *testing.T) {
	e := newEnv(t, broker.Config{})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite")})
	steps := []struct {
		at           time.Duration
		wantReminded int // by this sweep
		wantTotal    int // sent to the chat so far
	}{
		{time.Minute, 0, 0},
		{15*time.Minute - time.Millisecond, 0, 0},
		{15 * time.Minute, 1, 1},
		{15 * time.Minute, 0, 1},
		{20 * time.Minute, 0, 1},
		{27 * time.Minute, 1, 2},
		{29 * time.Minute, 0, 2},
		{30 * time.Minute, 0, 2}, // times out instead
		{40 * time.Minute, 0, 2},
	}
	for _, s := range steps {
		st := e.sweep(t, s.at)
		if st.Reminded != s.wantReminded {
			t.Errorf("sweep at +%s reminded %d, want %d", s.at, st.Reminded, s.wantReminded)
		}
		if got := e.reminders(q.ID); got != s.wantTotal {
			t.Errorf("after the sweep at +%s the chat got %d reminder(s), want %d", s.at, got, s.wantTotal)
		}
	}
	if got := e.get(t, q.ID); got.Status != broker.StatusTimedOut || got.RemindersSent != 2 {
		t.Errorf("at the end the question is %s with %d reminder(s) marked, want timed_out with 2", got.Status, got.RemindersSent)
	}
}

// TestNoReminderAfterResolution checks that an answered question is never
// nudged.
func TestNoReminderAfterResolution(t *testing.T) {
	e := newEnv(t, broker.Config{})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite")})
	setAt(e.clock, 5*time.Minute)
	if r := e.answer("/answer " + q.ID + " 2"); !r.OK {
		t.Fatalf("answer: %s", r.Text)
	}
	for _, at := range []time.Duration{15 * time.Minute, 27 * time.Minute, 31 * time.Minute} {
		if st := e.sweep(t, at); st != (timeouts.Stats{}) {
			t.Errorf("sweep at +%s after the answer did %+v, want nothing", at, st)
		}
	}
	if got := e.reminders(q.ID); got != 0 {
		t.Errorf("the answered question got %d reminder(s), want 0", got)
	}
}

// TestRemindersSurviveRestart checks that the reminder marks are kept in
// the store: a restarted bridge, or a second sweeper on the same store,
// never sends a reminder again.
func TestRemindersSurviveRestart(t *testing.T) {
	first := newEnv(t, broker.Config{})
	q := first.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite")})
	if st := first.sweep(t, 15*time.Minute); st.Reminded != 1 {
		t.Fatalf("first sweeper at +15m reminded %d, want 1", st.Reminded)
	}

	// A second bridge on the same database file, with its own clock.
	second := openEnv(t, first.path, newClock(), broker.Config{})
	if st := second.sweep(t, 15*time.Minute); st.Reminded != 0 {
		t.Errorf("the restarted sweeper at +15m reminded %d, want 0", st.Reminded)
	}
	if st := second.sweep(t, 16*time.Minute); st.Reminded != 0 {
		t.Errorf("the restarted sweeper at +16m reminded %d, want 0", st.Reminded)
	}

	// Both sweep at the second reminder point at the same time: one sends.
	setAt(first.clock, 27*time.Minute)
	setAt(second.clock, 27*time.Minute)
	var wg sync.WaitGroup
	stats := make([]timeouts.Stats, 2)
	for i, e := range []*env{first, second} {
		wg.Go(func() {
			st, err := e.sweeper.Sweep(context.Background(), start.Add(27*time.Minute))
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			stats[i] = st
		})
	}
	wg.Wait()
	if n := stats[0].Reminded + stats[1].Reminded; n != 1 {
		t.Errorf("two sweepers at +27m reminded %d time(s) in all (%+v), want 1", n, stats)
	}
	if n := first.reminders(q.ID) + second.reminders(q.ID); n != 2 {
		t.Errorf("the chat got %d reminder(s) from both bridges, want 2", n)
	}
}

// TestOverdueRemindersSendOneNudge checks that after downtime, with both
// reminder points passed, one reminder is sent and both are marked.
func TestOverdueRemindersSendOneNudge(t *testing.T) {
	e := newEnv(t, broker.Config{})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite")})
	if st := e.sweep(t, 28*time.Minute); st.Reminded != 1 {
		t.Errorf("the first sweep after downtime reminded %d, want 1", st.Reminded)
	}
	if got := e.get(t, q.ID).RemindersSent; got != 2 {
		t.Errorf("reminders marked as sent = %d, want 2 (both points passed)", got)
	}
	if st := e.sweep(t, 29*time.Minute); st.Reminded != 0 {
		t.Errorf("the next sweep reminded %d, want 0", st.Reminded)
	}
	if got := e.reminders(q.ID); got != 1 {
		t.Errorf("the chat got %d reminder(s), want 1", got)
	}
}

// TestReminderReachesEveryCopy checks that one reminder nudges the question
// in every chat it was posted to.
func TestReminderReachesEveryCopy(t *testing.T) {
	e := newEnv(t, broker.Config{Routes: map[string]broker.Route{broker.DefaultRoute: {
		Targets: []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}},
	}}})
	q := e.ask(t, &broker.AskRequest{Question: "Ship it?", Options: options("Yes", "No")})
	if st := e.sweep(t, 15*time.Minute); st.Reminded != 1 {
		t.Errorf("sweep reminded %d question(s), want 1", st.Reminded)
	}
	if got := e.reminders(q.ID); got != 2 {
		t.Errorf("%d cop(ies) were nudged, want both", got)
	}
}

func TestDueReminder(t *testing.T) {
	at := func(mins ...int) []time.Time {
		var out []time.Time
		for _, m := range mins {
			out = append(out, start.Add(time.Duration(m)*time.Minute))
		}
		return out
	}
	tests := []struct {
		name      string
		reminders []time.Time
		sent      int
		now       time.Duration
		want      int
	}{
		{"none configured", nil, 0, time.Hour, 0},
		{"before the first", at(15, 27), 0, 14 * time.Minute, 0},
		{"at the first", at(15, 27), 0, 15 * time.Minute, 1},
		{"first already sent", at(15, 27), 1, 20 * time.Minute, 0},
		{"second due", at(15, 27), 1, 27 * time.Minute, 2},
		{"both overdue: the last stands for both", at(15, 27), 0, 28 * time.Minute, 2},
		{"all sent", at(15, 27), 2, time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &broker.Question{Reminders: tt.reminders, RemindersSent: tt.sent}
			if got := timeouts.DueReminder(q, start.Add(tt.now)); got != tt.want {
				t.Errorf("DueReminder = %d, want %d", got, tt.want)
			}
		})
	}
}

package timeouts_test

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// TestDeadlinePolicy checks where a question's deadline and reminder times
// come from: the question, then its route, then the bridge's defaults.
func TestDeadlinePolicy(t *testing.T) {
	route := func(timeout time.Duration, reminders []float64) map[string]broker.Route {
		return map[string]broker.Route{broker.DefaultRoute: {
			Targets: []broker.Target{{Channel: "chat", Chat: chatID}}, Timeout: timeout, Reminders: reminders,
		}}
	}
	tests := []struct {
		name          string
		cfg           broker.Config
		req           broker.AskRequest
		wantExpiry    time.Duration
		wantReminders []time.Duration
	}{
		{"30 minutes and reminders at 50% and 90% by default", broker.Config{}, broker.AskRequest{},
			30 * time.Minute, []time.Duration{15 * time.Minute, 27 * time.Minute}},
		{"the bridge's default timeout", broker.Config{DefaultTimeout: 10 * time.Minute}, broker.AskRequest{},
			10 * time.Minute, []time.Duration{5 * time.Minute, 9 * time.Minute}},
		{"the route's timeout and reminders win over the bridge's", broker.Config{DefaultTimeout: 10 * time.Minute, Routes: route(2*time.Hour, []float64{0.25})}, broker.AskRequest{},
			2 * time.Hour, []time.Duration{30 * time.Minute}},
		{"the question's own timeout and reminders win over the route's", broker.Config{Routes: route(2*time.Hour, []float64{0.25})}, broker.AskRequest{Timeout: dur(4 * time.Minute), Reminders: []float64{0.5, 0.75}},
			4 * time.Minute, []time.Duration{2 * time.Minute, 3 * time.Minute}},
		// Inherited points less than a minute apart are dropped: one
		// reminder, half-way.
		{"the shortest timeout", broker.Config{}, broker.AskRequest{Timeout: dur(10 * time.Second)},
			10 * time.Second, []time.Duration{5 * time.Second}},
		{"a route's points closer than a minute for this timeout", broker.Config{Routes: route(0, []float64{0.2, 0.5, 0.6, 0.9})}, broker.AskRequest{Timeout: dur(5 * time.Minute)},
			5 * time.Minute, []time.Duration{time.Minute, 150 * time.Second, 270 * time.Second}},
		{"the longest timeout", broker.Config{}, broker.AskRequest{Timeout: dur(7 * 24 * time.Hour)},
			7 * 24 * time.Hour, []time.Duration{84 * time.Hour, 151*time.Hour + 12*time.Minute}},
		{"no reminders when the question asks for none", broker.Config{}, broker.AskRequest{Reminders: []float64{}},
			30 * time.Minute, nil},
		{"no reminders when the bridge sets none", broker.Config{ReminderPoints: []float64{}}, broker.AskRequest{},
			30 * time.Minute, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.cfg)
			req := tt.req
			req.Question, req.Options = "Which database?", options("Postgres", "SQLite")
			q := e.ask(t, &req)
			if want := start.Add(tt.wantExpiry); !q.ExpiresAt.Equal(want) {
				t.Errorf("expires_at = %s, want %s", q.ExpiresAt, want)
			}
			if q.Timeout != tt.wantExpiry {
				t.Errorf("timeout = %s, want %s", q.Timeout, tt.wantExpiry)
			}
			if len(q.Reminders) != len(tt.wantReminders) {
				t.Fatalf("reminders = %v, want at +%v", q.Reminders, tt.wantReminders)
			}
			for i, d := range tt.wantReminders {
				if want := start.Add(d); !q.Reminders[i].Equal(want) {
					t.Errorf("reminder %d at %s, want %s", i+1, q.Reminders[i], want)
				}
			}

			// The deadline itself is included: due at expires_at, not before.
			if st := e.sweep(t, tt.wantExpiry-time.Millisecond); st.TimedOut != 0 {
				t.Fatalf("a sweep 1 ms before the deadline timed out %d question(s)", st.TimedOut)
			}
			if got := e.get(t, q.ID).Status; got != broker.StatusPending {
				t.Fatalf("1 ms before the deadline the question is %s, want pending", got)
			}
			if st := e.sweep(t, tt.wantExpiry); st.TimedOut != 1 {
				t.Fatalf("the sweep at the deadline timed out %d question(s), want 1", st.TimedOut)
			}
			if got := e.get(t, q.ID).Status; got != broker.StatusTimedOut {
				t.Fatalf("at the deadline the question is %s, want timed_out", got)
			}
		})
	}
}

// TestSweepIgnoresWhatIsNotDue checks that a sweep leaves alone questions
// whose deadline is ahead and questions already answered.
func TestSweepIgnoresWhatIsNotDue(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	early := e.ask(t, &broker.AskRequest{Question: "Early?", Timeout: dur(time.Minute)})
	late := e.ask(t, &broker.AskRequest{Question: "Late?", Timeout: dur(time.Hour)})
	answered := e.ask(t, &broker.AskRequest{Question: "Answered?", Timeout: dur(time.Minute)})
	if r := e.answer("/answer " + answered.ID + " yes"); !r.OK {
		t.Fatalf("answer: %s", r.Text)
	}
	st := e.sweep(t, 2*time.Minute)
	if st.TimedOut != 1 || st.LostRaces != 0 {
		t.Fatalf("sweep at +2m = %+v, want exactly one timed out", st)
	}
	for id, want := range map[string]broker.Status{early.ID: broker.StatusTimedOut, late.ID: broker.StatusPending, answered.ID: broker.StatusAnswered} {
		if got := e.get(t, id).Status; got != want {
			t.Errorf("question %s is %s, want %s", id, got, want)
		}
	}
	if st := e.sweep(t, 2*time.Minute); st != (timeouts.Stats{}) {
		t.Errorf("a second sweep at the same time did %+v, want nothing", st)
	}
}

package timeouts_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// answerOnGet is the real store with one interleaving forced: right after
// the sweeper reads a due question, a person's answer lands.
type answerOnGet struct {
	broker.Store
	e      *env
	once   sync.Once
	answer broker.Reply
	// choice is what the person answers ("2" when empty), as in
	// "/answer <id><choice>"; ".2 Redis" answers prompt 2 of a dialog.
	choice string
}

func (s *answerOnGet) Get(ctx context.Context, id string) (*broker.Question, error) {
	q, err := s.Store.Get(ctx, id)
	choice := s.choice
	if choice == "" {
		choice = " 2"
	}
	s.once.Do(func() { s.answer = s.e.answer("/answer " + id + choice) })
	return q, err
}

// TestAnswerRacesSweeper checks that an answer and the sweeper acting on
// the same question at its deadline give exactly one outcome, in every
// order.
func TestAnswerRacesSweeper(t *testing.T) {
	const deadline = 30 * time.Minute
	ask := func(t *testing.T, e *env) *broker.Question {
		return e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite"), Default: broker.StringList{"Postgres"}})
	}
	check := func(t *testing.T, e *env, q *broker.Question, want broker.Status, wantOutcome string) {
		t.Helper()
		if got := e.get(t, q.ID).Status; got != want {
			t.Errorf("the question is %s, want %s", got, want)
		}
		if got := e.events(t, q.ID); !reflect.DeepEqual(got, []broker.Status{want}) {
			t.Errorf("event log %v, want exactly one %s", got, want)
		}
		if got := e.outcomes(t, q.ID); len(got) != 1 || got[0] != wantOutcome {
			t.Errorf("the posted copy was updated to %q, want once %q", got, wantOutcome)
		}
	}

	t.Run("answer first", func(t *testing.T) {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		q := ask(t, e)
		setAt(e.clock, deadline-time.Millisecond)
		if r := e.answer("/answer " + q.ID + " 2"); !r.OK || r.Text != "Recorded: SQLite" {
			t.Fatalf("answer just before the deadline got %+v, want \"Recorded: SQLite\"", r)
		}
		if st := e.sweep(t, deadline); st != (timeouts.Stats{}) {
			t.Errorf("sweep after the answer did %+v, want nothing", st)
		}
		check(t, e, q, broker.StatusAnswered, "Answered by ana at 14:29 UTC: SQLite")
	})

	t.Run("answer at the deadline, before the sweeper comes by", func(t *testing.T) {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		q := ask(t, e)
		setAt(e.clock, deadline)
		if r := e.answer("/answer " + q.ID + " 2"); r.OK || r.Text != "This question expired at 14:30 UTC" {
			t.Fatalf("late answer got %+v, want \"This question expired at 14:30 UTC\"", r)
		}
		if st := e.sweep(t, deadline); st != (timeouts.Stats{}) {
			t.Errorf("sweep after the late answer did %+v, want nothing", st)
		}
		check(t, e, q, broker.StatusTimedOut, "No answer in 30 min: used the default, Postgres")
	})

	t.Run("sweeper first", func(t *testing.T) {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		q := ask(t, e)
		if st := e.sweep(t, deadline); st.TimedOut != 1 {
			t.Errorf("sweep = %+v, want one timed out", st)
		}
		if r := e.answer("/answer " + q.ID + " 2"); r.OK || r.Text != "This question expired at 14:30 UTC" {
			t.Errorf("answer after the sweep got %+v, want \"This question expired at 14:30 UTC\"", r)
		}
		check(t, e, q, broker.StatusTimedOut, "No answer in 30 min: used the default, Postgres")
	})

	t.Run("answer lands between the sweeper's read and its compare-and-set", func(t *testing.T) {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		q := ask(t, e)
		hooked := &answerOnGet{Store: e.store, e: e}
		s := timeouts.New(e.broker, hooked, timeouts.Options{Logger: quiet})
		// The person answers a moment before the deadline, by the broker's
		// clock; the sweeper sweeps at the deadline.
		setAt(e.clock, deadline-time.Millisecond)
		st, err := s.Sweep(context.Background(), start.Add(deadline))
		if err != nil {
			t.Fatalf("sweep: %v", err)
		}
		if !hooked.answer.OK {
			t.Fatalf("the answer between read and compare-and-set was refused: %q", hooked.answer.Text)
		}
		if st != (timeouts.Stats{LostRaces: 1}) {
			t.Errorf("sweep = %+v, want one lost race", st)
		}
		check(t, e, q, broker.StatusAnswered, "Answered by ana at 14:29 UTC: SQLite")
	})

	t.Run("a dialog answer lands between the sweeper's read and its compare-and-set", func(t *testing.T) {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}},
			{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None"), Default: broker.StringList{"None"}},
		}})
		hooked := &answerOnGet{Store: e.store, e: e, choice: ".2 Redis"}
		s := timeouts.New(e.broker, hooked, timeouts.Options{Logger: quiet})
		setAt(e.clock, deadline-time.Millisecond)
		st, err := s.Sweep(context.Background(), start.Add(deadline))
		if err != nil {
			t.Fatalf("sweep: %v", err)
		}
		if !hooked.answer.OK {
			t.Fatalf("the answer between read and compare-and-set was refused: %q", hooked.answer.Text)
		}
		if st != (timeouts.Stats{TimedOut: 1}) {
			t.Errorf("sweep = %+v, want one timed out", st)
		}
		got := e.get(t, q.ID)
		if a := got.Answers["Which cache?"]; a.Defaulted || len(a.Selected) != 1 || a.Selected[0] != "Redis" || a.AnsweredBy == nil || a.AnsweredBy.Name != "ana" {
			t.Errorf("the cache answer saved during the sweep became %+v, want Redis by ana", a)
		}
		if got.Fallback != broker.FallbackDefault {
			t.Errorf("fallback %q, want default (the database took its default)", got.Fallback)
		}
		check(t, e, q, broker.StatusTimedOut, "Expired at 14:30 UTC with 1 of 2 answered: DB: SQLite (default); Cache: Redis (by ana)")
	})

	t.Run("concurrently", func(t *testing.T) {
		const n = 40
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		qs := make([]*broker.Question, n)
		for i := range qs {
			qs[i] = ask(t, e)
		}
		setAt(e.clock, deadline-time.Millisecond)
		replies := make([]broker.Reply, n)
		var stats timeouts.Stats
		var wg sync.WaitGroup
		wg.Go(func() {
			st, err := e.sweeper.Sweep(context.Background(), start.Add(deadline))
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			stats = st
		})
		for i, q := range qs {
			wg.Go(func() { replies[i] = e.answer("/answer " + q.ID + " 2") })
		}
		wg.Wait()

		answered := 0
		for i, q := range qs {
			got := e.get(t, q.ID)
			switch {
			case replies[i].OK && got.Status == broker.StatusAnswered:
				answered++
			case !replies[i].OK && got.Status == broker.StatusTimedOut && replies[i].Text == "This question expired at 14:30 UTC":
			default:
				t.Errorf("question %d: the person was told %q and the question is %s", i, replies[i].Text, got.Status)
			}
			if evs := e.events(t, q.ID); len(evs) != 1 || evs[0] != got.Status {
				t.Errorf("question %d: event log %v, want exactly one %s", i, evs, got.Status)
			}
		}
		if stats.TimedOut != n-answered {
			t.Errorf("the sweeper timed out %d, but %d questions are timed_out", stats.TimedOut, n-answered)
		}
		if stats.TimedOut+stats.LostRaces > n {
			t.Errorf("the sweeper handled %d questions (%+v), more than the %d asked", stats.TimedOut+stats.LostRaces, stats, n)
		}
		t.Logf("%d answered, %d timed out, %d races lost by the sweeper", answered, stats.TimedOut, stats.LostRaces)
		for i, q := range qs {
			if out := e.outcomes(t, q.ID); len(out) != 1 {
				t.Errorf("question %d: the posted copy was updated %d times after resolution: %q", i, len(out), out)
			}
		}
	})
}

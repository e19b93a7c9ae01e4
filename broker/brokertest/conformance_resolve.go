package brokertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var resolveTests = []storeTest{
	{"SetsTerminalState", testResolveState},
	{"Statuses", testResolveStatuses},
	{"ExactlyOneWinner", testResolveRace},
	{"ClosedStaysClosed", testResolveClosed},
	{"Unknown", testResolveUnknown},
	{"IfProgress", testResolveIfProgress},
}

// testResolveIfProgress checks the conditional resolution a timeout uses:
// it applies only while the dialog has as many answered prompts as it was
// built on, so an answer saved in between is never dropped.
func testResolveIfProgress(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := FullQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, q) // prompt 2 of 3 is answered
	timeout := func(given int) broker.Resolution {
		return broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now.Add(time.Second), IfProgress: &given}
	}
	for _, given := range []int{0, 2} {
		_, err := s.Resolve(ctx, q.ID, timeout(given))
		wantErr(t, fmt.Sprintf("Resolve built on %d answered prompts, with 1 answered", given), err, broker.ErrConflict)
	}
	sameQuestion(t, "Get after refused conditional Resolves", mustGet(t, s, q.ID), q)

	a := broker.Answer{CustomText: "später", Selected: []string{}, AnsweredBy: &broker.Responder{Channel: "web", User: "ana"}}
	saved, err := s.SaveProgress(ctx, q.ID, 2, a)
	if err != nil {
		t.Fatalf("SaveProgress(2): %v", err)
	}
	_, err = s.Resolve(ctx, q.ID, timeout(1))
	wantErr(t, "Resolve built on 1 answered prompt after a second was saved", err, broker.ErrConflict)
	sameQuestion(t, "Get after the stale Resolve", mustGet(t, s, q.ID), saved)

	r := timeout(2)
	want := saved.Clone()
	want.Status, want.Fallback, want.ResolvedAt = r.Status, r.Fallback, r.ResolvedAt
	sameQuestion(t, "Resolve built on the current progress", mustResolve(t, s, q.ID, r), want)
	evs, err := s.Events(ctx, "", 0, 1000)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	if len(evs) != 1 || evs[0].QuestionID != q.ID || evs[0].Status != broker.StatusTimedOut {
		t.Fatalf("Events after refused and one applied conditional Resolve = %+v, want one timed_out for %s", evs, q.ID)
	}
}

func testResolveState(t *testing.T, s broker.Store) {
	now := baseTime()
	q := FullQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, q)
	r := broker.Resolution{
		Status: broker.StatusAnswered,
		Answers: map[string]broker.Answer{
			q.Prompts[0].Question: {Selected: []string{"SQLite"}, Action: broker.ActionEndTurn, Prefill: "use sqlite\nplease", AnsweredBy: &broker.Responder{Channel: "telegram", User: "42", Name: "Ana Łukasz"}},
			q.Prompts[1].Question: {Selected: []string{"Search", "Sync"}, Defaulted: true},
			q.Prompts[2].Question: {CustomText: "nein danke 🙂", Selected: []string{}, AnsweredBy: &broker.Responder{Channel: "slack", User: "U7", Name: "Bø"}},
		},
		AnsweredBy: &broker.Responder{Channel: "telegram", User: "42", Name: "Ana Łukasz"},
		ResolvedAt: now.Add(1500 * time.Millisecond),
	}
	want := q.Clone()
	want.Status, want.Answers, want.AnsweredBy, want.ResolvedAt = r.Status, r.Answers, r.AnsweredBy, r.ResolvedAt
	got := mustResolve(t, s, q.ID, r)
	sameQuestion(t, "Resolve result", got, want)
	sameQuestion(t, "Get after Resolve", mustGet(t, s, q.ID), want)
}

func testResolveStatuses(t *testing.T, s broker.Store) {
	now := baseTime()
	cases := []broker.Resolution{
		{Status: broker.StatusDeclined, Reason: "not now", NotReady: true, AnsweredBy: &broker.Responder{Channel: "slack", User: "U1"}},
		{Status: broker.StatusCancelled, Reason: "session ended"},
		{Status: broker.StatusTimedOut, Fallback: broker.FallbackDefault, Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}, Defaulted: true}}},
		{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone},
		{Status: broker.StatusUnsupported, Reason: "no channel can reach web"},
	}
	for i, r := range cases {
		t.Run(fmt.Sprintf("%s_%d", r.Status, i), func(t *testing.T) {
			q := NewQuestion(broker.NewID(), "a1", now)
			mustCreate(t, s, q)
			r.ResolvedAt = now.Add(time.Duration(i+1) * time.Second)
			want := q.Clone()
			want.Status, want.Answers, want.Fallback, want.Reason = r.Status, r.Answers, r.Fallback, r.Reason
			want.NotReady, want.AnsweredBy, want.ResolvedAt = r.NotReady, r.AnsweredBy, r.ResolvedAt
			sameQuestion(t, "Resolve result", mustResolve(t, s, q.ID, r), want)
			sameQuestion(t, "Get after Resolve", mustGet(t, s, q.ID), want)
		})
	}
}

func testResolveRace(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	q.CallbackURL = "https://agent.example/cb"
	mustCreate(t, s, q)

	const n = 100
	type outcome struct {
		q   *broker.Question
		err error
	}
	out := make([]outcome, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r := answeredAt(now.Add(time.Duration(i)*time.Millisecond), fmt.Sprintf("choice-%d", i))
			r.AnsweredBy = &broker.Responder{Channel: "web", User: fmt.Sprintf("u%d", i)}
			got, err := s.Resolve(ctx, q.ID, r)
			out[i] = outcome{got, err}
		}()
	}
	close(start)
	wg.Wait()

	winner := -1
	for i, o := range out {
		if o.err == nil {
			if winner >= 0 {
				t.Fatalf("Resolve succeeded for both #%d and #%d", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no Resolve of %d succeeded; first error: %v", n, out[0].err)
	}
	won := out[winner].q
	if won.Status != broker.StatusAnswered || won.AnsweredBy == nil || won.AnsweredBy.User != fmt.Sprintf("u%d", winner) {
		t.Fatalf("winner's result = %+v, want answered by u%d", won, winner)
	}
	for i, o := range out {
		if i == winner {
			continue
		}
		var ce *broker.ClosedError
		if !errors.As(o.err, &ce) || !errors.Is(o.err, broker.ErrClosed) {
			t.Fatalf("loser #%d: err = %v, want a *broker.ClosedError", i, o.err)
		}
		sameQuestion(t, fmt.Sprintf("loser #%d's ClosedError.Question", i), ce.Question, won)
	}
	sameQuestion(t, "Get after the race", mustGet(t, s, q.ID), won)

	evs, err := s.Events(ctx, "", 0, 1000)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	if len(evs) != 1 || evs[0].QuestionID != q.ID {
		t.Fatalf("Events after %d racing Resolves = %+v, want exactly one for %s", n, evs, q.ID)
	}
	ds, err := s.Deliveries(ctx, q.ID)
	if err != nil {
		t.Fatalf("Deliveries: %v", err)
	}
	if len(ds) != 1 {
		t.Fatalf("Deliveries after %d racing Resolves: %d, want exactly 1", n, len(ds))
	}
}

func testResolveClosed(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, q)
	won := mustResolve(t, s, q.ID, answeredAt(now.Add(time.Second), "Postgres"))
	later := []broker.Resolution{
		answeredAt(now.Add(2*time.Second), "SQLite"),
		{Status: broker.StatusCancelled, Reason: "too late", ResolvedAt: now.Add(3 * time.Second)},
		{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now.Add(4 * time.Second)},
	}
	for _, r := range later {
		_, err := s.Resolve(ctx, q.ID, r)
		var ce *broker.ClosedError
		if !errors.As(err, &ce) {
			t.Fatalf("Resolve(%s) of a closed question: err = %v, want *broker.ClosedError", r.Status, err)
		}
		sameQuestion(t, "ClosedError.Question", ce.Question, won)
	}
	sameQuestion(t, "Get after late Resolves", mustGet(t, s, q.ID), won)
}

func testResolveUnknown(t *testing.T, s broker.Store) {
	_, err := s.Resolve(context.Background(), "zzzzzz", answeredAt(baseTime(), "Postgres"))
	wantErr(t, "Resolve(unknown)", err, broker.ErrNotFound)
}

var progressTests = []storeTest{
	{"SaveProgressFirstAnswerWins", testSaveProgress},
	{"SaveProgressClosed", testSaveProgressClosed},
	{"SaveProgressBadInput", testSaveProgressBad},
	{"SetSelection", testSetSelection},
}

func wantProgress(t *testing.T, what string, q *broker.Question, i int, want *broker.Answer) {
	t.Helper()
	g, _ := json.Marshal(q.Given(i))
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s: progress[%d] = %s, want %s", what, i, g, w)
	}
}

func testSaveProgress(t *testing.T, s broker.Store) {
	ctx := context.Background()
	q := FullQuestion(broker.NewID(), "a1", baseTime())
	q.Progress = nil
	mustCreate(t, s, q)
	a := broker.Answer{Selected: []string{"Postgres (Recommended)"}, AnsweredBy: &broker.Responder{Channel: "discord", User: "1234", Name: "Ana Łukasz"}}
	b := broker.Answer{Selected: []string{"SQLite"}}
	c := broker.Answer{CustomText: "später"}

	got, err := s.SaveProgress(ctx, q.ID, 0, a)
	if err != nil {
		t.Fatalf("SaveProgress(0): %v", err)
	}
	wantProgress(t, "SaveProgress(0) result", got, 0, &a)
	wantProgress(t, "SaveProgress(0) result", got, 1, nil)
	if got.Status != broker.StatusPending {
		t.Fatalf("SaveProgress changed the status to %s", got.Status)
	}

	_, err = s.SaveProgress(ctx, q.ID, 0, b)
	wantErr(t, "second SaveProgress on prompt 0", err, broker.ErrConflict)
	wantProgress(t, "Get after the conflicting SaveProgress", mustGet(t, s, q.ID), 0, &a)

	got, err = s.SaveProgress(ctx, q.ID, 2, c)
	if err != nil {
		t.Fatalf("SaveProgress(2): %v", err)
	}
	wantProgress(t, "SaveProgress(2) result", got, 0, &a)
	wantProgress(t, "SaveProgress(2) result", got, 2, &c)
	stored := mustGet(t, s, q.ID)
	wantProgress(t, "Get", stored, 0, &a)
	wantProgress(t, "Get", stored, 1, nil)
	wantProgress(t, "Get", stored, 2, &c)
	sameQuestion(t, "SaveProgress result and Get", got, stored)
}

func testSaveProgressClosed(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := FullQuestion(broker.NewID(), "a1", now)
	q.Progress = nil
	mustCreate(t, s, q)
	won := mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now})
	_, err := s.SaveProgress(ctx, q.ID, 0, broker.Answer{Selected: []string{"SQLite"}})
	var ce *broker.ClosedError
	if !errors.As(err, &ce) {
		t.Fatalf("SaveProgress on a closed question: err = %v, want *broker.ClosedError", err)
	}
	sameQuestion(t, "ClosedError.Question", ce.Question, won)
	sameQuestion(t, "Get", mustGet(t, s, q.ID), won)

	_, err = s.SaveProgress(ctx, "zzzzzz", 0, broker.Answer{})
	wantErr(t, "SaveProgress(unknown)", err, broker.ErrNotFound)
}

func testSaveProgressBad(t *testing.T, s broker.Store) {
	ctx := context.Background()
	q := NewQuestion(broker.NewID(), "a1", baseTime())
	mustCreate(t, s, q)
	for _, i := range []int{-1, 1, 7} {
		if _, err := s.SaveProgress(ctx, q.ID, i, broker.Answer{CustomText: "x"}); err == nil {
			t.Fatalf("SaveProgress(prompt %d) of a one-prompt question: no error", i)
		}
	}
	sameQuestion(t, "Get after refused SaveProgress", mustGet(t, s, q.ID), q)
}

func testSetSelection(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := FullQuestion(broker.NewID(), "a1", now)
	q.Selections = nil
	mustCreate(t, s, q)
	steps := []struct {
		prompt int
		opts   []int
		want   map[int][]int
	}{
		{1, []int{0}, map[int][]int{1: {0}}},
		{1, []int{0, 2}, map[int][]int{1: {0, 2}}},
		{0, []int{1}, map[int][]int{0: {1}, 1: {0, 2}}},
		{1, []int{2}, map[int][]int{0: {1}, 1: {2}}},
	}
	for i, st := range steps {
		got, err := s.SetSelection(ctx, q.ID, st.prompt, st.opts)
		if err != nil {
			t.Fatalf("step %d: SetSelection: %v", i, err)
		}
		if fmt.Sprint(got.Selections) != fmt.Sprint(st.want) {
			t.Fatalf("step %d: SetSelection result selections = %v, want %v", i, got.Selections, st.want)
		}
		if g := mustGet(t, s, q.ID); fmt.Sprint(g.Selections) != fmt.Sprint(st.want) {
			t.Fatalf("step %d: stored selections = %v, want %v", i, g.Selections, st.want)
		}
	}
	got, err := s.SetSelection(ctx, q.ID, 1, nil)
	if err != nil {
		t.Fatalf("SetSelection(nil): %v", err)
	}
	if len(got.Selections[1]) != 0 || fmt.Sprint(got.Selections[0]) != "[1]" {
		t.Fatalf("after clearing prompt 1: selections = %v, want prompt 0 [1] and prompt 1 empty", got.Selections)
	}

	mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now})
	_, err = s.SetSelection(ctx, q.ID, 1, []int{1})
	wantErr(t, "SetSelection on a closed question", err, broker.ErrClosed)
	_, err = s.SetSelection(ctx, "zzzzzz", 1, []int{1})
	wantErr(t, "SetSelection(unknown)", err, broker.ErrNotFound)
}

package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Resolve reads no row for a question whose text this process wrote and
// nobody changed since; when another process on the file changed or
// resolved it meanwhile, the compare-and-set on the text refuses, and the
// resolution is decided on the row, as it would have been without the
// kept copy.
func TestResolveReadsNoRowItKeeps(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	open := func() *sqlite.Store {
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	here, elsewhere := open(), open()
	now := time.Now().UTC().Truncate(time.Millisecond)
	create := func() *broker.Question {
		t.Helper()
		q := brokertest.FullQuestion(broker.NewID(), broker.NewID(), now)
		if _, created, err := here.Create(ctx, q, nil); err != nil || !created {
			t.Fatalf("Create: %v (created %v)", err, created)
		}
		return q
	}
	answer := func(tag string) broker.Resolution {
		return broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now, AnsweredBy: &broker.Responder{Channel: "slack", User: tag},
			Answers: map[string]broker.Answer{"Which features?": {Selected: []string{tag}}}}
	}
	loaded := func(t *testing.T, want int64, do func()) {
		t.Helper()
		before := sqlite.RowsLoaded(here)
		do()
		if n := sqlite.RowsLoaded(here) - before; n != want {
			t.Fatalf("the resolution read %d rows, want %d", n, want)
		}
	}

	t.Run("Unchanged", func(t *testing.T) {
		q := create()
		loaded(t, 0, func() {
			got, err := here.Resolve(ctx, q.ID, answer("ana"))
			if err != nil || got.Status != broker.StatusAnswered || got.AnsweredBy.User != "ana" {
				t.Fatalf("Resolve: %+v, %v", got, err)
			}
		})
		stored, err := elsewhere.Get(ctx, q.ID)
		if err != nil || stored.Status != broker.StatusAnswered || stored.AnsweredBy.User != "ana" || stored.ProgressCount() != 1 {
			t.Fatalf("stored: %+v, %v", stored, err)
		}
	})
	t.Run("ChangedElsewhere", func(t *testing.T) {
		q := create()
		if _, err := elsewhere.SaveProgress(ctx, q.ID, 2, broker.Answer{CustomText: "nothing else"}); err != nil {
			t.Fatal(err)
		}
		loaded(t, 1, func() {
			got, err := here.Resolve(ctx, q.ID, answer("ana"))
			if err != nil || got.Status != broker.StatusAnswered {
				t.Fatalf("Resolve: %+v, %v", got, err)
			}
			if got.ProgressCount() != 2 || got.Progress[2] == nil || got.Progress[2].CustomText != "nothing else" {
				t.Fatalf("the resolution lost the progress saved elsewhere: %+v", got.Progress)
			}
		})
		stored, err := here.Get(ctx, q.ID)
		if err != nil || stored.ProgressCount() != 2 || stored.Status != broker.StatusAnswered {
			t.Fatalf("stored: %+v, %v", stored, err)
		}
	})
	t.Run("ResolvedElsewhere", func(t *testing.T) {
		q := create()
		if _, err := elsewhere.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "plans changed", ResolvedAt: now}); err != nil {
			t.Fatal(err)
		}
		loaded(t, 1, func() {
			_, err := here.Resolve(ctx, q.ID, answer("ana"))
			var closed *broker.ClosedError
			if !errors.As(err, &closed) || closed.Question.Status != broker.StatusCancelled || closed.Question.Reason != "plans changed" {
				t.Fatalf("Resolve after a resolution elsewhere: %v, want it closed as cancelled", err)
			}
		})
	})
	t.Run("ConditionMetOnlyOnTheRow", func(t *testing.T) {
		q := create()
		if _, err := elsewhere.SaveProgress(ctx, q.ID, 2, broker.Answer{CustomText: "nothing else"}); err != nil {
			t.Fatal(err)
		}
		// The kept copy has one prompt answered, the row two.
		two := 2
		r := answer("ana")
		r.IfProgress = &two
		loaded(t, 1, func() {
			if got, err := here.Resolve(ctx, q.ID, r); err != nil || got.Status != broker.StatusAnswered {
				t.Fatalf("Resolve if two prompts are answered: %+v, %v", got, err)
			}
		})
	})
	t.Run("ConditionFailsOnTheRow", func(t *testing.T) {
		q := create()
		one := 1
		r := answer("ana")
		r.IfProgress = &one
		if _, err := elsewhere.SaveProgress(ctx, q.ID, 2, broker.Answer{CustomText: "nothing else"}); err != nil {
			t.Fatal(err)
		}
		loaded(t, 1, func() {
			if _, err := here.Resolve(ctx, q.ID, r); !errors.Is(err, broker.ErrConflict) {
				t.Fatalf("Resolve if one prompt is answered, with two: %v, want a conflict", err)
			}
		})
	})
}

// With questions resolved as fast as new ones are asked, the kept texts
// stay those of the pending questions: a resolution's entry goes with it,
// so no pending question's is pushed out and read again at its
// resolution, however many questions pass through.
func TestResolveKeepsFindingPendingQuestions(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	const inFlight, total = 100, 3000
	ids := make([]string, total)
	r := broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now}
	before := sqlite.RowsLoaded(s)
	for i := range ids {
		ids[i] = broker.NewID()
		if _, _, err := s.Create(ctx, brokertest.NewQuestion(ids[i], "agent", now), nil); err != nil {
			t.Fatal(err)
		}
		if i >= inFlight {
			if _, err := s.Resolve(ctx, ids[i-inFlight], r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := sqlite.RowsLoaded(s) - before; n != 0 {
		t.Fatalf("%d of %d resolutions read their row", n, total-inFlight)
	}
}

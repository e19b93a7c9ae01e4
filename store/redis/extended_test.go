package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestExtendedEventAfterACrash leaves the mark of a snooze's extended
// event behind, as a crash between the amend script and the logging of
// the event does, with the event logged or not: Due's repair logs each
// snooze's event exactly once and drops the mark.
func TestExtendedEventAfterACrash(t *testing.T) {
	for _, lost := range []bool{false, true} {
		name := map[bool]string{false: "logged", true: "lost"}[lost]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, redistest.Shared(t))
			now := time.Now().UTC().Truncate(time.Millisecond)
			q, _, err := s.Create(ctx, brokertest.NewQuestion(broker.NewID(), "a1", now), nil)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			next := q.ExpiresAt.Add(time.Hour)
			st := broker.PolicyState{Snoozes: []broker.Snooze{{By: broker.Responder{Channel: "slack", User: "U1"}, At: now, ExpiresAt: next}}}
			if _, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: st, ExpiresAt: next, Extended: true}); err != nil {
				t.Fatalf("snooze: %v", err)
			}
			if err := s.LeaveExtendedMark(ctx, q.ID, "a1", 1, lost); err != nil {
				t.Fatalf("leave the mark: %v", err)
			}
			for range 2 {
				s.RepairExtendedNow(ctx)
			}
			evs, err := s.Events(ctx, "a1", 0, 100)
			if err != nil {
				t.Fatalf("Events: %v", err)
			}
			if len(evs) != 1 || evs[0].Type != broker.EventExtended || evs[0].Extension == nil || evs[0].Extension.Snoozes != 1 || !evs[0].Extension.ExpiresAt.Equal(next) {
				t.Fatalf("events after the repair = %+v, want the one extended event of the snooze, to %v", evs, next)
			}
		})
	}
}

package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestFollowWakesOnlyTheAgent: resolutions of one agent's questions wake
// that agent's followers and no other's. Run handles the feed in order, so
// once a follower of a third agent hears of a later resolution, every
// earlier one was handled.
func TestFollowWakesOnlyTheAgent(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	busy, stopBusy := e.b.Follow("busy")
	defer stopBusy()
	idle, stopIdle := e.b.Follow("idle")
	defer stopIdle()
	marker, stopMarker := e.b.Follow("marker")
	defer stopMarker()

	ask := func(agent string) *broker.Question {
		t.Helper()
		q, _, err := e.b.Ask(ctx, agent, dbQuestion())
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	cancel := func(q *broker.Question) {
		t.Helper()
		if _, err := e.b.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
			t.Fatal(err)
		}
	}
	heard := func(what string, c <-chan struct{}) {
		t.Helper()
		select {
		case <-c:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s heard nothing", what)
		}
	}
	for range 20 {
		cancel(ask("busy"))
	}
	heard("the busy agent's follower", busy)
	cancel(ask("marker"))
	heard("the marker's follower", marker)
	select {
	case <-idle:
		t.Fatal("the idle agent's follower was woken by another agent's resolutions")
	default:
	}
	cancel(ask("idle"))
	heard("the idle agent's follower, for its own question", idle)

	// A stopped follower hears nothing more, and the others go on.
	select {
	case <-busy: // a signal left from the busy agent's resolutions
	default:
	}
	stopBusy()
	cancel(ask("busy"))
	cancel(ask("marker"))
	heard("the marker's follower", marker)
	select {
	case <-busy:
		t.Fatal("a stopped follower was woken")
	default:
	}
}

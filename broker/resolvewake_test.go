package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
)

// lateResolver is the SQLite store, counting its reads, whose Resolve
// returns a millisecond after the store has published the resolution on
// its feed: a busy machine may hold the resolving goroutine that long.
type lateResolver struct{ *readCounter }

func (s lateResolver) Resolve(ctx context.Context, id string, r broker.Resolution) (*broker.Question, error) {
	q, err := s.readCounter.Resolve(ctx, id, r)
	time.Sleep(time.Millisecond)
	return q, err
}

// TestLocalResolutionHandsQuestionToWaiters: a question answered on this
// instance reaches its waiter as answered, without the waiter reading it
// back from the store. The store publishes the resolution on its feed
// before its Resolve returns, so the feed's wake (which carries no
// question) must not reach the waiter first.
func TestLocalResolutionHandsQuestionToWaiters(t *testing.T) {
	b, st := newTextEnvOn(t, func(st *readCounter) broker.Store { return lateResolver{st} })
	ctx := context.Background()

	const rounds = 20
	for i := range rounds {
		q, _, err := b.Ask(ctx, "agent", dbQuestion())
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan *broker.Question, 1)
		go func() {
			w, err := b.Wait(ctx, "agent", q.ID)
			if err != nil {
				t.Errorf("Wait: %v", err)
			}
			got <- w
		}()
		for deadline := time.Now().Add(10 * time.Second); b.Waiting() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the wait did not register")
			}
		}
		before := st.gets.Load()
		r := b.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"})
		if !r.OK {
			t.Fatalf("answer refused: %s", r.Text)
		}
		w := <-got
		if w == nil || w.Status != broker.StatusAnswered {
			t.Fatalf("round %d: the wait returned %+v, want the question answered", i, w)
		}
		if n := st.gets.Load() - before; n != 0 {
			t.Fatalf("round %d: the question was read back %d times after the answer, want 0: the resolving call hands it over", i, n)
		}
	}
}

package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite"
)

// readCounter is the real SQLite store, counting the questions the
// broker reads back from it.
type readCounter struct {
	*sqlite.Store
	gets atomic.Int64
}

func (s *readCounter) Get(ctx context.Context, id string) (*broker.Question, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, id)
}

// newTextEnv is a broker on a SQLite file whose default route posts to
// the text channel, made in-process as the bridge's default configuration
// makes it: the cycle of askbench, without HTTP.
func newTextEnv(tb testing.TB) (*broker.Broker, *readCounter) {
	tb.Helper()
	return newTextEnvOn(tb, func(st *readCounter) broker.Store { return st })
}

// newTextEnvOn is newTextEnv with the broker on wrap(st) instead of st.
func newTextEnvOn(tb testing.TB, wrap func(*readCounter) broker.Store) (*broker.Broker, *readCounter) {
	tb.Helper()
	return newTextEnvAt(tb, wrap, nil)
}

// newTextEnvAt is newTextEnvOn with the broker's clock now (time.Now
// when nil).
func newTextEnvAt(tb testing.TB, wrap func(*readCounter) broker.Store, now func() time.Time) (*broker.Broker, *readCounter) {
	tb.Helper()
	sq, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "b.db"))
	if err != nil {
		tb.Fatal(err)
	}
	st := &readCounter{Store: sq}
	tb.Cleanup(func() { sq.Close() })
	b, err := broker.New(broker.Config{
		Store:  wrap(st),
		Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: cli.Name}}}},
		Logger: slog.New(slog.DiscardHandler),
		Now:    now,
	})
	if err != nil {
		tb.Fatal(err)
	}
	b.Register(&cli.Channel{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done; b.Close() })
	return b, st
}

// BenchmarkAnswerCycle is one ask–answer–read cycle as askbench drives
// it, one at a time: the ask, the agent's wait (started before the
// answer, as a long-poll usually is), the answer command. It reports the
// questions read back from the store per cycle and the process CPU per
// cycle beside the usual figures.
func BenchmarkAnswerCycle(b *testing.B) {
	br, st := newTextEnv(b)
	ctx := context.Background()
	b.ReportAllocs()
	st.gets.Store(0)
	cpu0 := testutil.CPUTime(b)
	b.ResetTimer()
	for range b.N {
		q, _, err := br.Ask(ctx, "agent", dbQuestion())
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan *broker.Question, 1)
		waiting := make(chan struct{})
		go func() {
			close(waiting)
			got, _ := br.Wait(ctx, "agent", q.ID)
			done <- got
		}()
		<-waiting
		r := br.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"})
		if !r.OK {
			b.Fatalf("answer refused: %s", r.Text)
		}
		if got := <-done; got == nil || got.Status != broker.StatusAnswered {
			b.Fatalf("waiter saw %+v", got)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(st.gets.Load())/float64(b.N), "gets/op")
	b.ReportMetric(float64(testutil.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

package redis_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// leaderLog records which instance leads, for the elector tests.
type leaderLog struct {
	mu      sync.Mutex
	current map[string]bool
	runs    map[string]int
}

func newLeaderLog() *leaderLog {
	return &leaderLog{current: map[string]bool{}, runs: map[string]int{}}
}

func (l *leaderLog) fn(name string) func(ctx context.Context) {
	return func(ctx context.Context) {
		l.mu.Lock()
		l.current[name] = true
		l.runs[name]++
		l.mu.Unlock()
		<-ctx.Done()
		l.mu.Lock()
		l.current[name] = false
		l.mu.Unlock()
	}
}

func (l *leaderLog) leading(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current[name]
}

func (l *leaderLog) leaders() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, on := range l.current {
		if on {
			n++
		}
	}
	return n
}

// TestElectorFailover: two instances on one Redis, ttl 2s. The first
// leads; it dies without releasing (its client closes, as with kill -9);
// the second takes over once the lease runs out. Each renewal has a third
// of the ttl to complete: with a shorter ttl a busy machine that delays
// one renewal past that ends the lease of a living leader, as it should,
// and the test would read it as a second leader.
func TestElectorFailover(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	const ttl = 2 * time.Second
	ca := goredis.NewClient(&goredis.Options{Addr: addr})
	cb := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { _ = cb.Close() })
	log := newLeaderLog()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()

	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = redisstore.NewElector(ca, "a", ttl).RunAsLeader(ctx, "poller", log.fn("a"))
	}()
	eventually(t, 5*time.Second, "a leads", func() bool { return log.leading("a") })
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = redisstore.NewElector(cb, "b", ttl).RunAsLeader(ctx, "poller", log.fn("b"))
	}()
	// b must not lead while a holds the lease.
	for range 10 {
		time.Sleep(ttl / 5)
		if log.leading("b") {
			t.Fatal("b leads while a holds the lease")
		}
	}

	_ = ca.Close() // a dies: no release, no renewal
	eventually(t, 10*ttl, "b leads after a died", func() bool { return log.leading("b") })
	eventually(t, 10*ttl, "a's fn stopped after its lease was lost", func() bool { return !log.leading("a") })
	if n := log.leaders(); n != 1 {
		t.Fatalf("%d leaders, want 1", n)
	}
}

// TestElectorRelease: a leader that stops (ctx ends) releases the lease at
// once, so another takes over well before the ttl would run out.
func TestElectorRelease(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	const ttl = 30 * time.Second
	log := newLeaderLog()
	actx, acancel := context.WithCancel(context.Background())
	bctx, bcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { acancel(); bcancel(); wg.Wait() }()
	var aReturned atomic.Bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		_ = redisstore.NewElector(c, "a", ttl).RunAsLeader(actx, "job", log.fn("a"))
		aReturned.Store(true)
	}()
	eventually(t, 5*time.Second, "a leads", func() bool { return log.leading("a") })
	go func() {
		defer wg.Done()
		// A short ttl for b makes it retry often; the lease key is shared.
		_ = redisstore.NewElector(c, "b", 300*time.Millisecond).RunAsLeader(bctx, "job", log.fn("b"))
	}()
	acancel()
	eventually(t, 5*time.Second, "RunAsLeader of a returned", aReturned.Load)
	eventually(t, 5*time.Second, "b leads after a released", func() bool { return log.leading("b") })
}

// TestElectorLostLease: when another instance overwrites the lease (a
// split brain healed by an operator), the old leader's fn is cancelled.
func TestElectorLostLease(t *testing.T) {
	cfg := redistest.Shared(t)
	s := open(t, cfg)
	log := newLeaderLog()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = s.Elector("a", 300*time.Millisecond).RunAsLeader(ctx, "job", log.fn("a"))
	}()
	eventually(t, 5*time.Second, "a leads", func() bool { return log.leading("a") })
	if err := s.Client().Set(ctx, cfg.KeyPrefix+"leader:job", "intruder", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "a's fn cancelled", func() bool { return !log.leading("a") })
}

package redis_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// roundTrips counts the client's round trips (one per command, one per
// pipeline) and the commands it sends.
type roundTrips struct{ n, cmds atomic.Int64 }

func (r *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) { return next(ctx, network, addr) }
}

func (r *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error { r.n.Add(1); r.cmds.Add(1); return next(ctx, cmd) }
}

func (r *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		r.n.Add(1)
		r.cmds.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// commandCalls sums the calls in INFO commandstats, leaving out the
// commands of measurement and of the feed's keep-alive.
func commandCalls(tb testing.TB, c *goredis.Client) int64 {
	tb.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var total int64
	for line := range strings.SplitSeq(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		switch strings.TrimPrefix(name, "cmdstat_") {
		case "info", "ping", "subscribe", "memory", "hello", "client|setname", "client|setinfo", "config|get", "script|load", "flushall":
			continue
		}
		for kv := range strings.SplitSeq(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total
}

func usedMemory(tb testing.TB, c *goredis.Client) int64 {
	tb.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	tb.Fatal("no used_memory in INFO memory")
	return 0
}

// fourOptions is a typical pending question: one prompt, four options
// with descriptions, a session, a tool call id and a lease-free deadline.
func fourOptions(now time.Time) *broker.Question {
	q := brokertest.NewQuestion(broker.NewID(), "claude-code", now)
	q.SessionID = "sess-" + broker.NewID()
	q.ToolCallID = "toolu_" + broker.NewID() + broker.NewID()
	q.Prompts[0].Options = []broker.Option{
		{Label: "Postgres (Recommended)", Description: "Relational, proven"},
		{Label: "SQLite", Description: "Embedded, zero set-up"},
		{Label: "MySQL", Description: "Widely hosted"},
		{Label: "DynamoDB", Description: "Managed key-value"},
	}
	q.Targets = []broker.Target{{Channel: "telegram", Chat: "-1001234567890"}}
	q.Reminders = []time.Time{now.Add(15 * time.Minute), now.Add(27 * time.Minute)}
	return q
}

// createFresh creates q, under a new id whenever its id is taken, as the
// broker does: ids are six characters, so among the thousands of
// questions of a benchmark two random ones meet now and then.
func createFresh(s *redisstore.Store, q *broker.Question) error {
	_, _, err := s.Create(context.Background(), q, nil)
	for errors.Is(err, broker.ErrIDTaken) {
		q.ID = broker.NewID()
		_, _, err = s.Create(context.Background(), q, nil)
	}
	return err
}

// cycle runs Create + AddMessage + Resolve + Get of one question.
func cycle(tb testing.TB, s *redisstore.Store, idempotent bool, i int) {
	ctx := context.Background()
	q := fourOptions(time.Now())
	if !idempotent {
		q.ToolCallID = ""
	}
	if err := createFresh(s, q); err != nil {
		tb.Fatal(err)
	}
	m := broker.MessageRef{Channel: "telegram", Chat: "-1001234567890", MessageID: strconv.Itoa(i), PostedAt: time.Now()}
	if err := s.AddMessage(ctx, q.ID, m); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusAnswered,
		Answers:    map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}},
		AnsweredBy: &broker.Responder{Channel: "telegram", User: "42", Name: "ana"}}); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Get(ctx, q.ID); err != nil {
		tb.Fatal(err)
	}
}

// cycleStore opens a store on a private Redis with a round-trip counter
// on its client and an admin client, runs one cycle to load the scripts,
// and zeroes the counter. Everything is closed when b ends.
func cycleStore(b *testing.B, idempotent bool) (*redisstore.Store, *goredis.Client, *roundTrips) {
	b.Helper()
	addr, _ := redistest.StartServer(b)
	s, err := redisstore.Open(context.Background(), redisstore.Config{Addrs: []string{addr}}, quiet)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	b.Cleanup(func() { _ = admin.Close() })
	rt := &roundTrips{}
	s.Client().AddHook(rt)
	cycle(b, s, idempotent, -1) // loads the scripts
	rt.n.Store(0)
	rt.cmds.Store(0)
	return s, admin, rt
}

// BenchmarkCycle measures Create + AddMessage + Resolve + Get on a private
// Redis, and reports per cycle the round trips (commands and pipelines
// sent), the commands sent, and redis-calls (the INFO commandstats delta:
// every command Redis ran, including those inside scripts).
func BenchmarkCycle(b *testing.B) {
	for _, idem := range []bool{false, true} {
		name := "NoToolCallID"
		if idem {
			name = "WithToolCallID"
		}
		b.Run(name, func(b *testing.B) {
			s, admin, rt := cycleStore(b, idem)
			calls := commandCalls(b, admin)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				cycle(b, s, idem, i)
			}
			b.StopTimer()
			b.ReportMetric(float64(rt.n.Load())/float64(b.N), "roundtrips/op")
			b.ReportMetric(float64(rt.cmds.Load())/float64(b.N), "cmds/op")
			b.ReportMetric(float64(commandCalls(b, admin)-calls)/float64(b.N), "redis-calls/op")
		})
	}
}

// BenchmarkCycleParallel runs the cycle of BenchmarkCycle from 100
// goroutines at once (a hundred agents) on a private Redis, with the
// store's script batching (batch.go) and with every script sent alone,
// and reports round trips and Redis calls per cycle.
func BenchmarkCycleParallel(b *testing.B) {
	for _, c := range []struct {
		name     string
		inFlight int
	}{{"Batched", 0}, {"Alone", 1 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			s, admin, rt := cycleStore(b, true)
			if c.inFlight > 0 {
				s.SetScriptsInFlight(c.inFlight)
			}
			calls := commandCalls(b, admin)
			var seq atomic.Int64
			b.SetParallelism(max(1, 100/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					cycle(b, s, true, int(seq.Add(1)))
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(rt.n.Load())/float64(b.N), "roundtrips/op")
			b.ReportMetric(float64(commandCalls(b, admin)-calls)/float64(b.N), "redis-calls/op")
		})
	}
}

// BenchmarkPendingMemory creates one pending four-option question (with
// its index entries and one posted copy) per iteration and reports, per
// question, the sum of MEMORY USAGE over every key the store wrote
// (B/question: the record, its body, its index entries, its lookup and
// idempotency keys) and the growth of used_memory (used-B/question, which
// adds Redis's own keyspace tables). It runs with Redis's default
// hash-max-listpack-value (64) and with 128: the two agree while every
// value of the record, its post task's among them (taskvalue.go), fits
// the default, and the record stays a listpack.
func BenchmarkPendingMemory(b *testing.B) {
	for _, v := range []string{"64", "128"} {
		b.Run("listpack-value-"+v, func(b *testing.B) { pendingMemory(b, v) })
	}
}

func pendingMemory(b *testing.B, listpackValue string) {
	addr, _ := redistest.StartServer(b)
	s, err := redisstore.Open(context.Background(), redisstore.Config{Addrs: []string{addr}}, quiet)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	defer admin.Close()
	ctx := context.Background()
	if err := admin.ConfigSet(ctx, "hash-max-listpack-value", listpackValue).Err(); err != nil {
		b.Fatal(err)
	}
	before := usedMemory(b, admin)
	for i := 0; b.Loop(); i++ {
		q := fourOptions(time.Now())
		if err := createFresh(s, q); err != nil {
			b.Fatal(err)
		}
		m := broker.MessageRef{Channel: "telegram", Chat: "-1001234567890", MessageID: strconv.Itoa(1000000 + i), PostedAt: time.Now()}
		if err := s.AddMessage(ctx, q.ID, m); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	used := usedMemory(b, admin) - before
	var total int64
	iter := admin.Scan(ctx, 0, "askbridge:*", 1000).Iterator()
	for iter.Next(ctx) {
		n, err := admin.Do(ctx, "memory", "usage", iter.Val(), "samples", "0").Int64()
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
	if err := iter.Err(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(total)/float64(b.N), "B/question")
	b.ReportMetric(float64(used)/float64(b.N), "used-B/question")
}

// TestCycleRoundTrips keeps the round-trip budget of a full ask -> answer
// cycle on a single server: at most 4, with or without an idempotency key
// (the key is reserved in the same script that writes the record, and the
// event is logged by the script that resolves).
// Sentinel and Cluster are measured by their conformance tests.
func TestCycleRoundTrips(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	testCycleRoundTrips(t, redisstore.Config{Addrs: []string{addr}}, 4, 4)
}

// testCycleRoundTrips counts the client round trips of one cycle without
// and with a tool call id; the first must take at most maxPlain, the
// second at most maxIdem. (On Cluster each takes one more than elsewhere:
// counting the question among its agent's pending ones is a step of its
// own there.)
func testCycleRoundTrips(t *testing.T, cfg redisstore.Config, maxPlain, maxIdem int64) {
	s := open(t, cfg)
	if err := s.LoadScripts(context.Background()); err != nil {
		t.Fatal(err)
	}
	rt := &roundTrips{}
	s.Client().AddHook(rt)
	cycle(t, s, false, -1) // opens the connections
	cycle(t, s, true, -1)
	for _, c := range []struct {
		name       string
		idempotent bool
		max        int64
	}{{"NoToolCallID", false, maxPlain}, {"WithToolCallID", true, maxIdem}} {
		t.Run(c.name, func(t *testing.T) {
			rt.n.Store(0)
			cycle(t, s, c.idempotent, 1)
			if got := rt.n.Load(); got > c.max {
				t.Fatalf("cycle took %d round trips, want at most %d", got, c.max)
			}
			t.Logf("%d round trips", rt.n.Load())
		})
	}
}

// TestDefaultCycleCalls keeps the Redis calls of the cycle bridge serve
// makes on its defaults (docs/benchmarks.md): an ask with a session, a
// tool call id, a deadline, two reminders and copies in the web inbox and
// the terminal, under the agent's pending cap, then its answer. Create
// records the copies, so no AddMessage follows; the agent's read of the
// answer is served by the broker. Counted with INFO commandstats on a
// private server (calls inside scripts included) over 320 cycles, after
// 200 that renew the index keys' TTLs in every shard. 30 calls, and about
// 0.5 of trims by age; 5 of them keep the audit trail: Create opens it
// with one RPUSH, one ZADD to the export index and one PEXPIRE, Resolve
// appends to it with one RPUSH and one ZADD; 6 keep the inboxes
// (inbox.go): Create adds each of the two copies to its channel's open
// set, Resolve moves each from the open set to the resolved one.
func TestDefaultCycleCalls(t *testing.T) {
	const budget = 30.6
	addr, _ := redistest.StartServer(t)
	s := open(t, redisstore.Config{Addrs: []string{addr}})
	if err := s.LoadScripts(context.Background()); err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	defer admin.Close()
	ctx := context.Background()
	web, term := broker.Target{Channel: "web"}, broker.Target{Channel: "cli"}
	one := func(i int) {
		now := time.Now()
		q := brokertest.NewQuestion(broker.NewID(), "local", now)
		q.SessionID = "session-1"
		q.ToolCallID = "call-" + strconv.Itoa(i)
		q.Targets = []broker.Target{web, term}
		q.ExpiresAt = now.Add(30 * time.Minute).Truncate(time.Millisecond)
		q.Reminders = []time.Time{now.Add(15 * time.Minute), now.Add(27 * time.Minute)}
		if _, _, err := s.CreateCapped(ctx, q, q.Targets, 1000); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusAnswered,
			Answers:    map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"Postgres"}}},
			AnsweredBy: &broker.Responder{Channel: "cli", User: "u", Name: "u"}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 200 {
		one(-1 - i) // renews the index keys of every shard
	}
	before := commandCalls(t, admin)
	const n = 320
	for i := 1; i <= n; i++ {
		one(i)
	}
	per := float64(commandCalls(t, admin)-before) / n
	t.Logf("%.2f Redis calls per cycle", per)
	if per > budget {
		t.Fatalf("%.2f Redis calls per cycle, want at most %.1f", per, budget)
	}
}

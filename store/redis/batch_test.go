package redis_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// sends counts the scripts a client sends: alone and in pipelines, with
// each pipeline's number of scripts.
type sends struct {
	mu        sync.Mutex
	alone     []string
	pipelines []int
}

func (s *sends) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// scripts counts only the scripts sent (EVALSHA, EVAL), not the
// commands a new connection starts with.
func scripts(cmds ...goredis.Cmder) int {
	n := 0
	for _, c := range cmds {
		if name := c.Name(); name == "evalsha" || name == "eval" {
			n++
		}
	}
	return n
}

func (s *sends) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if scripts(cmd) == 1 {
			s.mu.Lock()
			s.alone = append(s.alone, cmd.Name())
			s.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

func (s *sends) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		if n := scripts(cmds...); n > 0 {
			s.mu.Lock()
			s.pipelines = append(s.pipelines, n)
			s.mu.Unlock()
		}
		return next(ctx, cmds)
	}
}

func (s *sends) counts() (alone []string, pipelines []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.alone...), append([]int(nil), s.pipelines...)
}

// batchClient is a client of the shared test server, a key prefix of its
// own, and the sends counter installed on it.
func batchClient(t *testing.T, opts func(*goredis.Options)) (*goredis.Client, string, *sends) {
	t.Helper()
	cfg := redistest.Shared(t)
	o := &goredis.Options{Addr: cfg.Addrs[0], DB: cfg.DB}
	if opts != nil {
		opts(o)
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	prefix := "batchtest:" + broker.NewID() + ":"
	t.Cleanup(func() {
		keys, _ := c.Keys(context.Background(), prefix+"*").Result()
		if len(keys) > 0 {
			_ = c.Del(context.Background(), keys...).Err()
		}
	})
	s := &sends{}
	c.AddHook(s)
	return c, prefix, s
}

// uniqueScript returns a script source no server has seen: its first
// EVALSHA gets NOSCRIPT.
func uniqueScript(body string) string {
	return "-- " + broker.NewID() + strconv.FormatInt(time.Now().UnixNano(), 36) + "\n" + body
}

// loadedScript returns a new script's source, loaded on c's server.
func loadedScript(t *testing.T, c *goredis.Client, body string) string {
	t.Helper()
	src := uniqueScript(body)
	if err := c.ScriptLoad(context.Background(), src).Err(); err != nil {
		t.Fatal(err)
	}
	return src
}

// queue starts n callers of send and waits until every one of them
// waits in b; the group ends when they have returned.
func queue(t *testing.T, b redisstore.Batcher, n int, send func(i int)) *sync.WaitGroup {
	t.Helper()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { send(i) })
	}
	waitQueued(t, b, n)
	return &wg
}

// waitQueued waits until n commands wait in b.
func waitQueued(t *testing.T, b redisstore.Batcher, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.Queued() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d commands queued, want %d", b.Queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// setAndEcho sets KEYS[1] to ARGV[1] and returns ARGV[1] × 10, or an
// error reply for 5.
const setAndEcho = `redis.call('set', KEYS[1], ARGV[1])
if ARGV[1] == '5' then return redis.error_reply('ERR five refused') end
return tonumber(ARGV[1]) * 10`

type scriptReply struct {
	v   int64
	err error
}

// TestBatcherSendsQueuedScriptsTogether: the scripts that arrive while
// every slot is in flight go to Redis as one pipeline when a slot frees,
// each caller gets its own script's reply (an error reply stays with its
// script), and every script ran once.
func TestBatcherSendsQueuedScriptsTogether(t *testing.T) {
	c, prefix, counted := batchClient(t, nil)
	ctx := context.Background()
	src := loadedScript(t, c, setAndEcho)
	b := redisstore.NewBatcher(c, 2)
	b.Occupy()

	const n = 16
	replies := make([]scriptReply, n)
	wg := queue(t, b, n, func(i int) {
		v, err := redisstore.RunScript(ctx, b, src, []string{prefix + strconv.Itoa(i)}, i).Int64()
		replies[i] = scriptReply{v, err}
	})
	if alone, pipelines := counted.counts(); len(alone) != 0 || len(pipelines) != 0 {
		t.Fatalf("with every slot in flight, sent %v alone and pipelines %v, want nothing", alone, pipelines)
	}
	b.Release()
	wg.Wait()

	for i, r := range replies {
		if i == 5 {
			if r.err == nil || !strings.Contains(r.err.Error(), "five refused") {
				t.Errorf("script 5: %d, %v; want its own error reply", r.v, r.err)
			}
			continue
		}
		if r.err != nil || r.v != int64(i)*10 {
			t.Errorf("script %d: %d, %v; want %d", i, r.v, r.err, i*10)
		}
	}
	for i := range n {
		if got, err := c.Get(ctx, prefix+strconv.Itoa(i)).Result(); err != nil || got != strconv.Itoa(i) {
			t.Errorf("key %d = %q, %v; want %d", i, got, err, i)
		}
	}
	alone, pipelines := counted.counts()
	if len(alone) != 0 || len(pipelines) != 1 || pipelines[0] != n {
		t.Errorf("sent %v alone and pipelines %v, want the %d scripts in one pipeline", alone, pipelines, n)
	}
	if got := b.InFlight(); got != 1 {
		t.Errorf("after the batch, %d sends in flight, want 1 (the other occupied slot)", got)
	}
	b.Release()
	if got := b.InFlight(); got != 0 {
		t.Errorf("after every send ended, %d in flight, want 0", got)
	}
}

// TestBatcherScriptNotLoaded: a batch of a script the server does not
// have yet gets NOSCRIPT for each, which ran nothing, and each caller
// sends the script's source once: every script runs once.
func TestBatcherScriptNotLoaded(t *testing.T) {
	c, prefix, _ := batchClient(t, nil)
	ctx := context.Background()
	src := uniqueScript(`return redis.call('incrby', KEYS[1], ARGV[1])`)
	b := redisstore.NewBatcher(c, 1)
	b.Occupy()
	const n = 8
	replies := make([]scriptReply, n)
	wg := queue(t, b, n, func(i int) {
		v, err := redisstore.RunScript(ctx, b, src, []string{prefix + strconv.Itoa(i)}, i+1).Int64()
		replies[i] = scriptReply{v, err}
	})
	b.Release()
	wg.Wait()
	for i, r := range replies {
		if r.err != nil || r.v != int64(i+1) {
			t.Errorf("script %d: %d, %v; want %d (run once)", i, r.v, r.err, i+1)
		}
	}
	if got := b.InFlight(); got != 0 {
		t.Errorf("%d sends in flight after the last reply, want 0", got)
	}
}

// TestBatcherCancelledCallerIsNotSent: a caller that gives up while its
// script waits in the queue gets its context's error, and the script is
// not sent; the others in the queue are.
func TestBatcherCancelledCallerIsNotSent(t *testing.T) {
	c, prefix, counted := batchClient(t, nil)
	ctx := context.Background()
	src := loadedScript(t, c, setAndEcho)
	b := redisstore.NewBatcher(c, 1)
	b.Occupy()

	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		gaveUp <- redisstore.RunScript(cctx, b, src, []string{prefix + "gave-up"}, 1).Err()
	}()
	waitQueued(t, b, 1)
	stays := make(chan scriptReply, 1)
	go func() {
		v, err := redisstore.RunScript(ctx, b, src, []string{prefix + "stays"}, 2).Int64()
		stays <- scriptReply{v, err}
	}()
	waitQueued(t, b, 2)
	cancel()
	if err := <-gaveUp; !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller that gave up in the queue got %v, want context.Canceled", err)
	}
	waitQueued(t, b, 1)
	b.Release()
	if r := <-stays; r.err != nil || r.v != 20 {
		t.Fatalf("the caller that stayed: %d, %v; want 20", r.v, r.err)
	}
	if n, err := c.Exists(ctx, prefix+"gave-up").Result(); err != nil || n != 0 {
		t.Errorf("the script of the caller that gave up ran: exists = %d, %v", n, err)
	}
	if alone, pipelines := counted.counts(); len(alone) != 1 || len(pipelines) != 0 {
		t.Errorf("sent %v alone and pipelines %v, want one script alone", alone, pipelines)
	}
}

// TestBatcherRetryableGoesAlone: a command go-redis may send again (a
// read, an idempotent script) is sent at once, even with every slot in
// flight, so that it keeps its retry.
func TestBatcherRetryableGoesAlone(t *testing.T) {
	c, prefix, _ := batchClient(t, nil)
	ctx := context.Background()
	b := redisstore.NewBatcher(c, 1)
	b.Occupy()
	if err := c.Set(ctx, prefix+"k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	get := goredis.NewStringCmd(ctx, "get", prefix+"k")
	done := make(chan error, 1)
	go func() { done <- b.Process(ctx, get) }()
	select {
	case err := <-done:
		if err != nil || get.Val() != "v" {
			t.Fatalf("GET through a full batcher: %q, %v", get.Val(), err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("a retryable command waited for a slot (%d queued)", b.Queued())
	}
	if b.Queued() != 0 {
		t.Errorf("%d commands queued, want 0", b.Queued())
	}
	b.Release()
}

// TestBatchedScriptsAreSentOnce: when the replies of a pipeline of
// scripts that write are late past the read timeout, none of them is sent
// again, though the client may retry: each ran once, and each caller
// gets an error, not a second run.
func TestBatchedScriptsAreSentOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a read timeout")
	}
	cfg := redistest.Shared(t)
	p := startReplyHolder(t, cfg.Addrs[0])
	c, prefix, counted := batchClient(t, func(o *goredis.Options) {
		o.Addr = p.ln.Addr().String()
		o.ReadTimeout = 300 * time.Millisecond
		o.MaxRetries = 3
	})
	direct, _, _ := batchClient(t, nil)
	ctx := context.Background()
	src := loadedScript(t, c, `return redis.call('incr', KEYS[1])`)
	// A pipeline opens the connection the batch will be sent on, so that
	// the connection whose replies are held is that one.
	if _, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error { return p.Ping(ctx).Err() }); err != nil {
		t.Fatal(err)
	}
	b := redisstore.NewBatcher(c, 1)
	b.Occupy()
	const n = 3
	errs := make([]error, n)
	wg := queue(t, b, n, func(i int) {
		errs[i] = redisstore.RunScript(ctx, b, src, []string{prefix + strconv.Itoa(i)}).Err()
	})
	p.arm.Store(true)
	b.Release()
	wg.Wait()
	p.arm.Store(false)
	for i, err := range errs {
		if err == nil {
			t.Errorf("script %d: no error although its reply never came", i)
		}
		got, gerr := direct.Get(ctx, prefix+strconv.Itoa(i)).Result()
		if gerr != nil || got != "1" {
			t.Errorf("key %d = %q, %v after one batched INCR whose reply was lost; want 1 (ran once)", i, got, gerr)
		}
	}
	if _, pipelines := counted.counts(); len(pipelines) != 1 || pipelines[0] != n {
		t.Errorf("pipelines sent: %v, want one of %d and no resend", pipelines, n)
	}
}

// TestBatcherUnderLoad: many callers sending scripts at once, through two
// slots, each get their own reply, every script runs once, and nothing is
// left queued or in flight.
func TestBatcherUnderLoad(t *testing.T) {
	c, prefix, counted := batchClient(t, nil)
	ctx := context.Background()
	src := uniqueScript(`return redis.call('incr', KEYS[1]) .. ':' .. ARGV[1]`)
	b := redisstore.NewBatcher(c, 2)
	const callers, each = 40, 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	for g := range callers {
		wg.Go(func() {
			key := prefix + strconv.Itoa(g)
			for i := range each {
				tag := fmt.Sprintf("%d/%d", g, i)
				got, err := redisstore.RunScript(ctx, b, src, []string{key}, tag).Text()
				if want := fmt.Sprintf("%d:%s", i+1, tag); err != nil || got != want {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%s: %q, %v; want %q", tag, got, err, want))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("%d callers got another reply than their own, first: %s", len(bad), bad[0])
	}
	if b.Queued() != 0 || b.InFlight() != 0 {
		t.Errorf("after the last reply: %d queued, %d in flight; want 0 and 0", b.Queued(), b.InFlight())
	}
	alone, pipelines := counted.counts()
	batched := 0
	for _, n := range pipelines {
		batched += n
	}
	t.Logf("%d scripts: %d alone, %d in %d pipelines", callers*each, len(alone), batched, len(pipelines))
	// 40 callers through two slots queue all the time: scripts must have
	// gone together, or the batcher batches nothing.
	if len(pipelines) == 0 || batched < callers*each/2 {
		t.Errorf("%d of %d scripts went in %d pipelines; want most of them batched", batched, callers*each, len(pipelines))
	}
	// The script is new to the server: each caller's first EVALSHA may
	// get NOSCRIPT and be sent again as EVAL.
	if total := len(alone) + batched; total < callers*each || total > callers*each+callers {
		t.Errorf("%d commands sent for %d scripts", total, callers*each)
	}
}

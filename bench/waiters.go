package bench

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// WaitersResult is the bridge memory taken by agents blocked at once.
type WaitersResult struct {
	Waiters int `json:"waiters"`
	// RSS of the bridge with the questions pending and nobody waiting,
	// then with every waiter blocked.
	RSSBefore int64   `json:"rss_before_bytes"`
	RSSWith   int64   `json:"rss_with_waiters_bytes"`
	PerWaiter float64 `json:"rss_per_waiter_bytes"`
	// Goroutines of the bridge (go_goroutines on /metrics).
	GoroutinesBefore    int     `json:"goroutines_before"`
	GoroutinesWith      int     `json:"goroutines_with_waiters"`
	GoroutinesPerWaiter float64 `json:"goroutines_per_waiter"`
	// StackPerWaiter and HeapPerWaiter split the growth by the Go
	// runtime's own accounting (go_memstats_stack_inuse_bytes and
	// go_memstats_heap_inuse_bytes on /metrics).
	StackPerWaiter float64 `json:"stack_per_waiter_bytes"`
	HeapPerWaiter  float64 `json:"heap_inuse_per_waiter_bytes"`
	// H2C is set when the waiters shared HTTP/2 cleartext connections
	// instead of holding an HTTP/1.1 connection each.
	H2C bool `json:"h2c,omitempty"`
	// Released counts the waiters that then got their answer.
	Released int           `json:"released"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// ScaleWaiters asks n questions in pending mode on the first bridge of
// env, blocks n long-polls on them at once (one HTTP/1.1 connection each,
// or with h2c HTTP/2 cleartext streams multiplexed over a few
// connections), reads the bridge's RSS and goroutines, then answers every
// question and checks that every waiter got its answer. When it fails,
// the error carries the bridge's last log lines.
func ScaleWaiters(ctx context.Context, env *Env, n int, h2c bool, log func(string)) (*WaitersResult, error) {
	if len(env.Bridges) == 0 {
		return nil, fmt.Errorf("waiters: needs a bridge started by the tool (its /proc is read)")
	}
	br := env.Bridges[0]
	res, err := scaleWaiters(ctx, br, n, h2c, log)
	if err != nil {
		return nil, fmt.Errorf("%w\nbridge log (last lines):\n%s", err, lastLines(br.Output(), 20))
	}
	return res, nil
}

func scaleWaiters(ctx context.Context, br *Bridge, n int, h2c bool, log func(string)) (*WaitersResult, error) {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	api := newAgentAPI(n+64, true)
	defer api.close()
	ids := make([]string, n)
	if err := parallel(ctx, 32, n, func(i int) error {
		q, err := api.ask(ctx, br.URL, "waiter-"+strconv.Itoa(i%100), "w"+strconv.Itoa(i), "0s")
		ids[i] = q.ID
		return err
	}); err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d questions pending", n))
	res := &WaitersResult{Waiters: n, H2C: h2c}
	time.Sleep(2 * time.Second) // let the asks' garbage be collected
	before, _ := ReadProc(br.Pid())
	res.RSSBefore = before.RSS
	m, err := metrics(ctx, br.URL)
	if err != nil {
		return nil, err
	}
	res.GoroutinesBefore = int(m["go_goroutines"])
	stack0, heap0 := m["go_memstats_stack_inuse_bytes"], m["go_memstats_heap_inuse_bytes"]

	// Over HTTP/1.1 one client per waiter, so that each holds its own
	// connection; over h2c one client whose connections carry up to the
	// server's stream limit each.
	shared := &agentAPI{http: &http.Client{Transport: h2cTransport()}, retry: true}
	defer shared.close()
	var released atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := shared
			if !h2c {
				w = &agentAPI{http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, retry: true}
			}
			r, err := w.wait(ctx, br.URL, id)
			switch {
			case err != nil:
				errs <- err
			case !r.answered():
				errs <- fmt.Errorf("waiter %d: %s is %s", i, id, r.Status)
			default:
				released.Add(1)
			}
		}()
		if i%500 == 499 {
			time.Sleep(100 * time.Millisecond) // stay under the listen backlog
		}
	}
	if err := waitMetric(ctx, br.URL, "askbridge_waiters", float64(n), 2*time.Minute); err != nil {
		return nil, err
	}
	log(fmt.Sprintf("%d waiters blocked", n))
	time.Sleep(2 * time.Second)
	with, _ := ReadProc(br.Pid())
	res.RSSWith = with.RSS
	if m, err = metrics(ctx, br.URL); err != nil {
		return nil, err
	}
	res.GoroutinesWith = int(m["go_goroutines"])
	res.PerWaiter = float64(res.RSSWith-res.RSSBefore) / float64(n)
	res.GoroutinesPerWaiter = float64(res.GoroutinesWith-res.GoroutinesBefore) / float64(n)
	res.StackPerWaiter = (m["go_memstats_stack_inuse_bytes"] - stack0) / float64(n)
	res.HeapPerWaiter = (m["go_memstats_heap_inuse_bytes"] - heap0) / float64(n)

	if err := parallel(ctx, 32, n, func(i int) error { return api.answer(ctx, br.URL, ids[i], "responder") }); err != nil {
		return nil, err
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	res.Released = int(released.Load())
	res.Elapsed = time.Since(t0)
	return res, nil
}

// h2cTransport speaks HTTP/2 cleartext from the first byte (prior
// knowledge), opening a new connection when one reaches the server's
// limit of concurrent streams.
func h2cTransport() *http.Transport {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: &p, DisableCompression: true}
}

// lastLines is the end of s, at most n lines.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// parallel calls fn(0..n-1) from workers goroutines and returns the first
// error.
func parallel(ctx context.Context, workers, n int, fn func(i int) error) error {
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// metrics reads the unlabelled samples of a Prometheus text page.
func metrics(ctx context.Context, server string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	return parseMetrics(bufio.NewScanner(resp.Body)), nil
}

func parseMetrics(sc *bufio.Scanner) map[string]float64 {
	out := map[string]float64{}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.Contains(line, "{") {
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			out[k] = f
		}
	}
	return out
}

// waitMetric polls /metrics until name reaches at least want.
func waitMetric(ctx context.Context, server, name string, want float64, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		m, err := metrics(ctx, server)
		if err == nil && m[name] >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is %v after %s, want %v", name, m[name], limit, want)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

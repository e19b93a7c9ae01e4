package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Modes of asking.
const (
	ModeBlocking = "blocking"
	ModePending  = "pending"
)

// LoadConfig describes one load run against running bridges.
type LoadConfig struct {
	// Servers are the bridges' base URLs. Agent i asks on Servers[i%n]
	// and its responder answers on Servers[(i+1)%n], so with two servers
	// every answer crosses instances.
	Servers []string
	// Agents is the number of concurrent agents.
	Agents int
	// Cycles bounds the number of ask–answer cycles; Duration bounds the
	// time in which new cycles start. Cycles in flight at the end are
	// given Grace to finish.
	Cycles   int
	Duration time.Duration
	Grace    time.Duration
	// Mode is ModeBlocking (the ask blocks until answered) or
	// ModePending (the ask returns at once; the agent long-polls).
	Mode string
	// Think is how long a responder waits before answering, on average
	// (uniformly between half and one and a half times it).
	Think time.Duration
	// Retry makes requests ride out a server restart (fault runs).
	Retry bool
	// CallbackURL, when set, is the callback_url of every question.
	CallbackURL string
	// Rate, when positive, paces the run: cycle n (from 0) starts no
	// earlier than n/Rate seconds after the start, so that the agents
	// start Rate cycles per second at most (soak runs). Zero runs the
	// agents back to back (saturating).
	Rate float64
	// Observe, when set, is called after every cycle with its error (nil
	// for a cycle whose answer reached the agent).
	Observe func(err error)
	// Client is the agents' HTTP client: ClientRaw (the default, also for
	// "") or ClientNetHTTP.
	Client string
}

// The agents' HTTP clients (LoadConfig.Client). ClientRaw is a plain
// HTTP/1.1 keep-alive client that takes the tool less CPU per request
// than net/http's (rawhttp.go); ClientNetHTTP is net/http's, as runs
// before it used.
const (
	ClientRaw     = "raw"
	ClientNetHTTP = "net/http"
)

// client is Client, or ClientRaw when it is empty.
func (c *LoadConfig) client() string { return cmp.Or(c.Client, ClientRaw) }

// LoadResult is what a load run measured.
type LoadResult struct {
	Cycles  int           `json:"cycles"`
	Errors  int           `json:"errors"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// PerSecond is Cycles divided by Elapsed.
	PerSecond float64 `json:"cycles_per_s"`
	// Ask is the time to create a question (the 202 of a pending-mode
	// ask; in blocking mode the responder's re-attach with the same
	// idempotency key, which returns the id).
	Ask Summary `json:"ask"`
	// AnswerToAgent runs from the responder sending its command to the
	// agent holding the result.
	AnswerToAgent Summary `json:"answer_to_agent"`
	// Cycle is the whole cycle as the agent sees it, think time included.
	Cycle Summary `json:"cycle"`
	// FirstErrors holds up to five error messages.
	FirstErrors []string `json:"first_errors,omitempty"`
	// IDs are the questions the run created.
	IDs []string `json:"-"`
}

func (c *LoadConfig) check() error {
	switch {
	case len(c.Servers) == 0:
		return fmt.Errorf("load: no server to send to")
	case c.Agents < 1:
		return fmt.Errorf("load: agents must be at least 1, got %d", c.Agents)
	case c.Cycles < 1:
		return fmt.Errorf("load: cycles must be at least 1, got %d", c.Cycles)
	case c.Duration <= 0:
		return fmt.Errorf("load: duration must be positive, got %s", c.Duration)
	case c.Mode != ModeBlocking && c.Mode != ModePending:
		return fmt.Errorf("load: mode %q is not %s or %s", c.Mode, ModeBlocking, ModePending)
	case c.Rate < 0:
		return fmt.Errorf("load: rate must be positive or zero, got %g", c.Rate)
	case c.client() != ClientRaw && c.client() != ClientNetHTTP:
		return fmt.Errorf("load: client %q is not %s or %s", c.Client, ClientRaw, ClientNetHTTP)
	}
	if c.Grace <= 0 {
		c.Grace = 30 * time.Second
	}
	return nil
}

// loadRun is the shared state of one run.
type loadRun struct {
	cfg     LoadConfig
	api     *agentAPI
	started atomic.Int64
	ask     Latencies
	a2a     Latencies
	cycle   Latencies
	start   time.Time
	stop    time.Time
	// prefix makes this run's idempotency keys its own, so that runs
	// against the same server never re-attach to older questions.
	prefix string

	mu     sync.Mutex
	errs   int
	first  []string
	ids    []string
	cycles int
}

// Load runs agents against the servers until Cycles cycles have started
// or Duration has passed, and waits for the cycles in flight.
func Load(ctx context.Context, cfg LoadConfig) (*LoadResult, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	r := &loadRun{cfg: cfg}
	if conns := 2*cfg.Agents + 16; cfg.client() == ClientNetHTTP {
		r.api = newAgentAPI(conns, cfg.Retry)
	} else {
		r.api = newRawAgentAPI(conns, cfg.Retry)
	}
	r.api.callback = cfg.CallbackURL
	r.prefix = "run" + strconv.FormatInt(time.Now().UnixNano(), 36)
	defer r.api.close()
	start := time.Now()
	r.start = start
	r.stop = start.Add(cfg.Duration)
	hard, cancel := context.WithDeadline(ctx, r.stop.Add(cfg.Grace))
	defer cancel()
	var wg sync.WaitGroup
	for i := range cfg.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.agent(hard, i)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	res := &LoadResult{
		Cycles: r.cycles, Errors: r.errs, Elapsed: elapsed,
		PerSecond: float64(r.cycles) / elapsed.Seconds(),
		Ask:       r.ask.Summary(), AnswerToAgent: r.a2a.Summary(), Cycle: r.cycle.Summary(),
		FirstErrors: r.first, IDs: r.ids,
	}
	return res, nil
}

// agent runs cycles one after the other until the run's bounds.
func (r *loadRun) agent(ctx context.Context, i int) {
	n := len(r.cfg.Servers)
	askAt, answerAt := r.cfg.Servers[i%n], r.cfg.Servers[(i+1)%n]
	session := r.prefix + "-agent-" + strconv.Itoa(i)
	// With a think time, agents start spread over one think time, so
	// that they do not move in lockstep.
	if r.cfg.Think > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.cfg.Think * time.Duration(i) / time.Duration(r.cfg.Agents)):
		}
	}
	for {
		if time.Now().After(r.stop) || ctx.Err() != nil {
			return
		}
		j := r.started.Add(1)
		if j > int64(r.cfg.Cycles) {
			return
		}
		if r.cfg.Rate > 0 {
			at := r.start.Add(cycleOffset(j-1, r.cfg.Rate))
			if !at.Before(r.stop) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(at)):
			}
		}
		call := "call-" + strconv.FormatInt(j, 10)
		var err error
		if r.cfg.Mode == ModePending {
			err = r.pendingCycle(ctx, askAt, answerAt, session, call)
		} else {
			err = r.blockingCycle(ctx, askAt, answerAt, session, call)
		}
		r.done(err)
	}
}

// cycleOffset is when cycle n (from 0) of a run paced at rate cycles per
// second may start, after the run's start.
func cycleOffset(n int64, rate float64) time.Duration {
	return time.Duration(float64(n) / rate * float64(time.Second))
}

func (r *loadRun) done(err error) {
	if r.cfg.Observe != nil {
		r.cfg.Observe(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.cycles++
		return
	}
	r.errs++
	if len(r.first) < 5 {
		r.first = append(r.first, err.Error())
	}
}

func (r *loadRun) created(id string) {
	r.mu.Lock()
	r.ids = append(r.ids, id)
	r.mu.Unlock()
}

// respond waits the think time and answers; it returns when the answer
// was sent.
func (r *loadRun) respond(ctx context.Context, server, id string) (time.Time, error) {
	if r.cfg.Think > 0 {
		// Think times vary by ±50 % around the configured one.
		think := r.cfg.Think/2 + rand.N(r.cfg.Think)
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(think):
		}
	}
	sent := time.Now()
	return sent, r.api.answer(ctx, server, id, "responder")
}

// pendingCycle: ask in pending mode (202 with the id), hand the id to the
// responder, long-poll until the answer arrives.
func (r *loadRun) pendingCycle(ctx context.Context, askAt, answerAt, session, call string) error {
	t0 := time.Now()
	q, err := r.api.ask(ctx, askAt, session, call, "0s")
	if err != nil {
		return err
	}
	r.ask.Add(time.Since(t0))
	r.created(q.ID)
	type sent struct {
		at  time.Time
		err error
	}
	ch := make(chan sent, 1)
	go func() {
		at, err := r.respond(ctx, answerAt, q.ID)
		ch <- sent{at, err}
	}()
	got, err := r.api.wait(ctx, askAt, q.ID)
	s := <-ch
	return r.finish(t0, s.at, got, errors.Join(err, s.err))
}

// blockingCycle: the agent's ask blocks; the responder learns the id by
// asking again with the same idempotency key in pending mode (as a
// re-attaching client would), then answers.
func (r *loadRun) blockingCycle(ctx context.Context, askAt, answerAt, session, call string) error {
	t0 := time.Now()
	type got struct {
		q   result
		err error
	}
	ch := make(chan got, 1)
	go func() {
		q, err := r.api.ask(ctx, askAt, session, call, "60s")
		ch <- got{q, err}
	}()
	t1 := time.Now()
	q, err := r.api.ask(ctx, answerAt, session, call, "0s")
	if err != nil {
		g := <-ch
		return errors.Join(err, g.err)
	}
	r.ask.Add(time.Since(t1))
	r.created(q.ID)
	at, aerr := r.respond(ctx, answerAt, q.ID)
	g := <-ch
	return r.finish(t0, at, g.q, errors.Join(aerr, g.err))
}

func (r *loadRun) finish(t0, answered time.Time, q result, err error) error {
	if err != nil {
		return err
	}
	if !q.answered() {
		return fmt.Errorf("question %s: %w: status %s, answers %v", q.ID, errUnexpected, q.Status, q.Answers)
	}
	now := time.Now()
	r.a2a.Add(now.Sub(answered))
	r.cycle.Add(now.Sub(t0))
	return nil
}

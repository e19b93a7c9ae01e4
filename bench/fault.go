package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Fault runs.
const (
	FaultKill9        = "kill9"
	FaultRedisRestart = "redis-restart"
	FaultPlatformCut  = "platform-cut"
	FaultPostOutage   = "post-outage"
	FaultPlatform429  = "platform-429"
	FaultRestart      = "restart-in-outage"
	FaultHangup       = "client-hangup"
	FaultBurst        = "burst"
)

// FaultConfig describes a fault run.
type FaultConfig struct {
	Name   string
	Store  string // sqlite or redis (kill9); redis-restart always uses Redis
	Bridge string
	Agents int
	// Duration is how long the load runs; the fault starts after At and
	// lasts Down.
	Duration time.Duration
	At       time.Duration
	Down     time.Duration
	// Rate is the per-chat limit of the fake platforms, in messages a
	// second (burst); Pace the bridge's pacing of those chats (0: Rate).
	Rate, Pace int
}

// FaultResult is the outcome of a fault run and its verdict.
type FaultResult struct {
	Name string `json:"name"`
	// Asked counts the questions the agents were told were created.
	Asked int `json:"asked"`
	// Answered counts those answered with the responder's choice.
	Answered int `json:"answered"`
	// LoadErrors counts cycles that failed at the client (a request that
	// gave up); they are not lost questions unless Lost says so.
	LoadErrors int `json:"load_errors"`
	// Lost counts questions acknowledged to an agent that the store no
	// longer knows; LeftPending those still pending after the run.
	Lost        int `json:"lost"`
	LeftPending int `json:"left_pending"`
	// Twice counts questions with more than one resolution event,
	// NoEvent resolved questions with none.
	Twice   int `json:"resolved_twice"`
	NoEvent int `json:"without_event"`
	// CallbacksMissing counts resolved questions whose callback never
	// arrived; CallbacksRepeated extra deliveries (allowed: at least once).
	CallbacksMissing  int `json:"callbacks_missing"`
	CallbacksRepeated int `json:"callbacks_repeated"`
	// CopiesUnedited counts posted platform copies not showing the outcome.
	CopiesUnedited int `json:"copies_unedited"`
	// SlowestAnswer is the longest answer-to-agent latency of the load
	// (process faults): how long an agent waited for an answer already
	// given, across the fault.
	SlowestAnswer time.Duration `json:"slowest_answer_to_agent_ns,omitempty"`
	// SlowestCycle is the longest whole cycle (ask, answer, result),
	// retries included.
	SlowestCycle time.Duration `json:"slowest_cycle_ns,omitempty"`
	// SlowestAsk is the longest ask until the agent had the id.
	SlowestAsk time.Duration `json:"slowest_ask_ns,omitempty"`
	// Recovery is how long the fault took to heal as seen by the tool.
	Recovery time.Duration `json:"recovery_ns"`
	Notes    []string      `json:"notes,omitempty"`
	OK       bool          `json:"ok"`
}

// Verdict is the one-line summary of r.
func (r *FaultResult) Verdict() string {
	word := "PASS"
	if !r.OK {
		word = "FAIL"
	}
	s := fmt.Sprintf("%s %s: %d asked, %d answered, %d lost, %d left pending, %d resolved twice, %d without event, %d callbacks missing, %d copies unedited, %d client errors, recovered in %s",
		word, r.Name, r.Asked, r.Answered, r.Lost, r.LeftPending, r.Twice, r.NoEvent, r.CallbacksMissing, r.CopiesUnedited, r.LoadErrors, FormatDuration(r.Recovery))
	if r.SlowestAnswer > 0 {
		s += ", slowest answer-to-agent " + FormatDuration(r.SlowestAnswer) + ", slowest ask " + FormatDuration(r.SlowestAsk) + ", slowest cycle " + FormatDuration(r.SlowestCycle)
	}
	if len(r.Notes) > 0 {
		s += " (" + strings.Join(r.Notes, "; ") + ")"
	}
	return s
}

// eventGrace is how long checkStore waits for events the store logs late.
const eventGrace = 30 * time.Second

func (r *FaultResult) decide() {
	r.OK = r.Asked > 0 && r.Lost == 0 && r.LeftPending == 0 && r.Twice == 0 && r.NoEvent == 0 &&
		r.CallbacksMissing == 0 && r.CopiesUnedited == 0 && r.Answered == r.Asked
}

// callbackSecretEnv names the variable with the callbacks' secret.
const callbackSecretEnv = "ASKBENCH_CALLBACK_SECRET"

// RunProcessFault runs kill9 or redis-restart: load with callbacks against
// bridge serve, the fault in the middle, then the checks.
func RunProcessFault(ctx context.Context, cfg FaultConfig, log func(string)) (*FaultResult, error) {
	secret := "askbench-" + broker.NewID() + broker.NewID()
	recv, err := StartReceiver(secret)
	if err != nil {
		return nil, err
	}
	defer recv.Close()
	ec := EnvConfig{Store: cfg.Store, Instances: 1, Bridge: cfg.Bridge,
		// The receiver listens on loopback, which callbacks reach only
		// when the allow list names it.
		ExtraConfig: "callbacks:\n  allow: [\"127.0.0.0/8\"]\n  secret_env: " + callbackSecretEnv + "\n  base_backoff: 200ms\n  max_backoff: 1s\n",
		Env:         []string{callbackSecretEnv + "=" + secret}}
	if cfg.Name == FaultRedisRestart {
		ec.Store, ec.AOF = "redis", true
	}
	env, err := StartEnv(ctx, ec)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	res := &FaultResult{Name: cfg.Name}
	type loadOut struct {
		r   *LoadResult
		err error
	}
	done := make(chan loadOut, 1)
	go func() {
		r, err := Load(ctx, LoadConfig{Servers: env.Servers, Agents: cfg.Agents, Cycles: 1 << 30,
			Duration: cfg.Duration, Grace: 60 * time.Second, Mode: ModePending, Retry: true, CallbackURL: recv.URL})
		done <- loadOut{r, err}
	}()
	select {
	case <-time.After(cfg.At):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t0 := time.Now()
	switch cfg.Name {
	case FaultKill9:
		log("kill -9 the bridge")
		env.Bridges[0].Kill()
		time.Sleep(cfg.Down)
		log("restart the bridge")
		if err := env.Bridges[0].Restart(ctx); err != nil {
			return nil, err
		}
	case FaultRedisRestart:
		log("kill -9 redis-server (AOF, fsync always)")
		env.Redis.Kill()
		time.Sleep(cfg.Down)
		log("restart redis-server")
		if err := env.Redis.start(ctx); err != nil {
			return nil, err
		}
		if err := env.Bridges[0].waitReady(ctx, 30*time.Second); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("fault: %q is not a process fault", cfg.Name)
	}
	res.Recovery = time.Since(t0)
	lo := <-done
	if lo.err != nil {
		return nil, lo.err
	}
	log(fmt.Sprintf("load done: %d cycles, %d errors", lo.r.Cycles, lo.r.Errors))
	res.LoadErrors = lo.r.Errors
	res.SlowestAnswer = lo.r.AnswerToAgent.Max
	res.SlowestCycle = lo.r.Cycle.Max
	res.SlowestAsk = lo.r.Ask.Max
	for _, e := range lo.r.FirstErrors {
		res.Notes = append(res.Notes, "client: "+e)
	}
	ids := dedupe(lo.r.IDs)
	res.Asked = len(ids)
	// Callbacks are retried with backoff: give them time to arrive.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		got, _ := recv.Delivered()
		if countMissing(ids, got) == 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	got, rejected := recv.Delivered()
	res.CallbacksMissing = countMissing(ids, got)
	for _, n := range got {
		res.CallbacksRepeated += max(n-1, 0)
	}
	if rejected > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d callbacks with a bad signature", rejected))
	}
	env.Bridges[0].Stop()
	st, err := env.OpenStore(ctx, "")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if err := checkStore(ctx, st, ids, res); err != nil {
		return nil, err
	}
	res.decide()
	return res, nil
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func countMissing(ids []string, got map[string]int) int {
	n := 0
	for _, id := range ids {
		if got[id] == 0 {
			n++
		}
	}
	return n
}

// checkedStore is what checkStore reads: the questions and the event log.
type checkedStore interface {
	broker.Questions
	broker.EventLog
}

// checkStore reads every question and the event log: each must exist, be
// answered with the responders' choice, and have exactly one event; no
// question may be left pending. A resolution whose event was not logged
// because the store failed between the two (Redis) is logged by the
// store's repair within seconds, so missing events are awaited for up to
// eventGrace before they count.
func checkStore(ctx context.Context, st checkedStore, ids []string, res *FaultResult) error {
	events, err := countEvents(ctx, st, "")
	if err != nil {
		return err
	}
	late := 0
	for deadline := time.Now().Add(eventGrace); ; {
		missing := countMissing(ids, events)
		if missing == 0 || time.Now().After(deadline) {
			break
		}
		if late == 0 {
			late = missing
		}
		time.Sleep(time.Second)
		if events, err = countEvents(ctx, st, ""); err != nil {
			return err
		}
	}
	if late > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d events logged late by the store's repair", late))
	}
	for _, id := range ids {
		q, err := st.Get(ctx, id)
		if err != nil {
			res.Lost++
			continue
		}
		switch {
		case q.Status == broker.StatusPending:
			res.LeftPending++
		case events[id] == 0:
			res.NoEvent++
		case events[id] > 1:
			res.Twice++
		}
		if q.Status == broker.StatusAnswered && len(q.Answers) == 1 {
			for _, a := range q.Answers {
				if len(a.Selected) == 1 && a.Selected[0] == chosenLabel {
					res.Answered++
				}
			}
		}
	}
	pending, err := st.List(ctx, broker.Filter{Status: broker.StatusPending, Limit: 1000})
	if err != nil {
		return fmt.Errorf("list pending: %w", err)
	}
	if len(pending) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d questions pending in the store", len(pending)))
		res.LeftPending = max(res.LeftPending, len(pending))
	}
	return nil
}

package bench

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/store/redis"
)

// ProcStats is what one bridge process used during a run.
type ProcStats struct {
	Pid int `json:"pid"`
	// CPU is the CPU time used during the run; CPUShare is CPU divided by
	// the run's wall-clock time (1.0 = one core busy).
	CPU      time.Duration `json:"cpu_ns"`
	CPUShare float64       `json:"cpu_share"`
	// PeakRSS is the largest resident set sampled during the run.
	PeakRSS int64 `json:"peak_rss_bytes"`
	// CPUPerCycle is CPU divided by the run's cycles.
	CPUPerCycle time.Duration `json:"cpu_per_cycle_ns"`
}

// LoadReport is the outcome of one load run and its store-only bound.
type LoadReport struct {
	Store     string `json:"store"`
	Instances int    `json:"instances"`
	// Config describes the bridges' configuration (Env.Config).
	Config string `json:"config"`
	Mode   string `json:"mode"`
	Agents int    `json:"agents"`
	Think  string `json:"think"`
	// Client is the agents' HTTP client (LoadConfig.Client).
	Client string      `json:"client"`
	Load   *LoadResult `json:"end_to_end"`
	// RedisCallsPerCycle is the INFO commandstats delta (sum of calls,
	// including calls made inside scripts) divided by cycles.
	RedisCallsPerCycle float64 `json:"redis_calls_per_cycle,omitempty"`
	// RedisCallsByCommand is the same per command.
	RedisCallsByCommand map[string]float64 `json:"redis_calls_by_command,omitempty"`
	Bridges             []ProcStats        `json:"bridges,omitempty"`
	// Tool and Redis are the load tool's own process and the private
	// redis-server, which share the machine with the bridges.
	Tool           *ProcStats         `json:"tool,omitempty"`
	Redis          *ProcStats         `json:"redis_server,omitempty"`
	StoreOnly      *StoreOnlyResult   `json:"store_only,omitempty"`
	StoreOnlyRedis *StoreOnlyRedisUse `json:"store_only_redis,omitempty"`
	// Ratio is end-to-end cycles/s divided by store-only cycles/s.
	Ratio float64 `json:"ratio_to_store_only,omitempty"`
}

// StoreOnlyRedisUse is the Redis traffic of the store-only cycles.
type StoreOnlyRedisUse struct {
	// RoundTrips counts what the client sent (a pipeline is one).
	RoundTrips float64 `json:"round_trips_per_cycle"`
	// Calls is the INFO commandstats delta per cycle.
	Calls float64 `json:"calls_per_cycle"`
}

// RunLoad runs a load against env and then, in the same invocation, the
// store-only bound with the same concurrency and bounds.
func RunLoad(ctx context.Context, env *Env, cfg LoadConfig, storeOnly bool) (*LoadReport, error) {
	cfg.Servers = env.Servers
	rep := &LoadReport{Store: "sqlite", Instances: len(env.Servers), Config: env.Config, Mode: cfg.Mode, Agents: cfg.Agents, Think: cfg.Think.String(), Client: cfg.client()}
	var rc *goredis.Client
	if env.IsRedis() {
		rep.Store = "redis"
		var err error
		if rc, err = env.RedisClient(); err != nil {
			return nil, err
		}
		defer rc.Close()
	}
	calls0 := redisCalls(ctx, rc)
	var by0 map[string]int64
	if rc != nil {
		by0, _ = CommandCallsBy(ctx, rc)
	}
	pids := []int{os.Getpid()}
	if env.Redis != nil {
		pids = append(pids, env.Redis.Pid())
	}
	for _, b := range env.Bridges {
		pids = append(pids, b.Pid())
	}
	sampler := startSampler(pids)
	res, err := Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep.Load = res
	procs := sampler.stop(res.Elapsed, res.Cycles)
	rep.Tool, procs = &procs[0], procs[1:]
	if env.Redis != nil {
		rep.Redis, procs = &procs[0], procs[1:]
	}
	rep.Bridges = procs
	if rc != nil && res.Cycles > 0 {
		rep.RedisCallsPerCycle = float64(redisCalls(ctx, rc)-calls0) / float64(res.Cycles)
		if by, err := CommandCallsBy(ctx, rc); err == nil && by0 != nil {
			rep.RedisCallsByCommand = perCycle(by0, by, res.Cycles)
		}
	}
	if !storeOnly {
		return rep, nil
	}
	st, err := env.OpenStore(ctx, fmt.Sprintf("storeonly-%d", time.Now().UnixNano()))
	if err != nil {
		return rep, err
	}
	defer st.Close()
	var rt *roundTrips
	if rs, ok := st.(*redis.Store); ok {
		rt = &roundTrips{}
		rs.Client().AddHook(rt)
	}
	calls0 = redisCalls(ctx, rc)
	so, err := StoreOnly(ctx, st, cfg.Agents, cfg.Cycles, cfg.Duration)
	if err != nil {
		return rep, err
	}
	rep.StoreOnly = so
	if rt != nil && so.Cycles > 0 {
		rep.StoreOnlyRedis = &StoreOnlyRedisUse{
			RoundTrips: float64(rt.n.Load()) / float64(so.Cycles),
			Calls:      float64(redisCalls(ctx, rc)-calls0) / float64(so.Cycles),
		}
	}
	if so.PerSecond > 0 {
		rep.Ratio = res.PerSecond / so.PerSecond
	}
	return rep, nil
}

func redisCalls(ctx context.Context, c *goredis.Client) int64 {
	if c == nil {
		return 0
	}
	n, err := CommandCalls(ctx, c)
	if err != nil {
		return 0
	}
	return n
}

// roundTrips counts a go-redis client's round trips: one per command sent
// alone, one per pipeline.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (r *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

// sampler reads the bridges' /proc files every 100 ms.
type sampler struct {
	pids  []int
	cpu0  []time.Duration
	peak  []int64
	quit  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	start time.Time
}

func startSampler(pids []int) *sampler {
	s := &sampler{quit: make(chan struct{}), start: time.Now()}
	for _, pid := range pids {
		p, _ := ReadProc(pid)
		s.pids = append(s.pids, pid)
		s.cpu0 = append(s.cpu0, p.CPU)
		s.peak = append(s.peak, p.RSS)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.quit:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, pid := range s.pids {
		if p, err := ReadProc(pid); err == nil {
			s.peak[i] = max(s.peak[i], p.RSS)
		}
	}
}

func (s *sampler) stop(elapsed time.Duration, cycles int) []ProcStats {
	close(s.quit)
	s.wg.Wait()
	s.sample()
	out := make([]ProcStats, len(s.pids))
	for i, pid := range s.pids {
		p, _ := ReadProc(pid)
		cpu := p.CPU - s.cpu0[i]
		out[i] = ProcStats{Pid: pid, CPU: cpu, CPUShare: cpu.Seconds() / elapsed.Seconds(), PeakRSS: s.peak[i]}
		if cycles > 0 {
			out[i].CPUPerCycle = cpu / time.Duration(cycles)
		}
	}
	return out
}

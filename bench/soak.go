package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// SoakConfig describes a soak: a load at a steady rate for a long while,
// measured window by window, to show that the bridge stays flat with
// uptime.
type SoakConfig struct {
	// Load is the load driven; its Rate (cycles per second) must be
	// positive and its Duration covers at least two windows.
	Load LoadConfig
	// Interval is the length of a window (one minute).
	Interval time.Duration
	// Tolerance is how far the last window may stray from the first, as a
	// fraction (0.10).
	Tolerance float64
	// Warmup is how long the bridge fills up before the comparison
	// starts: windows that end within it are measured and printed, and
	// the first window after it is the one the last is compared with.
	// The web inbox keeps the questions of its last two minutes, so a
	// default bridge's memory grows for that long by design.
	Warmup time.Duration
}

// Check reports what is wrong with c, naming the flag of askbench soak.
func (c SoakConfig) Check() error {
	switch {
	case c.Load.Rate <= 0 || math.IsNaN(c.Load.Rate) || math.IsInf(c.Load.Rate, 0):
		return fmt.Errorf("--rate %g: must be a positive number of cycles per second", c.Load.Rate)
	case c.Interval <= 0:
		return fmt.Errorf("--interval %s: must be positive", c.Interval)
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %s: must not be negative", c.Warmup)
	case c.Load.Duration < c.Warmup+2*c.Interval:
		return fmt.Errorf("--duration %s: must cover the warm-up of %s and at least two windows of %s after it (the first and the last are compared)", c.Load.Duration, c.Warmup, c.Interval)
	case c.Load.Agents < 1:
		return fmt.Errorf("--agents %d: must be at least 1", c.Load.Agents)
	case c.Tolerance <= 0 || c.Tolerance >= 1:
		return fmt.Errorf("--tolerance %g: must be between 0 and 1", c.Tolerance)
	}
	return nil
}

// SoakWindow is what one window of a soak measured.
type SoakWindow struct {
	// End is the end of the window, since the start of the soak.
	End       time.Duration `json:"end_ns"`
	Cycles    int64         `json:"cycles"`
	Errors    int64         `json:"errors"`
	PerSecond float64       `json:"cycles_per_s"`
	// BridgeCPUPerCycle is the CPU time of the bridges in the window
	// divided by its cycles; BridgeCPUShare the same divided by the
	// window's length (1.0 = one core busy).
	BridgeCPUPerCycle time.Duration `json:"bridge_cpu_per_cycle_ns"`
	BridgeCPUShare    float64       `json:"bridge_cpu_share"`
	// BridgeRSS is the bridges' resident set at the end of the window.
	BridgeRSS int64 `json:"bridge_rss_bytes"`
	// RedisCPUShare is the private redis-server's CPU in the window
	// divided by its length; zero without one.
	RedisCPUShare float64 `json:"redis_cpu_share,omitempty"`
	// Load1 is the machine's one-minute load average at the end.
	Load1 float64 `json:"load1"`
}

// soakPoint is a reading of the counters and the processes at one moment.
type soakPoint struct {
	at             time.Time
	cycles, errors int64
	bridgeCPU      time.Duration
	bridgeRSS      int64
	redisCPU       time.Duration
}

// window computes the window from a to b; end is b's offset from the
// start of the soak.
func window(a, b soakPoint, end time.Duration) SoakWindow {
	w := SoakWindow{End: end, Cycles: b.cycles - a.cycles, Errors: b.errors - a.errors, BridgeRSS: b.bridgeRSS}
	secs := b.at.Sub(a.at).Seconds()
	cpu := b.bridgeCPU - a.bridgeCPU
	if secs > 0 {
		w.PerSecond = float64(w.Cycles) / secs
		w.BridgeCPUShare = cpu.Seconds() / secs
		w.RedisCPUShare = (b.redisCPU - a.redisCPU).Seconds() / secs
	}
	if w.Cycles > 0 {
		w.BridgeCPUPerCycle = cpu / time.Duration(w.Cycles)
	}
	return w
}

// SoakCompare is one measure of the first window against the last.
type SoakCompare struct {
	Measure string  `json:"measure"`
	First   float64 `json:"first"`
	Last    float64 `json:"last"`
	// Change is (Last-First)/First; OK says whether its size is within
	// the tolerance.
	Change float64 `json:"change"`
	OK     bool    `json:"ok"`
}

// Measures compared by a soak.
const (
	MeasureRate   = "cycles/s"
	MeasureCPU    = "bridge CPU per cycle"
	MeasureMemory = "bridge RSS"
)

// CompareWindows compares the last window with the first on cycles per
// second, bridge CPU per cycle and bridge RSS; pass is true when each
// moved by at most tol (a fraction) of its first value. A measure that
// was zero at first passes only if it is still zero.
func CompareWindows(first, last SoakWindow, tol float64) (cmp []SoakCompare, pass bool) {
	pass = true
	for _, m := range []struct {
		name        string
		first, last float64
	}{
		{MeasureRate, first.PerSecond, last.PerSecond},
		{MeasureCPU, float64(first.BridgeCPUPerCycle), float64(last.BridgeCPUPerCycle)},
		{MeasureMemory, float64(first.BridgeRSS), float64(last.BridgeRSS)},
	} {
		c := SoakCompare{Measure: m.name, First: m.first, Last: m.last}
		switch {
		case m.first != 0:
			c.Change = (m.last - m.first) / m.first
			c.OK = math.Abs(c.Change) <= tol
		default:
			c.OK = m.last == 0
			if !c.OK {
				c.Change = math.Inf(1)
			}
		}
		pass = pass && c.OK
		cmp = append(cmp, c)
	}
	return cmp, pass
}

// SoakReport is the outcome of a soak.
type SoakReport struct {
	Store     string        `json:"store"`
	Config    string        `json:"config"`
	Mode      string        `json:"mode"`
	Client    string        `json:"client"`
	Agents    int           `json:"agents"`
	Rate      float64       `json:"rate"`
	Duration  time.Duration `json:"duration_ns"`
	Interval  time.Duration `json:"interval_ns"`
	Tolerance float64       `json:"tolerance"`
	Warmup    time.Duration `json:"warmup_ns"`
	Windows   []SoakWindow  `json:"windows"`
	// Compare and Pass are the first window after the warm-up against
	// the last.
	Compare []SoakCompare `json:"compare"`
	Pass    bool          `json:"pass"`
	// Total is the whole run as a load run reports it.
	Total *LoadResult `json:"total"`
}

// RunSoak drives cfg.Load against env at its steady rate and measures it
// window by window; each window is handed to progress (when not nil) as
// it ends. The bridges' CPU and RSS come from /proc, so they are measured
// only for bridges env started.
func RunSoak(ctx context.Context, env *Env, cfg SoakConfig, progress func(SoakWindow)) (*SoakReport, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg.Load.Servers = env.Servers
	cfg.Load.Cycles = math.MaxInt32
	var cycles, errs atomic.Int64
	cfg.Load.Observe = func(err error) {
		if err != nil {
			errs.Add(1)
			return
		}
		cycles.Add(1)
	}
	var bridges []int
	for _, b := range env.Bridges {
		bridges = append(bridges, b.Pid())
	}
	redisPid := 0
	if env.Redis != nil {
		redisPid = env.Redis.Pid()
	}
	read := func() soakPoint {
		p := soakPoint{at: time.Now(), cycles: cycles.Load(), errors: errs.Load()}
		for _, pid := range bridges {
			if s, err := ReadProc(pid); err == nil {
				p.bridgeCPU += s.CPU
				p.bridgeRSS += s.RSS
			}
		}
		if redisPid != 0 {
			if s, err := ReadProc(redisPid); err == nil {
				p.redisCPU = s.CPU
			}
		}
		return p
	}
	rep := &SoakReport{Store: "sqlite", Config: env.Config, Mode: cfg.Load.Mode, Client: cfg.Load.client(), Agents: cfg.Load.Agents,
		Rate: cfg.Load.Rate, Duration: cfg.Load.Duration, Interval: cfg.Interval, Tolerance: cfg.Tolerance, Warmup: cfg.Warmup}
	if env.IsRedis() {
		rep.Store = "redis"
	}
	n := int(cfg.Load.Duration / cfg.Interval)
	start := read()
	type done struct {
		res *LoadResult
		err error
	}
	finished := make(chan done, 1)
	go func() {
		res, err := Load(ctx, cfg.Load)
		finished <- done{res, err}
	}()
	prev := start
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for len(rep.Windows) < n {
		select {
		case d := <-finished:
			// The load ended early (interrupted, or a fault).
			return soakEnd(rep, cfg, d.res, d.err)
		case <-tick.C:
		}
		cur := read()
		w := window(prev, cur, cur.at.Sub(start.at))
		w.Load1 = LoadAverage()
		rep.Windows = append(rep.Windows, w)
		if progress != nil {
			progress(w)
		}
		prev = cur
	}
	d := <-finished
	return soakEnd(rep, cfg, d.res, d.err)
}

func soakEnd(rep *SoakReport, cfg SoakConfig, res *LoadResult, err error) (*SoakReport, error) {
	if err != nil {
		return nil, err
	}
	rep.Total = res
	first := 0
	// A window belongs to the warm-up when most of it falls inside it:
	// windows end a little after each whole interval, so the one that
	// ends at the warm-up's end is still part of it.
	for first < len(rep.Windows) && rep.Windows[first].End-cfg.Interval/2 < cfg.Warmup {
		first++
	}
	if len(rep.Windows)-first < 2 {
		return rep, fmt.Errorf("soak: only %d full windows of %s were measured after the warm-up of %s; two are needed to compare", len(rep.Windows)-first, cfg.Interval, cfg.Warmup)
	}
	rep.Compare, rep.Pass = CompareWindows(rep.Windows[first], rep.Windows[len(rep.Windows)-1], cfg.Tolerance)
	return rep, nil
}

// LoadAverage returns the machine's one-minute load average, or zero when
// it cannot be read.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// WindowLine is the one-line summary of a window.
func (w SoakWindow) WindowLine(redis bool) string {
	s := fmt.Sprintf("%6s  %7.1f cycles/s  %d errors  bridge %s CPU/cycle (%.1f%% of a core)  RSS %s",
		w.End.Round(time.Second), w.PerSecond, w.Errors, FormatDuration(w.BridgeCPUPerCycle), 100*w.BridgeCPUShare, FormatBytes(float64(w.BridgeRSS)))
	if redis {
		s += fmt.Sprintf("  redis-server %.1f%% of a core", 100*w.RedisCPUShare)
	}
	return s + fmt.Sprintf("  load %.2f", w.Load1)
}

// WriteText writes the comparison and the verdict.
func (r *SoakReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "soak: store=%s mode=%s agents=%d rate=%g/s duration=%s window=%s\n", r.Store, r.Mode, r.Agents, r.Rate, r.Duration, r.Interval)
	fmt.Fprintf(w, "config: %s\n", r.Config)
	if t := r.Total; t != nil {
		fmt.Fprintf(w, "total: %d cycles, %d errors, %.1f cycles/s, cycle p50 %s p99 %s\n", t.Cycles, t.Errors, t.PerSecond, FormatDuration(t.Cycle.P50), FormatDuration(t.Cycle.P99))
		for _, e := range t.FirstErrors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
	}
	fmt.Fprintf(w, "first window after the warm-up of %s vs last window (tolerance %.0f %%):\n", r.Warmup, 100*r.Tolerance)
	for _, c := range r.Compare {
		verdict := "ok"
		if !c.OK {
			verdict = "OUT"
		}
		fmt.Fprintf(w, "  %-22s %12s -> %-12s %+7.1f %%  %s\n", c.Measure, formatMeasure(c.Measure, c.First), formatMeasure(c.Measure, c.Last), 100*c.Change, verdict)
	}
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	_, err := fmt.Fprintf(w, "%s\n", verdict)
	return err
}

func formatMeasure(m string, v float64) string {
	switch m {
	case MeasureCPU:
		return FormatDuration(time.Duration(v))
	case MeasureMemory:
		return FormatBytes(v)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

package bench

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestCycleOffsetPacesAtTheRate(t *testing.T) {
	tests := []struct {
		n    int64
		rate float64
		want time.Duration
	}{
		{0, 200, 0},
		{1, 200, 5 * time.Millisecond},
		{200, 200, time.Second},
		{12000, 200, time.Minute},
		{3, 0.5, 6 * time.Second},
		{1, 3, time.Second / 3},
	}
	for _, tt := range tests {
		if got := cycleOffset(tt.n, tt.rate); got != tt.want {
			t.Errorf("cycleOffset(%d, %g) = %s, want %s", tt.n, tt.rate, got, tt.want)
		}
	}
}

func TestWindowFromTwoReadings(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	a := soakPoint{at: t0, cycles: 1000, errors: 1, bridgeCPU: 10 * time.Second, bridgeRSS: 50 << 20, redisCPU: time.Second}
	b := soakPoint{at: t0.Add(time.Minute), cycles: 13000, errors: 3, bridgeCPU: 22 * time.Second, bridgeRSS: 60 << 20, redisCPU: 7 * time.Second}
	w := window(a, b, 2*time.Minute)
	want := SoakWindow{End: 2 * time.Minute, Cycles: 12000, Errors: 2, PerSecond: 200,
		BridgeCPUPerCycle: time.Millisecond, BridgeCPUShare: 0.2, BridgeRSS: 60 << 20, RedisCPUShare: 0.1}
	if math.Abs(w.RedisCPUShare-want.RedisCPUShare) > 1e-9 || math.Abs(w.BridgeCPUShare-want.BridgeCPUShare) > 1e-9 {
		t.Fatalf("CPU shares = %g, %g; want %g, %g", w.BridgeCPUShare, w.RedisCPUShare, want.BridgeCPUShare, want.RedisCPUShare)
	}
	w.RedisCPUShare, w.BridgeCPUShare = want.RedisCPUShare, want.BridgeCPUShare
	if w != want {
		t.Fatalf("window = %+v, want %+v", w, want)
	}
	if idle := window(a, soakPoint{at: t0.Add(time.Minute), cycles: 1000, errors: 1, bridgeCPU: 11 * time.Second}, time.Minute); idle.BridgeCPUPerCycle != 0 || idle.PerSecond != 0 {
		t.Fatalf("window without cycles = %+v, want no rate and no CPU per cycle", idle)
	}
}

func TestCompareWindowsVerdict(t *testing.T) {
	first := SoakWindow{PerSecond: 200, BridgeCPUPerCycle: time.Millisecond, BridgeRSS: 100 << 20}
	tests := []struct {
		name string
		last SoakWindow
		pass bool
		out  []string // the measures out of tolerance
	}{
		{"same", first, true, nil},
		{"within on every side", SoakWindow{PerSecond: 181, BridgeCPUPerCycle: 1099 * time.Microsecond, BridgeRSS: 91 << 20}, true, nil},
		{"exactly ten per cent", SoakWindow{PerSecond: 220, BridgeCPUPerCycle: 900 * time.Microsecond, BridgeRSS: 110 << 20}, true, nil},
		{"slower", SoakWindow{PerSecond: 170, BridgeCPUPerCycle: time.Millisecond, BridgeRSS: 100 << 20}, false, []string{MeasureRate}},
		{"dearer", SoakWindow{PerSecond: 200, BridgeCPUPerCycle: 1200 * time.Microsecond, BridgeRSS: 100 << 20}, false, []string{MeasureCPU}},
		{"growing", SoakWindow{PerSecond: 200, BridgeCPUPerCycle: time.Millisecond, BridgeRSS: 150 << 20}, false, []string{MeasureMemory}},
		{"all of it", SoakWindow{PerSecond: 100, BridgeCPUPerCycle: 3 * time.Millisecond, BridgeRSS: 10 << 20}, false, []string{MeasureRate, MeasureCPU, MeasureMemory}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmp, pass := CompareWindows(first, tt.last, 0.10)
			if pass != tt.pass {
				t.Errorf("pass = %v, want %v (%+v)", pass, tt.pass, cmp)
			}
			var out []string
			for _, c := range cmp {
				if !c.OK {
					out = append(out, c.Measure)
				}
			}
			if strings.Join(out, ",") != strings.Join(tt.out, ",") {
				t.Errorf("out of tolerance: %v, want %v", out, tt.out)
			}
		})
	}
	// A measure that was zero at first passes only if it stays zero.
	if _, pass := CompareWindows(SoakWindow{}, SoakWindow{}, 0.10); !pass {
		t.Error("two empty windows do not pass")
	}
	if cmp, pass := CompareWindows(SoakWindow{}, SoakWindow{PerSecond: 1}, 0.10); pass || cmp[0].OK {
		t.Errorf("a rate from zero passes: %+v", cmp)
	}
}

func TestSoakConfigCheckNamesTheFlag(t *testing.T) {
	good := SoakConfig{Load: LoadConfig{Agents: 10, Rate: 200, Duration: 10 * time.Minute}, Interval: time.Minute, Tolerance: 0.1}
	if err := good.Check(); err != nil {
		t.Fatalf("a good config: %v", err)
	}
	tests := []struct {
		name   string
		change func(c *SoakConfig)
		want   string
	}{
		{"zero rate", func(c *SoakConfig) { c.Load.Rate = 0 }, "--rate 0"},
		{"negative rate", func(c *SoakConfig) { c.Load.Rate = -5 }, "--rate -5"},
		{"NaN rate", func(c *SoakConfig) { c.Load.Rate = math.NaN() }, "--rate NaN"},
		{"one window", func(c *SoakConfig) { c.Load.Duration = 90 * time.Second }, "--duration 1m30s: must cover the warm-up of 0s and at least two windows"},
		{"negative warm-up", func(c *SoakConfig) { c.Warmup = -time.Second }, "--warmup -1s: must not be negative"},
		{"warm-up leaves one window", func(c *SoakConfig) { c.Warmup = 9 * time.Minute }, "--duration 10m0s: must cover the warm-up of 9m0s"},
		{"negative duration", func(c *SoakConfig) { c.Load.Duration = -time.Minute }, "--duration -1m0s"},
		{"no interval", func(c *SoakConfig) { c.Interval = 0 }, "--interval 0s"},
		{"no agents", func(c *SoakConfig) { c.Load.Agents = 0 }, "--agents 0"},
		{"tolerance above one", func(c *SoakConfig) { c.Tolerance = 10 }, "--tolerance 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.change(&c)
			err := c.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestSoakComparesTheFirstWindowAfterTheWarmup(t *testing.T) {
	w := func(end time.Duration, rss int64) SoakWindow {
		return SoakWindow{End: end, Cycles: 12000, PerSecond: 200, BridgeCPUPerCycle: time.Millisecond, BridgeRSS: rss}
	}
	// Windows end a little after each whole minute, as the ticker reads
	// them.
	late := 15 * time.Millisecond
	windows := []SoakWindow{w(time.Minute+late, 60<<20), w(2*time.Minute+late, 100<<20), w(3*time.Minute+late, 104<<20), w(4*time.Minute+late, 105<<20)}
	cfg := SoakConfig{Interval: time.Minute, Tolerance: 0.1, Warmup: 2 * time.Minute}
	rep, err := soakEnd(&SoakReport{Windows: windows}, cfg, &LoadResult{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Pass || rep.Compare[2].First != float64(104<<20) {
		t.Fatalf("compared %+v (pass %v), want the third window (104 MiB) against the last", rep.Compare, rep.Pass)
	}
	cfg.Warmup = 0
	rep, err = soakEnd(&SoakReport{Windows: windows}, cfg, &LoadResult{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pass || rep.Compare[2].First != float64(60<<20) {
		t.Fatalf("without a warm-up compared %+v (pass %v), want the first window (60 MiB) and a failure", rep.Compare, rep.Pass)
	}
	cfg.Warmup = 3 * time.Minute
	if _, err := soakEnd(&SoakReport{Windows: windows}, cfg, &LoadResult{}, nil); err == nil || !strings.Contains(err.Error(), "only 1 full windows") {
		t.Fatalf("one window after the warm-up: err = %v, want it named", err)
	}
}

func TestSoakReportText(t *testing.T) {
	first := SoakWindow{End: time.Minute, Cycles: 12000, PerSecond: 200, BridgeCPUPerCycle: time.Millisecond, BridgeCPUShare: 0.2, BridgeRSS: 100 << 20, RedisCPUShare: 0.05, Load1: 3.5}
	last := first
	last.End, last.BridgeRSS = 2*time.Minute, 130<<20
	r := &SoakReport{Store: "redis", Mode: ModePending, Agents: 100, Rate: 200, Duration: 2 * time.Minute, Interval: time.Minute, Tolerance: 0.1,
		Windows: []SoakWindow{first, last}}
	r.Compare, r.Pass = CompareWindows(first, last, r.Tolerance)
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"bridge RSS", "+30.0 %  OUT", "cycles/s", "+0.0 %  ok", "FAIL"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	line := first.WindowLine(true)
	for _, want := range []string{"1m0s", "200.0 cycles/s", "1.00ms CPU/cycle (20.0% of a core)", "RSS 100.0 MiB", "redis-server 5.0% of a core", "load 3.50"} {
		if !strings.Contains(line, want) {
			t.Errorf("window line %q lacks %q", line, want)
		}
	}
}

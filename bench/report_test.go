package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0"},
		{850 * time.Microsecond, "850µs"},
		{2500 * time.Microsecond, "2.50ms"},
		{1500 * time.Millisecond, "1.50s"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatDuration(tt.in); got != tt.want {
				t.Errorf("FormatDuration(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{512, "512 B"},
		{2048, "2.0 KiB"},
		{1.5 * 1024 * 1024, "1.5 MiB"},
		{3 << 30, "3.0 GiB"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := FormatBytes(tt.in); got != tt.want {
				t.Errorf("FormatBytes(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func sampleReport() *LoadReport {
	return &LoadReport{
		Store: "redis", Instances: 2, Mode: ModePending, Agents: 100, Think: "0s",
		Config: "default (web and cli, info logs), no config file",
		Load: &LoadResult{
			Cycles: 5000, Elapsed: 2 * time.Second, PerSecond: 2500,
			Ask:           Summary{Count: 5000, P50: time.Millisecond, P99: 4 * time.Millisecond, Max: 9 * time.Millisecond},
			AnswerToAgent: Summary{Count: 5000, P50: 2 * time.Millisecond, P99: 8 * time.Millisecond, Max: 20 * time.Millisecond},
		},
		RedisCallsPerCycle: 61.5,
		Bridges:            []ProcStats{{Pid: 1, CPU: time.Second, CPUShare: 0.5, PeakRSS: 40 << 20, CPUPerCycle: 200 * time.Microsecond}},
		StoreOnly:          &StoreOnlyResult{Cycles: 10000, Elapsed: 2 * time.Second, PerSecond: 5000},
		Ratio:              0.5,
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"store=redis instances=2 mode=pending agents=100",
		"default (web and cli, info logs), no config file",
		"2500 cycles/s", "5000 cycles in 2.00s", "0 errors",
		"answer-to-agent", "p99 8.00ms", "max 20.00ms",
		"61.5 (INFO commandstats", "peak rss 40.0 MiB", "200µs cpu/cycle",
		"5000 cycles/s", "0.50 (end-to-end ÷ store-only)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, sampleReport()); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	e2e := got["end_to_end"].(map[string]any)
	if e2e["cycles_per_s"].(float64) != 2500 || got["ratio_to_store_only"].(float64) != 0.5 {
		t.Errorf("JSON = %s", b.String())
	}
	if a2a := e2e["answer_to_agent"].(map[string]any); a2a["p99_ns"].(float64) != float64(8*time.Millisecond) {
		t.Errorf("answer_to_agent = %v", a2a)
	}
}

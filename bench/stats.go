package bench

import (
	"slices"
	"sync"
	"time"
)

// Latencies collects durations from many goroutines.
type Latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

// Add records one duration.
func (l *Latencies) Add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// Summary returns the count, percentiles and maximum of what was added.
func (l *Latencies) Summary() Summary {
	l.mu.Lock()
	d := slices.Clone(l.d)
	l.mu.Unlock()
	return Summarize(d)
}

// Summary describes a set of durations.
type Summary struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
}

// Summarize sorts d in place and returns its summary; the zero Summary
// when d is empty.
func Summarize(d []time.Duration) Summary {
	if len(d) == 0 {
		return Summary{}
	}
	slices.Sort(d)
	return Summary{Count: len(d), P50: Percentile(d, 50), P99: Percentile(d, 99), Max: d[len(d)-1]}
}

// Percentile returns the p-th percentile (0–100) of sorted by the
// nearest-rank method: the smallest value such that at least p percent of
// the values are at or below it.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return sorted[0]
	}
	rank := int(p/100*float64(n) + 0.999999999)
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

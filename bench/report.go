package bench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// FormatDuration prints d with a precision that suits latencies.
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// FormatBytes prints n in B, KiB, MiB or GiB.
func FormatBytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

func summaryRow(s Summary) string {
	return fmt.Sprintf("p50 %s\tp99 %s\tmax %s\t(n=%d)", FormatDuration(s.P50), FormatDuration(s.P99), FormatDuration(s.Max), s.Count)
}

// WriteTable writes the report as an aligned table.
func (r *LoadReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k string, v ...string) { fmt.Fprintf(tw, "%s\t%s\n", k, strings.Join(v, "\t")) }
	row("run", fmt.Sprintf("store=%s instances=%d mode=%s agents=%d think=%s client=%s", r.Store, r.Instances, r.Mode, r.Agents, r.Think, r.Client))
	row("config", r.Config)
	if l := r.Load; l != nil {
		row("end-to-end", fmt.Sprintf("%.0f cycles/s", l.PerSecond), fmt.Sprintf("%d cycles in %s", l.Cycles, FormatDuration(l.Elapsed)), fmt.Sprintf("%d errors", l.Errors))
		row("ask latency", summaryRow(l.Ask))
		row("answer-to-agent", summaryRow(l.AnswerToAgent))
		row("whole cycle", summaryRow(l.Cycle))
		for _, e := range l.FirstErrors {
			row("error", e)
		}
	}
	if r.RedisCallsPerCycle > 0 {
		row("redis calls/cycle", fmt.Sprintf("%.1f (INFO commandstats, calls inside scripts included)", r.RedisCallsPerCycle))
	}
	if top := topCalls(r.RedisCallsByCommand, 8); top != "" {
		row("redis top calls", top)
	}
	for i, b := range r.Bridges {
		row(fmt.Sprintf("bridge %d", i+1), fmt.Sprintf("cpu %s (%.2f cores)", FormatDuration(b.CPU), b.CPUShare),
			fmt.Sprintf("%s cpu/cycle", FormatDuration(b.CPUPerCycle)), "peak rss "+FormatBytes(float64(b.PeakRSS)))
	}
	for _, o := range []struct {
		name string
		p    *ProcStats
	}{{"redis-server", r.Redis}, {"load tool", r.Tool}} {
		if o.p != nil {
			row(o.name, fmt.Sprintf("cpu %s (%.2f cores)", FormatDuration(o.p.CPU), o.p.CPUShare), fmt.Sprintf("%s cpu/cycle", FormatDuration(o.p.CPUPerCycle)))
		}
	}
	if s := r.StoreOnly; s != nil {
		row("store-only", fmt.Sprintf("%.0f cycles/s", s.PerSecond), fmt.Sprintf("%d cycles in %s", s.Cycles, FormatDuration(s.Elapsed)), summaryRow(s.Cycle))
	}
	if u := r.StoreOnlyRedis; u != nil {
		row("store-only redis", fmt.Sprintf("%.1f round trips/cycle", u.RoundTrips), fmt.Sprintf("%.1f calls/cycle", u.Calls))
	}
	if r.Ratio > 0 {
		row("ratio", fmt.Sprintf("%.2f (end-to-end ÷ store-only)", r.Ratio))
	}
	return tw.Flush()
}

// topCalls lists the n commands with the most calls per cycle, most
// first: "hgetall 17.4, zadd 17.0, ...".
func topCalls(by map[string]float64, n int) string {
	names := make([]string, 0, len(by))
	for name := range by {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(by[b], by[a]), strings.Compare(a, b)) })
	parts := make([]string, 0, n)
	for _, name := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %.1f", name, by[name]))
	}
	return strings.Join(parts, ", ")
}

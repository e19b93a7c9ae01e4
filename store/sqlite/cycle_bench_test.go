package sqlite_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite"
)

// BenchmarkCycleParallel is the store's share of a full ask, answer and
// read cycle on the default route, from many agents at once as under
// load: Create, the read of a wait, Resolve, the read of the result. It
// reports the CPU of the whole process per cycle, the measure the
// bridge's budget is set in.
//
// "linger" is the committer as it runs; "no-linger" commits the writes
// waiting when it looks, without first letting the other writers run.
func BenchmarkCycleParallel(b *testing.B) {
	for _, linger := range []bool{true, false} {
		name := "linger"
		if !linger {
			name = "no-linger"
		}
		b.Run(name, func(b *testing.B) {
			sqlite.SetLinger(b, linger)
			benchCycle(b)
		})
	}
}

func benchCycle(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	r := broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}
	ids := benchIDs(b.N)
	var next atomic.Int64
	b.SetParallelism(50) // 100 agents on 2 CPUs
	b.ReportAllocs()
	b.ResetTimer()
	report := cycleMetrics(b, s)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q := hotQuestion(ids[next.Add(1)-1], now)
			if _, _, err := s.CreateCapped(ctx, q, defaultTargets, 1<<30); err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Get(ctx, q.ID); err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Resolve(ctx, q.ID, r); err != nil {
				b.Error(err)
				return
			}
			if _, err := s.Get(ctx, q.ID); err != nil {
				b.Error(err)
				return
			}
		}
	})
	report()
}

// cycleMetrics starts counting a cycle benchmark's process CPU, system
// calls and group commits; the function it returns reports them per
// cycle (b.N cycles) and per commit.
func cycleMetrics(b *testing.B, s *sqlite.Store) (report func()) {
	cpu0 := testutil.CPUTime(b)
	commits0, writes0 := sqlite.CommitStats(s)
	r0, w0 := ioCalls()
	return func() {
		b.ReportMetric(float64(testutil.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		if r1, w1 := ioCalls(); r1 > 0 {
			b.ReportMetric(float64(r1-r0)/float64(b.N), "reads/op")
			b.ReportMetric(float64(w1-w0)/float64(b.N), "writes/op")
		}
		commits, writes := sqlite.CommitStats(s)
		b.ReportMetric(float64(writes-writes0)/float64(max(commits-commits0, 1)), "writes/commit")
	}
}

// ioCalls returns how many read and write system calls (pread and pwrite
// among them) the process made so far, where the system tells (Linux's
// /proc/self/io); zeros elsewhere.
func ioCalls() (reads, writes int64) {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "syscr":
			reads = n
		case "syscw":
			writes = n
		}
	}
	return reads, writes
}

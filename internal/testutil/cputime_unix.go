//go:build unix

package testutil

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime returns the user and system CPU time this process used so far,
// for benchmarks that report CPU per operation.
func CPUTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

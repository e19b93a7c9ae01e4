//go:build !unix

package testutil

import (
	"testing"
	"time"
)

// CPUTime is not measured on this platform: it returns 0.
func CPUTime(testing.TB) time.Duration { return 0 }

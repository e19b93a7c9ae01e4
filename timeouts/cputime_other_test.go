//go:build !unix

package timeouts_test

import (
	"testing"
	"time"
)

// cpuTime is not measured on this platform.
func cpuTime(*testing.B) time.Duration { return 0 }

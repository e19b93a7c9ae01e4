//go:build !unix

package api

import (
	"testing"
	"time"
)

// cpuTime is not measured on this platform.
func cpuTime(*testing.B) time.Duration { return 0 }

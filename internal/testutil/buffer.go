// Package testutil holds small helpers shared by the project's tests.
package testutil

import (
	"bytes"
	"sync"
)

// Buffer is an output sink safe for concurrent writers: logs of a channel
// under test, the output of a subprocess.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

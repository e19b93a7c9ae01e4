package netlimit

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// server accepts from l and keeps every accepted connection open until
// the test closes it through accepted.
type server struct {
	l        *Listener
	accepted chan net.Conn
}

func newServer(t *testing.T, max int) *server {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Listen(inner, max, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{l: l, accepted: make(chan net.Conn, 100)}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.accepted <- c
		}
	})
	t.Cleanup(func() { l.Close(); wg.Wait() })
	return s
}

func (s *server) dial(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// take returns the next connection the server accepted.
func (s *server) take(t *testing.T) net.Conn {
	t.Helper()
	select {
	case c := <-s.accepted:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("the server accepted no connection")
		return nil
	}
}

// refused dials the server and reports whether it refused the connection:
// the dial is reset, or a read ends with EOF or a reset, rather than the
// connection being kept open or queued (the read times out).
func (s *server) refused(t *testing.T) bool {
	t.Helper()
	c, err := net.Dial("tcp", s.l.Addr().String())
	if err != nil {
		return isReset(err)
	}
	defer c.Close()
	return closedByServer(t, c)
}

// closedByServer reports whether the server closed c (a read ends with
// EOF or a reset) rather than keeping it open (the read times out).
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 1))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	if err == nil {
		t.Fatal("the server sent data on a connection it should have refused or kept silent")
	}
	return errors.Is(err, io.EOF) || isReset(err)
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

func TestListenerRefusesBeyondTheCap(t *testing.T) {
	s := newServer(t, 3)
	held := make([]net.Conn, 3)
	for i := range held {
		s.dial(t)
		held[i] = s.take(t)
	}
	if got := s.l.Open(); got != 3 {
		t.Fatalf("open = %d, want 3", got)
	}

	if !s.refused(t) {
		t.Fatal("a connection beyond the cap was kept waiting instead of refused")
	}
	if got := s.l.Refused(); got != 1 {
		t.Errorf("refused = %d, want 1", got)
	}

	t.Run("a slot freed by Close takes the next connection", func(t *testing.T) {
		held[0].Close()
		held[0].Close() // a second Close frees nothing more
		if got := s.l.Open(); got != 2 {
			t.Fatalf("open after closing one connection twice = %d, want 2", got)
		}
		next := s.dial(t)
		c := s.take(t)
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		_ = next.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(next, make([]byte, 1)); err != nil {
			t.Fatalf("the connection taking the freed slot does not work: %v", err)
		}
		if !s.refused(t) {
			t.Fatal("the cap no longer holds after a slot was reused")
		}
	})
}

func TestListenerCallsOnRefuse(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan struct{}, 10)
	l, err := Listen(inner, 1, func() { refused <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			if _, err := l.Accept(); err != nil {
				return
			}
		}
	}()
	for range 3 {
		if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
			defer c.Close()
		}
	}
	for i := range 2 {
		select {
		case <-refused:
		case <-time.After(10 * time.Second):
			t.Fatalf("onRefuse called %d times, want 2", i)
		}
	}
}

func TestListenRejectsABadCap(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	for _, max := range []int{0, -1} {
		if _, err := Listen(inner, max, nil); err == nil {
			t.Errorf("Listen with cap %d: no error", max)
		}
	}
}

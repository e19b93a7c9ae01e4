package netlimit

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
)

// Listener is a net.Listener that holds at most Max connections open and
// closes any connection accepted beyond that at once. Create it with
// Listen.
type Listener struct {
	net.Listener
	max      int64
	open     atomic.Int64
	refused  atomic.Int64
	onRefuse func()
}

// Listen wraps inner so that at most max connections are open at once.
// onRefuse, when not nil, is called (on the accepting goroutine, so it
// must not block) each time a connection is refused.
func Listen(inner net.Listener, max int, onRefuse func()) (*Listener, error) {
	if max < 1 {
		return nil, errors.New("netlimit: the connection cap must be at least 1")
	}
	return &Listener{Listener: inner, max: int64(max), onRefuse: onRefuse}, nil
}

// Accept returns the next connection within the cap. Connections beyond
// the cap are closed as they arrive and never returned.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &conn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.refused.Add(1)
		refuse(c)
		if l.onRefuse != nil {
			l.onRefuse()
		}
	}
}

// refuse closes c without waiting for its peer: with a zero linger time
// the kernel resets the connection instead of keeping it in TIME_WAIT.
func refuse(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// Open returns how many accepted connections are open now.
func (l *Listener) Open() int { return int(l.open.Load()) }

// Refused returns how many connections were refused so far.
func (l *Listener) Refused() int64 { return l.refused.Load() }

// Max returns the cap.
func (l *Listener) Max() int { return int(l.max) }

// conn gives its slot back on its first Close.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

// Close closes the connection and frees its slot under the cap.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

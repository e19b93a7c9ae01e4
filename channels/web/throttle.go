package web

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Wrong tokens allowed per minute from one client address before its
// logins pause.
const maxFailuresPerMinute = 20

// maxThrottled bounds how many client addresses the throttle remembers.
const maxThrottled = 10000

// throttle counts failed logins per client address in fixed windows. It
// is a brake on guessing, not an account lock: one address that guesses
// wrong too often waits out its window, and nobody else is affected.
// Memory is bounded: at most limit addresses are remembered; when full,
// finished windows are forgotten first, then the oldest.
type throttle struct {
	max    int
	window time.Duration
	limit  int

	mu    sync.Mutex
	addrs map[string]*failures
}

// failures are one address's failed logins in the window that started
// at start.
type failures struct {
	start time.Time
	n     int
}

func newThrottle(max int, window time.Duration, limit int) *throttle {
	return &throttle{max: max, window: window, limit: limit, addrs: map[string]*failures{}}
}

// blocked reports whether addr failed more than max times in its window.
func (t *throttle) blocked(addr string, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.addrs[addr]
	return f != nil && now.Sub(f.start) < t.window && f.n > t.max
}

// fail records a failed login from addr.
func (t *throttle) fail(addr string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.addrs[addr]
	if f == nil || now.Sub(f.start) >= t.window {
		if f == nil && len(t.addrs) >= t.limit {
			t.evict(now)
		}
		f = &failures{start: now}
		t.addrs[addr] = f
	}
	f.n++
}

// evict makes room for one more address: it drops every finished window,
// and when none has finished, the oldest one.
func (t *throttle) evict(now time.Time) {
	var oldest string
	for a, f := range t.addrs {
		if now.Sub(f.start) >= t.window {
			delete(t.addrs, a)
			continue
		}
		if oldest == "" || f.start.Before(t.addrs[oldest].start) {
			oldest = a
		}
	}
	if len(t.addrs) >= t.limit && oldest != "" {
		delete(t.addrs, oldest)
	}
}

// size is how many addresses are remembered.
func (t *throttle) size() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.addrs)
}

// clientAddr is the address a request came from, as the throttle counts
// it: the IP of the TCP peer (behind a reverse proxy, the proxy's), and
// for IPv6 its /64 network, which one client usually holds whole.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

package callback

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// dialLog records the addresses that passed the Policy's dial-time check.
// It lets the tests' connections reach loopback only: an address that
// passed the check but lies beyond this machine is recorded and refused
// here, so that a test never sends a packet off the machine.
type dialLog struct {
	mu   sync.Mutex
	seen []string
}

var errOffMachine = errors.New("test dial hook: not connecting beyond loopback")

func (l *dialLog) hook(_, address string) error {
	l.mu.Lock()
	l.seen = append(l.seen, address)
	l.mu.Unlock()
	if ap, err := netip.ParseAddrPort(address); err != nil || !ap.Addr().Unmap().IsLoopback() {
		return errOffMachine
	}
	return nil
}

func (l *dialLog) addresses() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// internalNames maps test host names to internal addresses of every kind
// the bridge refuses unless allowed.
var internalNames = []struct {
	name, addr, cidr string
}{
	{"loopback.test", "127.0.0.1", "127.0.0.0/8"},
	{"private10.test", "10.0.0.5", "10.0.0.0/8"},
	{"metadata.test", "169.254.169.254", "169.254.169.254/32"},
	{"cgnat.test", "100.64.0.1", "100.64.0.0/10"},
	{"private192.test", "192.168.1.1", "192.168.1.0/24"},
	{"private172.test", "172.16.0.1", "172.16.0.0/12"},
	{"ula.test", "fd00::1", "fc00::/7"},
	{"linklocal6.test", "fe80::1", "fe80::/10"},
	{"multicast.test", "224.0.0.1", "224.0.0.0/4"},
	{"loopback6.test", "::1", "::1/128"},
	{"mapped.test", "::ffff:127.0.0.1", "127.0.0.1/32"},
	{"unspecified.test", "0.0.0.0", "0.0.0.0/32"},
}

// A host name that the allow list admits but that resolves to an internal
// address is refused when connecting: no connection is made and the
// delivery fails with last_error "blocked". With a CIDR entry containing
// the address, the same name is connected to (and, on loopback, the
// delivery arrives).
func TestDialChecksTheResolvedAddress(t *testing.T) {
	rcv4 := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusNoContent })
	rcv6 := newReceiver6(t)
	names := map[string]string{}
	for _, n := range internalNames {
		names[n.name] = n.addr
	}
	dns := newDNSStub(names)
	port := func(addr string) string {
		u := rcv4.URL
		if netip.MustParseAddr(addr) == netip.IPv6Loopback() {
			u = rcv6.URL
		}
		_, p, _ := net.SplitHostPort(u[len("http://"):])
		return p
	}

	for _, allowed := range []bool{false, true} {
		allow := []string{"*.test"}
		if allowed {
			for _, n := range internalNames {
				allow = append(allow, n.cidr)
			}
		}
		for _, n := range internalNames {
			t.Run(fmt.Sprintf("%s allowed %v", n.addr, allowed), func(t *testing.T) {
				e := newEnv(t)
				var dials dialLog
				cfg := testConfig(20 * time.Millisecond)
				cfg.Policy = mustPolicy(t, allow...)
				cfg.resolver, cfg.dialHook = dns.resolver(t), dials.hook
				before := rcv4.count() + rcv6.count()
				q := e.askAndAnswer(t, "http://"+n.name+":"+port(n.addr)+"/hook")
				run(t, New(e.st, cfg, quiet()))
				waitFor(t, "an attempt", func() bool { return e.delivery(t, q.ID).Attempts >= 1 })
				del := e.delivery(t, q.ID)
				got := rcv4.count() + rcv6.count() - before
				if !allowed {
					if del.State != broker.DeliveryFailed || del.LastError != "blocked" || got != 0 || len(dials.addresses()) != 0 {
						t.Errorf("%s → %s: delivery %s %q, %d requests, connections %v; want failed \"blocked\" and no connection",
							n.name, n.addr, del.State, del.LastError, got, dials.addresses())
					}
					return
				}
				if len(dials.addresses()) == 0 {
					t.Fatalf("%s → %s with %s allowed: no connection was made (last_error %q)", n.name, n.addr, n.cidr, del.LastError)
				}
				if ap := netip.MustParseAddrPort(dials.addresses()[0]); ap.Addr().Unmap() != netip.MustParseAddr(n.addr).Unmap() {
					t.Errorf("connected to %s, want %s", ap, n.addr)
				}
				if a := netip.MustParseAddr(n.addr).Unmap(); a.IsLoopback() {
					waitFor(t, "delivery", func() bool { return e.delivery(t, q.ID).State == broker.DeliveryDelivered })
				}
			})
		}
	}
}

// newReceiver6 is a receiver on ::1 that accepts every delivery.
func newReceiver6(t *testing.T) *receiver {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	r := &receiver{respond: func(http.ResponseWriter, int) int { return http.StatusNoContent }}
	r.Server = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r.mu.Lock()
		r.hits = append(r.hits, hit{at: time.Now(), status: http.StatusNoContent})
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})}}
	r.Start()
	t.Cleanup(r.Close)
	return r
}

func mustPolicy(t testing.TB, allow ...string) *Policy {
	t.Helper()
	p, err := NewPolicy(allow)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The address check holds for IP addresses in the URL as well as for
// names: a URL allowed by a host pattern or "*" still connects only to
// public addresses and allowed ranges.
func TestDialChecksLiteralAddresses(t *testing.T) {
	rcv := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusNoContent })
	_, p, _ := net.SplitHostPort(rcv.URL[len("http://"):])
	tests := []struct {
		name  string
		allow []string
		url   string
		want  string
	}{
		{"star does not open loopback", []string{"*"}, rcv.URL + "/hook", "blocked"},
		{"star and a CIDR", []string{"*", "127.0.0.0/8"}, rcv.URL + "/hook", broker.DeliveryDelivered},
		{"IPv4-mapped loopback", []string{"*"}, "http://[::ffff:127.0.0.1]:" + p + "/hook", "blocked"},
		{"IPv4-mapped loopback allowed", []string{"*", "127.0.0.0/8"}, "http://[::ffff:127.0.0.1]:" + p + "/hook", broker.DeliveryDelivered},
		{"unspecified", []string{"*"}, "http://0.0.0.0:" + p + "/hook", "blocked"},
		{"NAT64 of loopback", []string{"*"}, "http://[64:ff9b::7f00:1]:" + p + "/hook", "blocked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			var dials dialLog
			cfg := testConfig(20 * time.Millisecond)
			cfg.Policy = mustPolicy(t, tt.allow...)
			cfg.dialHook = dials.hook
			before := rcv.count()
			q := e.askAndAnswer(t, tt.url)
			run(t, New(e.st, cfg, quiet()))
			waitFor(t, "an outcome", func() bool { return e.delivery(t, q.ID).State != broker.DeliveryPending })
			del := e.delivery(t, q.ID)
			if tt.want == broker.DeliveryDelivered {
				if del.State != tt.want || rcv.count() != before+1 {
					t.Errorf("delivery %s %q; want delivered", del.State, del.LastError)
				}
				return
			}
			if del.State != broker.DeliveryFailed || del.LastError != tt.want || rcv.count() != before || len(dials.addresses()) != 0 {
				t.Errorf("delivery %s %q, connections %v; want failed %q and no connection", del.State, del.LastError, dials.addresses(), tt.want)
			}
		})
	}
}

// A receiver that redirects is not followed, wherever it points: the
// delivery fails with the status and the target is never connected to.
func TestRedirectIsNotFollowed(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, _ int) int {
		w.Header().Set("Location", "http://169.254.169.254/latest/meta-data/")
		return http.StatusFound
	})
	e := newEnv(t)
	var dials dialLog
	cfg := testConfig(20 * time.Millisecond)
	cfg.dialHook = dials.hook
	q := e.askAndAnswer(t, rcv.URL+"/hook")
	run(t, New(e.st, cfg, quiet()))
	waitFor(t, "an outcome", func() bool { return e.delivery(t, q.ID).State != broker.DeliveryPending })
	del := e.delivery(t, q.ID)
	if del.State != broker.DeliveryFailed || del.LastError != "http 302: redirects are not followed" {
		t.Errorf("delivery %s %q; want failed \"http 302: redirects are not followed\"", del.State, del.LastError)
	}
	for _, a := range dials.addresses() {
		if ap := netip.MustParseAddrPort(a); !ap.Addr().IsLoopback() {
			t.Errorf("connected to %s after the redirect", a)
		}
	}
}

// Callbacks ignore HTTP_PROXY and HTTPS_PROXY: a proxy would resolve and
// connect out of the address check's sight.
func TestNoProxyFromTheEnvironment(t *testing.T) {
	rcv := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusNoContent })
	proxied := make(chan struct{}, 16)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		proxied <- struct{}{}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(proxy.Close)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	_, p, _ := net.SplitHostPort(rcv.URL[len("http://"):])

	e := newEnv(t)
	cfg := testConfig(20 * time.Millisecond)
	cfg.Policy = mustPolicy(t, "hook.test", "127.0.0.0/8")
	cfg.resolver = newDNSStub(map[string]string{"hook.test": "127.0.0.1"}).resolver(t)
	q := e.askAndAnswer(t, "http://hook.test:"+p+"/hook")
	run(t, New(e.st, cfg, quiet()))
	waitFor(t, "an outcome", func() bool { return e.delivery(t, q.ID).State != broker.DeliveryPending })
	if del := e.delivery(t, q.ID); del.State != broker.DeliveryDelivered || rcv.count() != 1 || len(proxied) != 0 {
		t.Errorf("delivery %s %q, receiver %d requests, proxy %d; want delivered directly", del.State, del.LastError, rcv.count(), len(proxied))
	}
}

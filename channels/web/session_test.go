package web

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// login signs in with token and returns the session cookie.
func login(t *testing.T, base, token string) *http.Cookie {
	t.Helper()
	res, r := post(t, base+"/inbox/login", base, "application/json", `{"token":"`+token+`"}`)
	if res.StatusCode != 200 || !r.OK || len(res.Cookies()) != 1 {
		t.Fatalf("login: %d %+v", res.StatusCode, r)
	}
	return res.Cookies()[0]
}

// stateStatus is the status of GET /inbox/state with cookie c.
func stateStatus(t *testing.T, base string, c *http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/inbox/state", nil)
	if c != nil {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestSessions: every sign-in gets its own session; signing out revokes
// it (the old cookie no longer works); another instance on the same store
// accepts a session; a new token ends every session.
func TestSessions(t *testing.T) {
	const token = "a-long-enough-web-token-1234"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	cfg := Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}
	e := newEnv(t, cfg, Options{Loopback: false})
	self := e.srv.URL

	first, second := login(t, self, token), login(t, self, token)
	if first.Value == second.Value {
		t.Fatalf("two sign-ins got the same session %q", first.Value)
	}
	for _, c := range []*http.Cookie{first, second} {
		if s := stateStatus(t, self, c); s != 200 {
			t.Fatalf("state with a fresh session: %d", s)
		}
	}

	// A second instance of the bridge over the same store.
	other, err := New(cfg, e.b, Options{Lister: e.st, Loopback: false, Logger: quiet, Sessions: e.st.(broker.Sessions)})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(other.Handler())
	t.Cleanup(func() { other.Close(); srv2.Close() })
	if s := stateStatus(t, srv2.URL, first); s != 200 {
		t.Fatalf("the other instance refuses the session: %d", s)
	}

	res, r := post(t, self+"/inbox/logout", self, "application/json", `{}`, first)
	if res.StatusCode != 200 || !r.OK {
		t.Fatalf("logout: %d %+v", res.StatusCode, r)
	}
	if c := res.Cookies(); len(c) != 1 || c[0].MaxAge >= 0 {
		t.Fatalf("logout does not clear the cookie: %+v", c)
	}
	for name, base := range map[string]string{"this instance": self, "the other instance": srv2.URL} {
		if s := stateStatus(t, base, first); s != http.StatusUnauthorized {
			t.Fatalf("%s accepts the cookie after logout: %d", name, s)
		}
		if res, _ := post(t, base+"/inbox/command", base, "application/json", `{"text":"/pending"}`, first); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s takes a command with the cookie after logout: %d", name, res.StatusCode)
		}
	}
	if s := stateStatus(t, self, second); s != 200 {
		t.Fatalf("logging out one browser signed out another: %d", s)
	}

	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token+"-rotated")
	rotated, err := New(cfg, e.b, Options{Lister: e.st, Loopback: false, Logger: quiet, Sessions: e.st.(broker.Sessions)})
	if err != nil {
		t.Fatal(err)
	}
	srv3 := httptest.NewServer(rotated.Handler())
	t.Cleanup(func() { rotated.Close(); srv3.Close() })
	if s := stateStatus(t, srv3.URL, second); s != http.StatusUnauthorized {
		t.Fatalf("a session made with the old token still works: %d", s)
	}
}

// TestSessionExpires: a session ends cookieMaxAge after sign-in, however
// much it is used (a fixed expiry).
func TestSessionExpires(t *testing.T) {
	const token = "a-long-enough-web-token-1234"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}, Options{Loopback: false})
	start := time.Now()
	e.ch.now = func() time.Time { return start }
	c := login(t, e.srv.URL, token)
	e.ch.now = func() time.Time { return start.Add(cookieMaxAge - time.Minute) }
	if s := stateStatus(t, e.srv.URL, c); s != 200 {
		t.Fatalf("a minute before expiry: %d", s)
	}
	e.ch.now = func() time.Time { return start.Add(cookieMaxAge) }
	if s := stateStatus(t, e.srv.URL, c); s != http.StatusUnauthorized {
		t.Fatalf("at expiry: %d, want 401", s)
	}
}

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip, so that the server sees another client address.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// TestThrottlePerAddress: wrong tokens from one address pause that
// address only; a person elsewhere still signs in.
func TestThrottlePerAddress(t *testing.T) {
	const token = "a-long-enough-web-token-1234"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}, Options{Loopback: false})
	self := e.srv.URL
	try := func(c *http.Client, tok string) int {
		req, _ := http.NewRequest(http.MethodPost, self+"/inbox/login", strings.NewReader(`{"token":"`+tok+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", self)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	guesser, person := clientFrom("127.0.0.2"), clientFrom("127.0.0.3")
	for i := range maxFailuresPerMinute + 1 {
		if s := try(guesser, fmt.Sprintf("guess-guess-guess-%04d", i)); s != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d, want 401", i+1, s)
		}
	}
	if s := try(guesser, token); s != http.StatusTooManyRequests {
		t.Fatalf("the guessing address with the right token: %d, want 429", s)
	}
	if s := try(person, token); s != http.StatusOK {
		t.Fatalf("another address with the right token: %d, want 200", s)
	}
}

func TestThrottleMemoryIsBounded(t *testing.T) {
	th := newThrottle(2, time.Minute, 3)
	now := time.Now()
	for i := range 3 {
		th.fail(fmt.Sprintf("10.0.0.%d", i), now.Add(-2*time.Minute)) // windows that have ended
	}
	for range 3 {
		th.fail("10.0.1.1", now)
	}
	if th.size() != 1 {
		t.Fatalf("ended windows were kept: %d addresses remembered", th.size())
	}
	if !th.blocked("10.0.1.1", now) {
		t.Fatal("the guessing address is not blocked")
	}
	for i := range 1000 {
		th.fail(fmt.Sprintf("10.1.%d.%d", i/250, i%250), now.Add(time.Duration(i)*time.Millisecond))
	}
	if th.size() > 3 {
		t.Fatalf("%d addresses remembered, limit 3", th.size())
	}
	if th.blocked("10.0.1.1", now.Add(time.Minute)) {
		t.Fatal("still blocked after the window")
	}
}

func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:5123":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:80":      "192.0.2.7",
		"not-an-address":             "not-an-address",
	} {
		if got := clientAddr(&http.Request{RemoteAddr: remote}); got != want {
			t.Errorf("clientAddr(%q) = %q, want %q", remote, got, want)
		}
	}
}

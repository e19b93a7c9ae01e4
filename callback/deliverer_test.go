package callback

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/broker"
)

// counters reads the delivery counters as a scrape would.
func counters(t *testing.T, d *Deliverer) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(d.Collector())
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				out[l.GetValue()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// loopback allows callbacks to this machine, where the tests' receivers
// listen.
var loopback = []string{"127.0.0.0/8", "::1/128"}

func testConfig(base time.Duration) Config {
	p, err := NewPolicy(loopback)
	if err != nil {
		panic(err)
	}
	return Config{
		DefaultSecret: testSecret, BaseBackoff: base, MaxBackoff: 4 * base,
		Timeout: 2 * time.Second, Poll: 20 * time.Millisecond, Policy: p,
	}
}

// A receiver that fails the first three attempts of every delivery gets
// exactly one accepted, correctly signed delivery per resolution, and the
// retries are at least the base backoff apart.
func TestDeliverRetriesUntilAccepted(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t, func(_ http.ResponseWriter, n int) int {
		if n <= 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	const base = 60 * time.Millisecond
	d := New(e.st, testConfig(base), quiet())
	qs := map[string]*broker.Question{}
	for range 3 {
		q := e.askAndAnswer(t, rcv.URL+"/hook?token=x")
		qs[q.ID] = q
	}
	run(t, d)
	for id := range qs {
		waitFor(t, "delivery of "+id, func() bool { return e.delivery(t, id).State == broker.DeliveryDelivered })
	}
	if n := d.sweep(context.Background()); n != 0 {
		t.Errorf("after every delivery was acknowledged a sweep still claimed %d", n)
	}

	accepted := map[string]int{}
	byDelivery := map[string][]hit{}
	for _, h := range rcv.snapshot() {
		byDelivery[h.delivery] = append(byDelivery[h.delivery], h)
		if h.status == http.StatusOK {
			accepted[h.question]++
			if h.verified != nil {
				t.Errorf("accepted delivery for %s: signature check failed: %v", h.question, h.verified)
			}
			var res broker.Result
			if err := json.Unmarshal(h.body, &res); err != nil || res.ID != h.question || res.Status != broker.StatusAnswered || res.Answers["Deploy now?"].Selected[0] != "Yes" {
				t.Errorf("body of %s is not the question's result: %s (%v)", h.question, h.body, err)
			}
		}
	}
	for id := range qs {
		if accepted[id] != 1 {
			t.Errorf("question %s: %d accepted deliveries, want exactly 1", id, accepted[id])
		}
		del := e.delivery(t, id)
		if del.Attempts != 4 || del.LastError != "" {
			t.Errorf("question %s: delivery attempts %d last_error %q, want 4 and none", id, del.Attempts, del.LastError)
		}
		hits := byDelivery[del.ID]
		if len(hits) != 4 {
			t.Fatalf("delivery %s reached the receiver %d times, want 4", del.ID, len(hits))
		}
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].at.Sub(hits[i-1].at); gap < base {
				t.Errorf("delivery %s: attempts %d and %d only %s apart, want ≥ %s", del.ID, i, i+1, gap, base)
			}
		}
	}
	c := counters(t, d)
	if c["delivered"] != 3 || c["retried"] != 9 || c["failed"] != 0 {
		t.Errorf("counters = %v, want delivered 3, retried 9, failed 0", c)
	}
}

// Final answers stop the retries: the delivery is failed with the reason.
func TestDeliverStopsOnFinalAnswers(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		wantErr string
	}{
		{"not found", http.StatusNotFound, "http 404"},
		{"gone", http.StatusGone, "http 410"},
		{"unauthorized", http.StatusUnauthorized, "http 401"},
		{"redirect", http.StatusFound, "http 302: redirects are not followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rcv := newReceiver(t, func(w http.ResponseWriter, _ int) int {
				if tt.status == http.StatusFound {
					w.Header().Set("Location", "http://127.0.0.1:1/elsewhere")
				}
				return tt.status
			})
			d := New(e.st, testConfig(20*time.Millisecond), quiet())
			q := e.askAndAnswer(t, rcv.URL)
			run(t, d)
			waitFor(t, "failed delivery", func() bool { return e.delivery(t, q.ID).State == broker.DeliveryFailed })
			del := e.delivery(t, q.ID)
			if del.Attempts != 1 || del.LastError != tt.wantErr {
				t.Errorf("delivery = attempts %d, last_error %q; want 1 attempt and %q", del.Attempts, del.LastError, tt.wantErr)
			}
			if n := rcv.count(); n != 1 {
				t.Errorf("receiver got %d requests, want 1", n)
			}
			if c := counters(t, d); c["failed"] != 1 || c["delivered"] != 0 {
				t.Errorf("counters = %v, want failed 1", c)
			}
		})
	}
}

// Deliveries that must never be sent are failed with a clear reason and
// the receiver hears nothing; the question itself is answered regardless.
func TestDeliverRefuses(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*Config)
		wantErr string
	}{
		{"not in the allow list", func(c *Config) {
			c.Policy, _ = NewPolicy([]string{"hooks.example.com"})
		}, "blocked: the URL is not in callbacks.allow"},
		{"no secret for the agent", func(c *Config) {
			c.DefaultSecret = ""
			c.Secrets = map[string]string{"other-agent": "x"}
		}, `no callback secret is configured for agent "agent-a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rcv := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusOK })
			cfg := testConfig(20 * time.Millisecond)
			tt.cfg(&cfg)
			d := New(e.st, cfg, quiet())
			q := e.askAndAnswer(t, rcv.URL)
			run(t, d)
			waitFor(t, "failed delivery", func() bool { return e.delivery(t, q.ID).State == broker.DeliveryFailed })
			if del := e.delivery(t, q.ID); !strings.Contains(del.LastError, tt.wantErr) {
				t.Errorf("last_error = %q, want it to say %q", del.LastError, tt.wantErr)
			}
			if n := rcv.count(); n != 0 {
				t.Errorf("receiver got %d requests, want none", n)
			}
			if got, _ := e.st.Get(context.Background(), q.ID); got.Status != broker.StatusAnswered {
				t.Errorf("question status = %s, want answered", got.Status)
			}
		})
	}
}

// An unreachable receiver leaves the delivery pending with the error on
// record and counted as retried, until the window ends.
func TestDeliverUnreachable(t *testing.T) {
	e := newEnv(t)
	dead := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusOK })
	url := dead.URL
	dead.Close()

	d := New(e.st, testConfig(20*time.Millisecond), quiet())
	q := e.askAndAnswer(t, url)
	run(t, d)
	waitFor(t, "a failed attempt", func() bool { return e.delivery(t, q.ID).Attempts >= 2 })
	del := e.delivery(t, q.ID)
	if del.State != broker.DeliveryPending || del.LastError != "refused" {
		t.Errorf("delivery = %s %q, want pending, \"refused\"", del.State, del.LastError)
	}
	if c := counters(t, d); c["retried"] < 1 {
		t.Errorf("counters = %v, want retried ≥ 1", c)
	}

	t.Run("gives up after the window", func(t *testing.T) {
		e := newEnv(t)
		cfg := testConfig(20 * time.Millisecond)
		cfg.Window = 150 * time.Millisecond
		d := New(e.st, cfg, quiet())
		q := e.askAndAnswer(t, url)
		run(t, d)
		waitFor(t, "give-up", func() bool { return e.delivery(t, q.ID).State == broker.DeliveryFailed })
		if del := e.delivery(t, q.ID); !strings.HasPrefix(del.LastError, "gave up after ") || !strings.HasSuffix(del.LastError, ": refused") {
			t.Errorf("last_error = %q, want it to say it gave up", del.LastError)
		}
	})
}

// Deliveries live in the store: a deliverer that stops with work
// outstanding leaves it to the next one, after the store is reopened.
func TestDeliverSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	up := make(chan struct{})
	rcv := newReceiver(t, func(http.ResponseWriter, int) int {
		select {
		case <-up:
			return http.StatusNoContent
		default:
			return http.StatusBadGateway
		}
	})
	q := e.askAndAnswer(t, rcv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	d := New(e.st, testConfig(30*time.Millisecond), quiet())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	waitFor(t, "a failed attempt", func() bool { return e.delivery(t, q.ID).Attempts >= 1 })
	cancel()
	<-done
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}

	close(up)
	e.open(t)
	run(t, New(e.st, testConfig(30*time.Millisecond), quiet()))
	waitFor(t, "delivery after restart", func() bool { return e.delivery(t, q.ID).State == broker.DeliveryDelivered })
	accepted := 0
	for _, h := range rcv.snapshot() {
		if h.status == http.StatusNoContent {
			accepted++
		}
	}
	if accepted != 1 {
		t.Errorf("accepted deliveries = %d, want 1", accepted)
	}
}

func TestClassify(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		status     int
		retryAfter string
		permanent  bool
		wantWait   time.Duration
		ok         bool
	}{
		{200, "", false, 0, true},
		{204, "", false, 0, true},
		{400, "", true, 0, false},
		{403, "", true, 0, false},
		{408, "", false, 0, false},
		{429, "7", false, 7 * time.Second, false},
		{503, now.Add(90 * time.Second).Format(http.TimeFormat), false, 90 * time.Second, false},
		{503, "soon", false, 0, false},
		{500, "-3", false, 0, false},
		{301, "", true, 0, false},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status)+"/"+tt.retryAfter, func(t *testing.T) {
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}}
			if tt.retryAfter != "" {
				resp.Header.Set("Retry-After", tt.retryAfter)
			}
			out := classify(resp, now)
			if (out.err == nil) != tt.ok || out.permanent != tt.permanent || out.retryAfter != tt.wantWait {
				t.Errorf("classify(%d, %q) = ok %v permanent %v wait %s; want ok %v permanent %v wait %s",
					tt.status, tt.retryAfter, out.err == nil, out.permanent, out.retryAfter, tt.ok, tt.permanent, tt.wantWait)
			}
		})
	}
}

func TestBackoffStaysWithinBounds(t *testing.T) {
	d := New(nil, Config{BaseBackoff: time.Second, MaxBackoff: 8 * time.Second}, quiet())
	for n := 1; n <= 10; n++ {
		ceil := min(time.Second<<(n-1), 8*time.Second)
		for range 50 {
			if w := d.backoff(n); w < time.Second || w > ceil {
				t.Fatalf("backoff(%d) = %s, want within [1s, %s]", n, w, ceil)
			}
		}
	}
}

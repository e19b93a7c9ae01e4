package api

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// readCounter is the real store, counting the reads of each agent's event
// log.
type readCounter struct {
	broker.Store
	mu    sync.Mutex
	reads map[string]int
}

func (c *readCounter) Events(ctx context.Context, agent string, after int64, limit int) ([]broker.Event, error) {
	c.mu.Lock()
	c.reads[agent]++
	c.mu.Unlock()
	return c.Store.Events(ctx, agent, after, limit)
}

// readsOf returns how often agent's event log was read so far.
func (c *readCounter) readsOf(agent string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[agent]
}

// limitEnv is an API server with limits, on a broker over a counted
// SQLite store; agents a1, a2 and a3 hold keys k1, k2 and k3.
type limitEnv struct {
	*evEnv
	store *readCounter
}

func newLimitEnv(tb testing.TB, pending, streams int) *limitEnv {
	tb.Helper()
	var counted *readCounter
	b := sqlitetest.NewBroker(tb, sqlitetest.DefaultRoute("test", "c1"), func(c *broker.Config) {
		counted = &readCounter{Store: c.Store, reads: map[string]int{}}
		c.Store, c.PendingPerAgent = counted, pending
	})
	b.Register(brokertest.NewChannel("test"))
	var keys []Key
	for i := 1; i <= 3; i++ {
		keys = append(keys, Key{Name: fmt.Sprintf("a%d", i), Secret: fmt.Sprintf("k%d", i)})
	}
	srv := New(Config{Loopback: true, AgentKeys: keys, Logger: slog.New(slog.DiscardHandler), StreamsPerAgent: streams}, b.Broker, counted)
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() { srv.Drain(); hs.Close() })
	return &limitEnv{evEnv: &evEnv{b: b.Broker, srv: hs}, store: counted}
}

// bearer is the header of agent aN's key.
func bearer(agent string) http.Header {
	return http.Header{"Authorization": {"Bearer k" + strings.TrimPrefix(agent, "a")}}
}

// errorAnswer reads an error answer.
func errorAnswer(t *testing.T, resp *http.Response) errorDetail {
	t.Helper()
	defer resp.Body.Close()
	var body errorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body: %v", err)
	}
	return body.Error
}

// wantLimit fails t unless resp is a 429 with Retry-After naming the
// limit text and the setting.
func wantLimit(t *testing.T, what string, resp *http.Response, text, setting string) {
	t.Helper()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("%s: %s, want 429", what, resp.Status)
	}
	if got := resp.Header.Get("Retry-After"); got != "30" {
		t.Errorf("%s: Retry-After %q, want 30", what, got)
	}
	e := errorAnswer(t, resp)
	if e.Code != "limit" || !strings.Contains(e.Message, text) || !strings.Contains(e.Message, setting) {
		t.Fatalf("%s: error %+v, want code limit and a message naming %q and %s", what, e, text, setting)
	}
}

// TestStreamsPerAgent: an agent holds at most the cap of open streams; one
// more is a 429 naming the limit and its key, other agents are not held
// back, and a closed stream frees its slot.
func TestStreamsPerAgent(t *testing.T) {
	e := newLimitEnv(t, 0, 2)
	url := e.srv.URL + "/v1/events"
	_, closeFirst, resp := openStream(t, url, bearer("a1"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %s", resp.Status)
	}
	if _, _, resp := openStream(t, url, bearer("a1")); resp.StatusCode != http.StatusOK {
		t.Fatalf("second stream: %s", resp.Status)
	}
	_, _, resp = openStream(t, url, bearer("a1"))
	wantLimit(t, "third stream", resp, "the agent already has 2 open event streams", "limits.streams_per_agent")
	if _, _, resp := openStream(t, url, bearer("a2")); resp.StatusCode != http.StatusOK {
		t.Fatalf("another agent's stream: %s, want 200", resp.Status)
	}

	closeFirst()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, closeIt, resp := openStream(t, url, bearer("a1"))
		if resp.StatusCode == http.StatusOK {
			break
		}
		resp.Body.Close()
		closeIt()
		if time.Now().After(deadline) {
			t.Fatalf("a stream after closing one: %s, want 200", resp.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestResolutionReadsOnlyItsAgentsStreams: resolving one agent's questions
// makes only that agent's streams read the event log. Another agent's ten
// idle streams each read once at the start and once for their own
// question's event, however many of the first agent's questions resolve.
func TestResolutionReadsOnlyItsAgentsStreams(t *testing.T) {
	const idle, busy = 10, 20
	// A heartbeat also reads the log: on a slow machine the test can
	// outlast the 15 s between two, which is not what it counts.
	eventHeartbeat.Store(int64(time.Hour))
	t.Cleanup(func() { eventHeartbeat.Store(0) })
	e := newLimitEnv(t, 0, 16)
	url := e.srv.URL + "/v1/events"
	var idleStreams []<-chan sseEvent
	for range idle {
		evs, _, resp := openStream(t, url, bearer("a2"))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("idle stream: %s", resp.Status)
		}
		idleStreams = append(idleStreams, evs)
	}
	busyStream, _, _ := openStream(t, url, bearer("a1"))
	start := e.store.readsOf("a2")

	for range busy {
		e.answer(t, e.ask(t, "a1", "s1", ""))
	}
	for range busy {
		nextEvent(t, busyStream)
	}
	// A question of the idle agent: every idle stream must see it, so
	// that every read the busy agent's resolutions caused has happened.
	own := e.ask(t, "a2", "s1", "")
	e.answer(t, own)
	for _, evs := range idleStreams {
		if _, res := nextEvent(t, evs); res.ID != own {
			t.Fatalf("an idle stream got %s, want its own question %s", res.ID, own)
		}
	}
	reads := e.store.readsOf("a2") - start
	t.Logf("%d idle streams read the event log %d times for %d resolutions of another agent and 1 of their own", idle, reads, busy)
	if reads > 2*idle {
		t.Fatalf("%d idle streams read the event log %d times while another agent's %d questions resolved, want at most %d (one read each for their own question)", idle, reads, busy, 2*idle)
	}
}

// TestAskBeyondPendingCap: a new question beyond the agent's cap of
// pending questions is a 429 with Retry-After naming the limit and its
// key; asking again for an existing question is not, other agents are not
// held back, and answering one makes room.
func TestAskBeyondPendingCap(t *testing.T) {
	e := newLimitEnv(t, 3, 0)
	post := func(agent, call string) *http.Response {
		t.Helper()
		body := `{"question":"Ship it?","options":[{"label":"Yes"},{"label":"No"}],"wait":"0s","session_id":"s1","tool_call_id":"` + call + `"}`
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v1/questions", strings.NewReader(body))
		req.Header = bearer(agent)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	accepted := func(what string, resp *http.Response) string {
		t.Helper()
		defer resp.Body.Close()
		var p pendingBody
		if resp.StatusCode != http.StatusAccepted || json.NewDecoder(resp.Body).Decode(&p) != nil {
			t.Fatalf("%s: %s, want 202 with the question", what, resp.Status)
		}
		return p.ID
	}
	ids := map[string]string{}
	for _, call := range []string{"c1", "c2", "c3"} {
		ids[call] = accepted("ask "+call, post("a1", call))
	}
	wantLimit(t, "fourth question", post("a1", "c4"), "the agent already has 3 pending questions", "limits.pending_per_agent")
	if got := accepted("asking again for c2", post("a1", "c2")); got != ids["c2"] {
		t.Fatalf("asking again for c2 gave %s, want %s", got, ids["c2"])
	}
	accepted("another agent", post("a2", "c4"))
	e.answer(t, ids["c1"])
	accepted("ask after an answer", post("a1", "c4"))
}

// BenchmarkResolutionWithIdleStreams resolves one agent's questions while
// another agent holds 0 or 300 idle event streams, and reports the event
// log reads per resolution: they must not grow with the idle streams.
func BenchmarkResolutionWithIdleStreams(b *testing.B) {
	for _, idle := range []int{0, 300} {
		b.Run(fmt.Sprintf("idle=%d", idle), func(b *testing.B) {
			e := newLimitEnv(b, 0, idle+1)
			url := e.srv.URL + "/v1/events"
			var wg sync.WaitGroup
			var open atomic.Int32
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); wg.Wait() }()
			streams := make([]*http.Response, 0, idle+1)
			for i := range idle + 1 {
				agent := "a2"
				if i == idle {
					agent = "a1"
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				req.Header = bearer(agent)
				resp, err := http.DefaultClient.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("stream %d: %v %v", i, err, resp)
				}
				open.Add(1)
				streams = append(streams, resp)
			}
			busy := streams[idle]
			got := make(chan struct{}, 1024)
			wg.Go(func() {
				buf := make([]byte, 4096)
				for {
					n, err := busy.Body.Read(buf)
					if strings.Contains(string(buf[:n]), "event: resolved") {
						got <- struct{}{}
					}
					if err != nil {
						return
					}
				}
			})
			start := e.store.readsOf("a2") + e.store.readsOf("a1")
			b.ResetTimer()
			for b.Loop() {
				id, _, err := e.b.Ask(context.Background(), "a1", &broker.AskRequest{Question: "Ship it?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.b.Resolve(context.Background(), id.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
					b.Fatal(err)
				}
				select {
				case <-got:
				case <-time.After(10 * time.Second):
					b.Fatal("the busy stream got no event")
				}
			}
			b.StopTimer()
			reads := e.store.readsOf("a2") + e.store.readsOf("a1") - start
			b.ReportMetric(float64(reads)/float64(b.N), "log-reads/op")
			for _, s := range streams {
				s.Body.Close()
			}
		})
	}
}

package api

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite"
)

// BenchmarkResolveWithIdleStreams is one agent's ask and resolution, read
// back from its own GET /v1/events stream, while other agents hold open
// idle streams on the same server. The cost of a resolution must not grow
// with them: other-lines/op counts what those streams received during the
// run (heartbeats aside), and stays 0; cpu-ns/op is the CPU time of the
// whole process (server, broker, store and client) per cycle, which a
// busy machine disturbs less than the wall time.
func BenchmarkResolveWithIdleStreams(b *testing.B) {
	// Heartbeats (each a read of the log per stream, every 15 s) are idle
	// cost, not a resolution's: they would be charged to whichever cycles
	// the run's wall time spans.
	eventHeartbeat.Store(int64(time.Hour))
	defer eventHeartbeat.Store(0)
	for _, others := range []int{0, 1000} {
		b.Run("streams="+strconv.Itoa(others), func(b *testing.B) {
			keys := []Key{{Name: "agent", Secret: "agent-key"}}
			for i := range others {
				keys = append(keys, Key{Name: "other-" + strconv.Itoa(i), Secret: "other-key-" + strconv.Itoa(i)})
			}
			e := newBenchEvents(b, keys)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: others + 1}}
			var lines atomic.Int64
			var wg sync.WaitGroup
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); wg.Wait() }()
			for _, k := range keys[1:] {
				sc := e.stream(b, ctx, client, k.Secret)
				wg.Go(func() {
					for sc.Scan() {
						if line := sc.Text(); line != "" && !strings.HasPrefix(line, ":") {
							lines.Add(1)
						}
					}
				})
			}
			mine := e.stream(b, ctx, client, "agent-key")
			req := &broker.AskRequest{Question: "Ship it?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}}
			res := broker.Resolution{Status: broker.StatusAnswered, Answers: map[string]broker.Answer{"Ship it?": {Selected: []string{"Yes"}}}}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := testutil.CPUTime(b)
			for range b.N {
				q, _, err := e.b.Ask(ctx, "agent", req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.b.Resolve(ctx, q.ID, res); err != nil {
					b.Fatal(err)
				}
				for mine.Scan() {
					if strings.HasPrefix(mine.Text(), "data: ") && strings.Contains(mine.Text(), q.ID) {
						break
					}
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(testutil.CPUTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(lines.Load())/float64(b.N), "other-lines/op")
		})
	}
}

// benchEvents is an API server on a broker with a real SQLite store.
type benchEvents struct {
	b   *broker.Broker
	url string
}

func newBenchEvents(b *testing.B, keys []Key) *benchEvents {
	b.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "askbridge.db"))
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	br, err := broker.New(broker.Config{
		Store:  st,
		Routes: map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: "test", Chat: "c1"}}}},
		Logger: log,
	})
	if err != nil {
		b.Fatal(err)
	}
	outbox.Attach(br, st, outbox.Config{})
	br.Register(brokertest.NewChannel("test"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); br.Run(ctx) }()
	srv := New(Config{Loopback: true, AgentKeys: keys, Logger: log}, br, st)
	hs := httptest.NewServer(srv)
	b.Cleanup(func() {
		srv.Drain()
		hs.CloseClientConnections()
		hs.Close()
		cancel()
		<-done
		br.Close()
		st.Close()
	})
	return &benchEvents{b: br, url: hs.URL}
}

// stream opens the event stream of the agent with key and returns its
// reader, past the first block (the stream's position).
func (e *benchEvents) stream(b *testing.B, ctx context.Context, c *http.Client, key string) *bufio.Scanner {
	b.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("open stream: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && sc.Text() != "" {
	}
	return sc
}

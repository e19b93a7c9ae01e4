package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
)

// connectionGoroutines counts the goroutines net/http holds for
// HTTP/1.1 connections.
func connectionGoroutines() int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
	return strings.Count(buf.String(), "net/http.(*conn).serve(")
}

// rawAgent is an agent's own HTTP/1.1 connection to the server.
type rawAgent struct {
	c  net.Conn
	br *bufio.Reader
	// early and header are the informational responses read before the
	// last answer, and that answer's header.
	early  []*http.Response
	header http.Header
}

func dialAgent(t *testing.T, s *server) *rawAgent {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawAgent{c: c, br: bufio.NewReader(c)}
}

func (a *rawAgent) send(t *testing.T, method, path, body string) {
	t.Helper()
	req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n", method, path, agentKey)
	if body != "" {
		req += fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	if _, err := io.WriteString(a.c, req+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
}

func (a *rawAgent) read(t *testing.T) (int, map[string]any) {
	t.Helper()
	_ = a.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	// Informational responses come before the answer, as HTTP/1.1 lets
	// them: a client reads past them.
	a.early = nil
	resp, err := http.ReadResponse(a.br, nil)
	for err == nil && resp.StatusCode < 200 {
		a.early = append(a.early, resp)
		resp, err = http.ReadResponse(a.br, nil)
	}
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	a.header = resp.Header
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
	if resp.Close {
		t.Errorf("the answer closes the connection")
	}
	return resp.StatusCode, out
}

// Long-polls over HTTP/1.1 give their connections' goroutines back while
// they wait, get exactly their answers, and keep their connections for
// the next request.
func TestParkedLongPollsHoldNoConnectionGoroutine(t *testing.T) {
	s := newServer(t)
	const n = 20
	ids := make([]string, n)
	for i := range ids {
		if i%2 == 0 {
			ids[i] = s.pendingID(t, fmt.Sprintf("s%d", i))
		}
	}
	before := connectionGoroutines()
	agents := make([]*rawAgent, n)
	for i := range agents {
		agents[i] = dialAgent(t, s)
		if i%2 == 0 {
			agents[i].send(t, "GET", "/v1/questions/"+ids[i]+"?wait=30s", "")
		} else {
			agents[i].send(t, "POST", "/v1/questions", fmt.Sprintf(`{"question":"Ship %d?","session_id":"s%d","wait":"30s"}`, i, i))
		}
	}
	waitFor(t, "every long-poll waiting", func() bool { return s.b.Waiting() == n })
	// They park once they have waited a second.
	waitFor(t, "no connection goroutine held", func() bool { return connectionGoroutines() <= before })

	for i := range agents {
		id := ids[i]
		if id == "" {
			_, l := s.call(t, "GET", fmt.Sprintf("/v1/questions?status=pending&session_id=s%d", i), agentKey, nil)
			qs := l["questions"].([]any)
			if len(qs) != 1 {
				t.Fatalf("session s%d: %d pending questions", i, len(qs))
			}
			id = qs[0].(map[string]any)["id"].(string)
			ids[i] = id
		}
		if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": fmt.Sprintf("/answer %s Answer %d", id, i)}); status != 200 {
			t.Fatalf("answer %s: %d %v", id, status, b)
		}
	}
	for i, a := range agents {
		status, b := a.read(t)
		ans, _ := b["answers"].(map[string]any)
		raw, _ := json.Marshal(ans)
		if status != 200 || b["id"] != ids[i] || b["status"] != "answered" || !strings.Contains(string(raw), fmt.Sprintf(`"custom_text":"Answer %d"`, i)) {
			t.Fatalf("long-poll %d: %d %v, want %s answered with \"Answer %d\"", i, status, b, ids[i], i)
		}
		if i%2 == 1 {
			// The asks went to the text channel alone: warned at once in
			// a 103, and again on the parked answer.
			warned := warningsOf(b)
			if len(a.early) != 1 || a.early[0].StatusCode != http.StatusEarlyHints || a.early[0].Header.Get(api.HeaderQuestion) != ids[i] ||
				len(warned) != 1 || !strings.HasPrefix(warned[0], "nobody is told of the question; ") ||
				!slices.Equal(a.early[0].Header.Values(api.HeaderWarning), a.header.Values(api.HeaderWarning)) {
				t.Fatalf("ask %d: early answers %v, answer's header %v, warnings %q; want one 103 with the warning, repeated on the answer", i, a.early, a.header, warned)
			}
		} else if len(a.early) != 0 || a.header.Get(api.HeaderWarning) != "" {
			t.Fatalf("long-poll %d of a question already asked: early answers %v, header %v; want no warning", i, a.early, a.header)
		}
		// The connection serves the agent's next request.
		a.send(t, "GET", "/v1/questions/"+ids[i], "")
		if status, b := a.read(t); status != 200 || b["id"] != ids[i] {
			t.Fatalf("the next request on long-poll %d's connection: %d %v", i, status, b)
		}
	}
}

// A long-poll whose agent hangs up stops waiting at once, as it does when
// net/http holds the connection: its lease is no longer renewed for an
// agent that is gone.
func TestAParkedLongPollStopsWhenItsAgentHangsUp(t *testing.T) {
	s := newServer(t)
	id := s.pendingID(t, "gone")
	a := dialAgent(t, s)
	before := connectionGoroutines()
	a.send(t, "GET", "/v1/questions/"+id+"?wait=60s", "")
	waitFor(t, "the long-poll waiting", func() bool { return s.b.Waiting() == 1 })
	waitFor(t, "the long-poll parked", func() bool { return connectionGoroutines() == before })
	a.c.Close()
	waitFor(t, "the long-poll to stop waiting after its agent hung up", func() bool { return s.b.Waiting() == 0 })
}

// A burst of long-polls parks at once beyond the few that may wait
// unparked, so that a burst holds no more than those few connections'
// goroutines and buffers.
func TestABurstOfLongPollsParksAtOnce(t *testing.T) {
	s := newServer(t)
	api.SetParking(s.api, time.Minute, 2)
	const n = 5
	ids := make([]string, n)
	for i := range ids {
		ids[i] = s.pendingID(t, fmt.Sprintf("burst%d", i))
	}
	before := connectionGoroutines()
	for _, id := range ids {
		dialAgent(t, s).send(t, "GET", "/v1/questions/"+id+"?wait=5m", "")
	}
	waitFor(t, "every long-poll waiting", func() bool { return s.b.Waiting() == n })
	// Two wait unparked (for a minute); the three beyond park at once.
	waitFor(t, "three long-polls parked", func() bool { return connectionGoroutines() == before+2 })
	time.Sleep(100 * time.Millisecond)
	if got := connectionGoroutines(); got != before+2 {
		t.Fatalf("%d connection goroutines for %d long-polls, want 2", got-before, n)
	}
}

// waitFor waits up to 10 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// BenchmarkWaiterMemory holds b.N long-polls at once, each on its own
// HTTP/1.1 connection, and reports what each holds in the process: heap
// in use after a collection, goroutine stacks, goroutines. "parked" is
// the server as bridge serve runs it; "net/http" without parking. The
// client's ends of the connections are in the same process and counted
// (a socket without a goroutine: a few hundred bytes).
func BenchmarkWaiterMemory(b *testing.B) {
	for _, parked := range []bool{true, false} {
		name := "parked"
		if !parked {
			name = "net/http"
		}
		b.Run(name, func(b *testing.B) {
			s := newServerParking(b, parked)
			ctx := context.Background()
			ids := make([]string, 0, b.N)
			for i := 0; i < b.N; i++ {
				q, _, err := s.b.Ask(ctx, "claude", &broker.AskRequest{Questions: []broker.Prompt{{Question: fmt.Sprintf("Ship %d?", i), Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}}}})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, q.ID)
			}
			addr := strings.TrimPrefix(s.URL, "http://")
			before := memoryNow()
			conns0 := connectionGoroutines()
			conns := make([]net.Conn, 0, b.N)
			b.ResetTimer()
			for _, id := range ids {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					b.Fatal(err)
				}
				conns = append(conns, c)
				fmt.Fprintf(c, "GET /v1/questions/%s?wait=60s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", id, agentKey)
			}
			for deadline := time.Now().Add(time.Minute); s.b.Waiting() < b.N || parked && connectionGoroutines() > conns0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					b.Fatalf("%d of %d long-polls waiting, %d connection goroutines", s.b.Waiting(), b.N, connectionGoroutines()-conns0)
				}
			}
			b.StopTimer()
			with := memoryNow()
			n := float64(b.N)
			b.ReportMetric(float64(with.heap-before.heap)/n, "heap-B/waiter")
			b.ReportMetric(float64(with.stack-before.stack)/n, "stack-B/waiter")
			b.ReportMetric(float64(with.goroutines-before.goroutines)/n, "goroutines/waiter")
			s.api.Drain()
			for _, c := range conns {
				c.Close()
			}
		})
	}
}

type memory struct {
	heap, stack uint64
	goroutines  int
}

// memoryNow is the heap in use after two collections (the second frees
// what the first found), the stacks in use and the goroutines.
func memoryNow() memory {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memory{heap: ms.HeapAlloc, stack: ms.StackInuse, goroutines: runtime.NumGoroutine()}
}

// A server that drains releases its parked long-polls as it does the
// others: a blocking ask gets 202 with the question still pending.
func TestDrainReleasesParkedLongPolls(t *testing.T) {
	s := newServer(t)
	api.SetParking(s.api, 10*time.Millisecond, 100)
	before := connectionGoroutines()
	a := dialAgent(t, s)
	a.send(t, "POST", "/v1/questions", `{"question":"Ship it?","session_id":"drain","wait":"60s"}`)
	waitFor(t, "the ask waiting", func() bool { return s.b.Waiting() == 1 })
	waitFor(t, "the ask parked", func() bool { return connectionGoroutines() == before })
	s.api.Drain()
	status, b := a.read(t)
	if status != http.StatusAccepted || b["status"] != "pending" || b["id"] == "" {
		t.Fatalf("drained parked ask: %d %v, want 202 with the pending question", status, b)
	}
}

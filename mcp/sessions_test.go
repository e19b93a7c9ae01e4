package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/mcp"
)

// sessionEnv is an MCP server over streamable HTTP in front of a real
// bridge, whose agents are named by their bearer key.
type sessionEnv struct {
	br      *bridge
	s       *mcp.Server
	url     string
	unbound *underWay
}

// underWay counts the HTTP requests under way that name no session.
// The SDK makes a session for each of them; unless the request is an
// initialize that succeeds, it closes that session as the request ends,
// which may be after the client has read its answer: the SDK's client
// goes on from its server/discover probe to its initialize once the
// probe's answer is on the event stream, while the server has yet to
// close the probe's session.
type underWay struct {
	mu sync.Mutex
	n  int
	// none is closed while no request is under way.
	none chan struct{}
}

func newUnderWay() *underWay {
	none := make(chan struct{})
	close(none)
	return &underWay{none: none}
}

func (u *underWay) start() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == 0 {
		u.none = make(chan struct{})
	}
	u.n++
}

func (u *underWay) end() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.n--
	if u.n == 0 {
		close(u.none)
	}
}

// ended returns a channel closed once no request is under way.
func (u *underWay) ended() <-chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.none
}

func newSessionEnv(t *testing.T, perAgent int, idle time.Duration) *sessionEnv {
	t.Helper()
	br := startBridge(t)
	s, err := mcp.New(mcp.Config{
		Asker:            mcp.Fixed(br.api),
		Agent:            func(h http.Header) string { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") },
		SessionsPerAgent: perAgent,
		SessionTimeout:   idle,
		ProgressEvery:    100 * time.Millisecond,
		PollWait:         time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	unbound := newUnderWay()
	h := s.HTTPHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" {
			unbound.start()
			defer unbound.end()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Drain(); hs.Close() })
	return &sessionEnv{br: br, s: s, url: hs.URL, unbound: unbound}
}

// post sends one JSON-RPC message as agent, in session when not empty.
func (e *sessionEnv) post(t *testing.T, agent, session, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+agent)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// open starts a session as agent with a raw initialize request.
func (e *sessionEnv) open(t *testing.T, agent string) string {
	t.Helper()
	resp, body := e.post(t, agent, "", initialize)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize as %s: %s %s", agent, resp.Status, body)
	}
	return id
}

// ping returns the status of a ping in session, as agent.
func (e *sessionEnv) ping(t *testing.T, agent, session string) int {
	t.Helper()
	resp, _ := e.post(t, agent, session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	return resp.StatusCode
}

// live counts the open sessions of the server, once it has ended the
// requests without a session that were sent before, so that a session
// the SDK made for one of them and is about to close is not counted.
func (e *sessionEnv) live(t *testing.T) int {
	t.Helper()
	select {
	case <-e.unbound.ended():
	case <-time.After(10 * time.Second):
		t.Fatal("a request without a session is still under way")
	}
	n := 0
	for range e.s.SDK().Sessions() {
		n++
	}
	return n
}

// agentKey adds an agent's bearer key to every request.
type agentKey struct{ agent string }

func (k agentKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.agent)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a session as agent with the SDK's client.
func (e *sessionEnv) connect(ctx context.Context, agent string) (*sdk.ClientSession, error) {
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint: e.url, HTTPClient: &http.Client{Transport: agentKey{agent}}, MaxRetries: -1,
	}, nil)
}

// waitingCall makes a blocking ask_user call in cs, and waits until its
// question is posted.
func (e *sessionEnv) waitingCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession, question string) <-chan error {
	t.Helper()
	before := len(e.br.ch.Posts())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []map[string]any{{"question": question, "options": []map[string]any{{"label": "Yes"}, {"label": "No"}}}},
		}})
		done <- err
	}()
	if !e.br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > before }) {
		t.Fatalf("%q was not posted", question)
	}
	return done
}

// One session more than the cap closes the agent's least recently used
// idle session, which then answers 404 so that its client starts anew;
// the others go on.
func TestSessionCapEvictsLeastRecentlyUsedIdle(t *testing.T) {
	e := newSessionEnv(t, 3, 0)
	s1, s2, s3 := e.open(t, "a"), e.open(t, "a"), e.open(t, "a")
	if code := e.ping(t, "a", s1); code != http.StatusOK {
		t.Fatalf("ping s1: %d", code)
	}
	s4 := e.open(t, "a")
	if code := e.ping(t, "a", s2); code != http.StatusNotFound {
		t.Fatalf("ping of the least recently used session after one more opened: %d, want 404", code)
	}
	for _, s := range []string{s1, s3, s4} {
		if code := e.ping(t, "a", s); code != http.StatusOK {
			t.Errorf("ping %s: %d, want 200", s, code)
		}
	}
	if n := e.live(t); n != 3 {
		t.Fatalf("%d sessions open, want the cap, 3", n)
	}
	// Now s3 is the least recently used: s1, s4 were pinged after it.
	e.ping(t, "a", s1)
	e.ping(t, "a", s4)
	e.open(t, "a")
	if code := e.ping(t, "a", s3); code != http.StatusNotFound {
		t.Fatalf("ping s3 after another session: %d, want 404", code)
	}
}

// When every session of the agent has a request under way, a new one is
// refused with 429, a JSON-RPC error naming the key and the agent that
// the SDK's client shows; the busy sessions are untouched and another
// agent still gets sessions.
func TestSessionCapRefusesWhenAllBusy(t *testing.T) {
	e := newSessionEnv(t, 2, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var calls []<-chan error
	for i, q := range []string{"Deploy?", "Purge?"} {
		cs, err := e.connect(ctx, "builder")
		if err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		// Closed after cancel, which ends the call still waiting.
		t.Cleanup(func() { _ = cs.Close() })
		calls = append(calls, e.waitingCall(t, ctx, cs, q))
	}

	resp, body := e.post(t, "builder", "", initialize)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "30" {
		t.Fatalf("third session: %s Retry-After %q %s; want 429 with Retry-After 30", resp.Status, resp.Header.Get("Retry-After"), body)
	}
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("429 body %s: %v", body, err)
	}
	want := `agent "builder" already has 2 MCP sessions with a request under way, the most allowed (limits.mcp_sessions_per_agent)`
	if msg.ID != 1 || msg.Error.Code != -32000 || !strings.Contains(msg.Error.Message, want) {
		t.Fatalf("429 body %s, want the request's id and a message saying %q", body, want)
	}
	// The SDK's client reports a 429 by its status alone.
	if _, err := e.connect(ctx, "builder"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Fatalf("the SDK's client connecting beyond the cap: %v, want Too Many Requests", err)
	}
	if n := e.live(t); n != 2 {
		t.Fatalf("%d sessions open, want the 2 busy ones", n)
	}
	e.open(t, "reviewer")

	// The busy calls still get their answers.
	e.br.answer(t, func(id string) string { return "/answer " + id + " 1" })
	select {
	case err := <-calls[1]:
		if err != nil {
			t.Fatalf("the waiting call: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answered call did not return")
	}
	// Its session is idle once the server has ended the call's request,
	// just after the client has the result: a new session takes its
	// place.
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := e.post(t, "builder", "", initialize)
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusTooManyRequests || time.Now().After(deadline) {
			t.Fatalf("a session after a call returned: %s %s", resp.Status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.live(t); n != 3 {
		t.Fatalf("%d sessions open, want builder's 2 and reviewer's", n)
	}
}

// A session without requests for SessionTimeout is closed: it answers
// 404 and its slot is free.
func TestIdleSessionCloses(t *testing.T) {
	e := newSessionEnv(t, 1, time.Second)
	s1 := e.open(t, "a")
	deadline := time.Now().Add(15 * time.Second)
	for e.live(t) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the idle session is still open")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code := e.ping(t, "a", s1); code != http.StatusNotFound {
		t.Fatalf("ping of the closed session: %d, want 404", code)
	}
	s2 := e.open(t, "a")
	if code := e.ping(t, "a", s2); code != http.StatusOK {
		t.Fatalf("ping of the new session: %d", code)
	}
}

// Agents are counted apart: one agent's sessions never close another's,
// and an agent cannot use another's session.
func TestSessionsOfAgentsIndependent(t *testing.T) {
	e := newSessionEnv(t, 2, 0)
	a1, a2 := e.open(t, "a"), e.open(t, "a")
	b1, b2 := e.open(t, "b"), e.open(t, "b")
	for range 5 {
		e.open(t, "b")
	}
	for _, s := range []string{a1, a2} {
		if code := e.ping(t, "a", s); code != http.StatusOK {
			t.Fatalf("a's session after b opened 7: %d, want 200", code)
		}
	}
	for _, s := range []string{b1, b2} {
		if code := e.ping(t, "b", s); code != http.StatusNotFound {
			t.Fatalf("b's first sessions after it opened 7: %d, want 404", code)
		}
	}
	if code := e.ping(t, "b", a1); code != http.StatusNotFound {
		t.Fatalf("b using a's session: %d, want 404", code)
	}
	if code := e.ping(t, "a", a1); code != http.StatusOK {
		t.Fatalf("a's session after b tried it: %d, want 200", code)
	}
	if n := e.live(t); n != 4 {
		t.Fatalf("%d sessions open, want 2 of each agent", n)
	}
}

// A flood of new sessions from one agent keeps it at the cap: one after
// another, each closes the oldest; at once, each is either a session or
// a 429, never one beyond the cap.
func TestSessionFloodStaysAtCap(t *testing.T) {
	const limit = 4
	e := newSessionEnv(t, limit, 0)
	for i := range 200 {
		e.open(t, "a")
		if n := e.live(t); n > limit {
			t.Fatalf("after %d sessions %d are open, want at most %d", i+1, n, limit)
		}
	}
	if n := e.live(t); n != limit {
		t.Fatalf("%d sessions open after 200, want %d", n, limit)
	}

	var wg sync.WaitGroup
	codes := make(chan int, 200)
	for range 8 {
		wg.Go(func() {
			for range 25 {
				resp, _ := e.post(t, "b", "", initialize)
				codes <- resp.StatusCode
			}
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code != http.StatusOK && code != http.StatusTooManyRequests {
			t.Errorf("a session opened with the others: %d, want 200 or 429", code)
		}
	}
	if n := e.live(t); n > 2*limit {
		t.Fatalf("%d sessions open for two agents, want at most %d", n, 2*limit)
	}
}

// Only an initialize takes a slot: with every slot of the agent busy, a
// request without a session that cannot open one (the SDK's client
// probes with server/discover before it initializes) is answered, not
// refused; and a client that opens and ends sessions one after another
// beside a busy one always finds its slot free, though the server ends
// each request just after the client has its answer.
func TestSessionCapCountsOnlyInitialize(t *testing.T) {
	e := newSessionEnv(t, 2, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	busy, err := e.connect(ctx, "builder")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	e.waitingCall(t, ctx, busy, "Deploy?")
	for i := range 20 {
		cs, err := e.connect(ctx, "builder")
		if err != nil {
			t.Fatalf("session %d beside a busy one, cap 2: %v", i+1, err)
		}
		if err := cs.Close(); err != nil {
			t.Fatalf("ending session %d: %v", i+1, err)
		}
	}

	other, err := e.connect(ctx, "builder")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	e.waitingCall(t, ctx, other, "Purge?")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{}}`,
	} {
		if resp, got := e.post(t, "builder", "", body); resp.StatusCode == http.StatusTooManyRequests {
			t.Errorf("%s without a session, all slots busy: %s %s; want the SDK's answer, not the cap's", body, resp.Status, got)
		}
	}
	if resp, body := e.post(t, "builder", "", initialize); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("initialize with all slots busy: %s %s, want 429", resp.Status, body)
	}
	if n := e.live(t); n != 2 {
		t.Fatalf("%d sessions open, want the 2 busy ones", n)
	}
}

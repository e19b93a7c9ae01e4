package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// The agents of a taskBridge, by key.
const (
	keyBuilder  = "key-builder"
	keyReviewer = "key-reviewer"
)

// taskStore is what the task tests need of a store: the broker's, with
// purge (to make a question expire).
type taskStore interface {
	broker.Store
	api.Store
}

// taskBridge is a real bridge in this process (broker, API with two agent
// keys) over SQLite or Redis. Its default route posts to chat c1 of the
// recording channel "room", may be snoozed, and escalates after a minute
// to the route "oncall" (chat c2); the route "quiet" asks nobody.
type taskBridge struct {
	store string
	st    taskStore
	b     *broker.Broker
	ch    *brokertest.Channel
	url   string
	// open opens another store on the same data (a restart, or another
	// instance on Redis).
	open func(t *testing.T) taskStore
	stop func()
}

var bothStores = []string{"sqlite", "redis"}

func startTaskBridge(t *testing.T, store string) *taskBridge {
	t.Helper()
	var open func(t *testing.T) taskStore
	switch store {
	case "sqlite":
		path := filepath.Join(t.TempDir(), "askbridge.db")
		open = func(t *testing.T) taskStore {
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
	case "redis":
		cfg := redistest.Shared(t)
		open = func(t *testing.T) taskStore {
			st, err := redisstore.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
	default:
		t.Fatalf("no store %q", store)
	}
	return runTaskBridge(t, store, open)
}

// runTaskBridge starts a broker and its API over a store that open opens.
func runTaskBridge(t *testing.T, store string, open func(t *testing.T) taskStore) *taskBridge {
	t.Helper()
	st := open(t)
	b, err := broker.New(broker.Config{Store: st, Logger: slog.New(slog.DiscardHandler), Routes: map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "room", Chat: "c1"}}, Policy: broker.Policy{
			Snooze:   &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2},
			Escalate: []broker.EscalationStep{{After: "1m", Route: "oncall"}},
		}},
		"oncall": {Targets: []broker.Target{{Channel: "room", Chat: "c2"}}},
		"quiet":  {},
		// doomed posts to a chat that failDoomed makes fail for good.
		"doomed": {Targets: []broker.Target{{Channel: "room", Chat: "c9"}}},
		// guarded refuses answers from the requester.
		"guarded": {Targets: []broker.Target{{Channel: "room", Chat: "c1"}}, Policy: broker.Policy{ForbidRequester: true}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	ch := brokertest.NewChannel("room")
	b.Register(ch)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	hs := httptest.NewServer(api.New(api.Config{
		AgentKeys: []api.Key{{Name: "builder", Secret: keyBuilder}, {Name: "reviewer", Secret: keyReviewer}},
		Loopback:  true, Logger: slog.New(slog.DiscardHandler),
	}, b, st))
	var once sync.Once
	stop := func() {
		once.Do(func() {
			hs.Close()
			cancel()
			<-done
			b.Close()
			_ = st.Close()
		})
	}
	t.Cleanup(stop)
	return &taskBridge{store: store, st: st, b: b, ch: ch, url: hs.URL, open: open, stop: stop}
}

// failDoomed makes the posts of the route "doomed" fail for good, after
// the ask's grace: its question is asked (a task is made), then the
// bridge resolves it unsupported.
func (br *taskBridge) failDoomed() {
	br.ch.Fail = map[string]error{"c9": errors.New("chat not found")}
	br.ch.PostDelay = 2500 * time.Millisecond
}

// another starts another bridge on the same data: on SQLite this one is
// stopped first (a restart); on Redis both run (another instance).
func (br *taskBridge) another(t *testing.T) *taskBridge {
	t.Helper()
	if br.store == "sqlite" {
		br.stop()
	}
	return runTaskBridge(t, br.store, br.open)
}

// api is the HTTP API client of an agent.
func (br *taskBridge) api(key string) *client.Client { return client.New(br.url, key) }

// person sends a person's command in chat c1.
func (br *taskBridge) person(t *testing.T, text string) {
	t.Helper()
	reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: text})
	if !reply.OK {
		t.Fatalf("%q refused: %s", text, reply.Text)
	}
}

// posted waits until n questions were posted in c1 and returns the id of
// the last.
func (br *taskBridge) posted(t *testing.T, n int) string {
	t.Helper()
	inC1 := func(c *brokertest.Channel) []*broker.Question {
		var out []*broker.Question
		for _, q := range c.Posts() {
			for _, tg := range q.Targets {
				if tg.Chat == "c1" {
					out = append(out, q)
					break
				}
			}
		}
		return out
	}
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(inC1(c)) >= n }) {
		t.Fatalf("%d questions posted, want %d", len(inC1(br.ch)), n)
	}
	qs := inC1(br.ch)
	return qs[len(qs)-1].ID
}

// taskServer is the MCP server of a bridge: its agent is the bearer key
// of an HTTP request, and the builder on stdio.
func taskServer(t *testing.T, br *taskBridge) *mcp.Server {
	t.Helper()
	key := func(h http.Header) string {
		if h == nil {
			return keyBuilder
		}
		return strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
	}
	s, err := mcp.New(mcp.Config{
		Asker:         func(h http.Header) (mcp.Asker, error) { return br.api(key(h)), nil },
		Agent:         key,
		ProgressEvery: 100 * time.Millisecond,
		PollWait:      time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The params and results of the task methods, as a client decodes them.
type (
	taskIDParams struct {
		sdk.ParamsBase
		TaskID string `json:"taskId"`
	}
	taskListParams struct {
		sdk.ParamsBase
		Cursor string `json:"cursor,omitempty"`
	}
	taskUpdateParams struct {
		sdk.ParamsBase
		TaskID         string         `json:"taskId"`
		InputResponses map[string]any `json:"inputResponses"`
	}
	// wireTask has the fields of both shapes.
	wireTask struct {
		ResultType     string          `json:"resultType"`
		TaskID         string          `json:"taskId"`
		Status         string          `json:"status"`
		StatusMessage  string          `json:"statusMessage"`
		CreatedAt      string          `json:"createdAt"`
		LastUpdatedAt  string          `json:"lastUpdatedAt"`
		TTL            *int64          `json:"ttl"`
		PollInterval   int64           `json:"pollInterval"`
		TTLMs          *int64          `json:"ttlMs"`
		PollIntervalMs int64           `json:"pollIntervalMs"`
		Result         json.RawMessage `json:"result"`
		Error          *jsonrpc.Error  `json:"error"`
		InputRequests  map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	taskResult struct {
		sdk.ResultBase
		wireTask
	}
	taskPage struct {
		sdk.ResultBase
		ResultType string     `json:"resultType"`
		Tasks      []wireTask `json:"tasks"`
		NextCursor string     `json:"nextCursor"`
	}
)

// taskClient is an SDK client that knows the task methods. With ttl > 0
// every tools/call carries params.task {"ttl": ttl} (2025-11-25); with
// extension it declares io.modelcontextprotocol/tasks.
func taskClient(t *testing.T, ttl int64, extension bool) *sdk.Client {
	t.Helper()
	return taskClientWith(t, ttl, extension, &sdk.ClientOptions{})
}

// taskClientWith is taskClient with opts (an elicitation handler).
func taskClientWith(t *testing.T, ttl int64, extension bool, opts *sdk.ClientOptions) *sdk.Client {
	t.Helper()
	if extension {
		opts.Capabilities = &sdk.ClientCapabilities{}
		opts.Capabilities.AddExtension(mcp.ExtensionTasks, nil)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "tasks-test", Version: "v0"}, opts)
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*taskIDParams, *taskResult](c, mcp.MethodTasksGet),
		sdk.AddSendingCustomMethod[*taskIDParams, *sdk.CallToolResult](c, mcp.MethodTasksResult),
		sdk.AddSendingCustomMethod[*taskListParams, *taskPage](c, mcp.MethodTasksList),
		sdk.AddSendingCustomMethod[*taskIDParams, *taskResult](c, mcp.MethodTasksCancel),
		sdk.AddSendingCustomMethod[*taskUpdateParams, *taskResult](c, mcp.MethodTasksUpdate),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if ttl > 0 {
		c.AddSendingMiddleware(withTask(ttl))
	}
	return c
}

// taskCallParams are tools/call params with the 2025-11-25 task field,
// which the SDK's CallToolParams lacks.
type taskCallParams struct {
	*sdk.CallToolParams
	Task map[string]any `json:"task"`
}

// withTask adds params.task to every tools/call but those marked
// plainCall.
func withTask(ttl int64) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if p, ok := req.GetParams().(*sdk.CallToolParams); ok && method == "tools/call" && p.Meta[plainCall] == nil {
				req = &sdk.ClientRequest[*taskCallParams]{Session: req.GetSession().(*sdk.ClientSession), Params: &taskCallParams{CallToolParams: p, Task: map[string]any{"ttl": ttl}}}
			}
			return next(ctx, method, req)
		}
	}
}

// bearer adds an agent key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// connectHTTP opens a session of c on the server at url as the agent of
// key; it closes with the test.
func connectHTTP(t *testing.T, c *sdk.Client, url, key string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// connectStdio runs s on one end of a pipe (stdio's transport, as `bridge
// mcp` does) and connects c to the other; Run ends with the test.
func connectStdio(t *testing.T, s *mcp.Server, c *sdk.Client) *sdk.ClientSession {
	t.Helper()
	return connectStdioAt(t, s, c, "")
}

// connectStdioAt is connectStdio on protocol version (the newest when "").
func connectStdioAt(t *testing.T, s *mcp.Server, c *sdk.Client, version string) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = s.Run(ctx, st) }()
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(context.Background(), ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); cancel(); <-ran })
	return cs
}

// askArgs are ask_user's arguments for one question with two options.
func taskAsk(question string) map[string]any {
	return map[string]any{"questions": []any{map[string]any{"question": question, "options": []any{
		map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}}}
}

// callTask calls ask_user as a task and returns the task id the result's
// _meta names (an SDK client decodes a CreateTaskResult as a tool result
// without content).
func callTask(t *testing.T, cs *sdk.ClientSession, question string) (string, *sdk.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: taskAsk(question)})
	if err != nil {
		t.Fatalf("task call: %v", err)
	}
	rel, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any)
	id, _ := rel["taskId"].(string)
	if id == "" || len(res.Content) != 0 {
		t.Fatalf("task call returned no task: %+v", res)
	}
	return id, res
}

func getTask(t *testing.T, cs *sdk.ClientSession, id string) *taskResult {
	t.Helper()
	r, err := sdk.CallCustomMethod[*taskIDParams, *taskResult](context.Background(), cs, mcp.MethodTasksGet, &taskIDParams{TaskID: id})
	if err != nil {
		t.Fatalf("tasks/get %s: %v", id, err)
	}
	return r
}

// rpcError returns the JSON-RPC error of err, failing the test when err
// is not one with code and a message containing want.
func rpcError(t *testing.T, err error, code int64, want string) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("error %v, want a JSON-RPC error %d containing %q", err, code, want)
	}
	if we.Code != code || !strings.Contains(we.Message, want) {
		t.Fatalf("error %d %q, want %d containing %q", we.Code, we.Message, code, want)
	}
}

// outcomeOf decodes a tool result's structured content.
func outcomeOf(t *testing.T, res *sdk.CallToolResult) mcp.Outcome {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var o mcp.Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return o
}

package callback

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

const testSecret = "s3cret-for-tests"

// env is a broker on a real SQLite file with a recording channel.
type env struct {
	path string
	st   broker.Store
	b    *broker.Broker
}

func newEnv(t testing.TB) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	e := &env{path: path}
	e.open(t)
	return e
}

// open (re)opens the store file and builds a broker on it.
func (e *env) open(t testing.TB) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := broker.New(broker.Config{
		Store:  st,
		Routes: map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: "test", Chat: "c1"}}}},
		Logger: quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	b.Register(brokertest.NewChannel("test"))
	e.st, e.b = st, b
}

// askAndAnswer asks a question with a callback URL and answers it; the
// store enqueues its delivery.
func (e *env) askAndAnswer(t testing.TB, url string) *broker.Question {
	t.Helper()
	ctx := context.Background()
	q, _, err := e.b.Ask(ctx, "agent-a", &broker.AskRequest{
		Question: "Deploy now?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}, CallbackURL: url,
	})
	if err != nil {
		t.Fatal(err)
	}
	q, err = e.b.Resolve(ctx, q.ID, broker.Resolution{
		Status:     broker.StatusAnswered,
		Answers:    map[string]broker.Answer{"Deploy now?": {Selected: []string{"Yes"}}},
		AnsweredBy: &broker.Responder{Channel: "test", User: "u1", Name: "ana"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// run starts d until the test ends.
func run(t testing.TB, d *Deliverer) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// delivery returns the only delivery of question id.
func (e *env) delivery(t testing.TB, id string) broker.Delivery {
	t.Helper()
	ds, err := e.st.Deliveries(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 {
		t.Fatalf("question %s has %d deliveries, want 1", id, len(ds))
	}
	return ds[0]
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// hit is one request a receiver got.
type hit struct {
	at       time.Time
	delivery string
	question string
	body     []byte
	verified error
	status   int
}

// receiver is a webhook endpoint that checks signatures with Verify and
// answers each request with respond(n), n counting that delivery's
// attempts from 1.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	hits    []hit
	respond func(w http.ResponseWriter, n int) int
}

func newReceiver(t testing.TB, respond func(w http.ResponseWriter, n int) int) *receiver {
	r := &receiver{respond: respond}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		h := hit{at: time.Now(), delivery: req.Header.Get(HeaderDelivery), question: req.Header.Get(HeaderQuestion), body: body,
			verified: Verify(testSecret, req.Header, body, 5*time.Minute, time.Now())}
		r.mu.Lock()
		n := 1
		for _, o := range r.hits {
			if o.delivery == h.delivery {
				n++
			}
		}
		h.status = r.respond(w, n)
		r.hits = append(r.hits, h)
		r.mu.Unlock()
		w.WriteHeader(h.status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) snapshot() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

func (r *receiver) count() int { return len(r.snapshot()) }

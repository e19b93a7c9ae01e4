package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// slowChannel holds every edit of a pending question until release is
// closed, as a platform that is slow to answer one call would, and
// records the status of each edit as it completes.
type slowChannel struct {
	*brokertest.Channel
	release chan struct{}

	mu   sync.Mutex
	done []string
}

func (c *slowChannel) Update(ctx context.Context, q *broker.Question, m broker.MessageRef) error {
	if !q.Status.Terminal() {
		<-c.release
	}
	c.mu.Lock()
	c.done = append(c.done, string(q.Status))
	c.mu.Unlock()
	return c.Channel.Update(ctx, q, m)
}

// TestSlowProgressEditNeverCoversTheOutcome: the edit that shows a
// dialog's first answer is still under way when the second answer
// resolves the question. The copy must end showing the outcome, never the
// progress that finished later.
func TestSlowProgressEditNeverCoversTheOutcome(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b, err := broker.New(broker.Config{
		Store:  st,
		Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	ch := &slowChannel{Channel: brokertest.NewChannel("chat"), release: make(chan struct{})}
	b.Register(ch)
	ctx := context.Background()
	q, _, err := b.Ask(ctx, "agent", &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"/answer " + q.ID + ".1 1", "/answer " + q.ID + ".2 1"} {
		if r := b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c1", User: "ana", Name: "ana", Text: text}); !r.OK {
			t.Fatalf("%s: %s", text, r.Text)
		}
	}
	close(ch.release)
	b.Close() // waits for every edit

	ch.mu.Lock()
	defer ch.mu.Unlock()
	if n := len(ch.done); n == 0 || ch.done[n-1] != string(broker.StatusAnswered) {
		t.Fatalf("edits completed in the order %v; the last must show the outcome (answered)", ch.done)
	}
}

// resolveOnClaim is the real store with one interleaving forced: right
// after an edit task of the question is claimed, and before its attempt
// reads the question, the agent cancels the question.
type resolveOnClaim struct {
	broker.Store
	b    *broker.Broker
	id   string
	once sync.Once
}

func (s *resolveOnClaim) ClaimPlatformWork(ctx context.Context, id string, now time.Time, limit int, hold time.Duration) ([]broker.PlatformTask, error) {
	tasks, err := s.Store.ClaimPlatformWork(ctx, id, now, limit, hold)
	for _, x := range tasks {
		if x.QuestionID == s.id && x.Kind == broker.TaskEdit {
			s.once.Do(func() {
				if _, err := s.b.Cancel(context.Background(), "agent", s.id, "not needed"); err != nil {
					panic(err)
				}
			})
		}
	}
	return tasks, err
}

// TestOutcomeClaimedByProgressEditShownOnce: the question is resolved
// while the edit that shows a dialog's first answer is claimed but has not
// read the question yet. That edit shows the outcome; the edit the
// resolution asked for is then already made and must not show the outcome
// a second time.
func TestOutcomeClaimedByProgressEditShownOnce(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rs := &resolveOnClaim{Store: st}
	b, err := broker.New(broker.Config{
		Store:  rs,
		Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, rs, outbox.Config{})
	rs.b = b
	ch := brokertest.NewChannel("chat")
	b.Register(ch)
	ctx := context.Background()
	q, _, err := b.Ask(ctx, "agent", &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rs.id = q.ID
	if r := b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c1", User: "ana", Name: "ana", Text: "/answer " + q.ID + ".1 1"}); !r.OK {
		t.Fatalf("first answer: %s", r.Text)
	}
	b.Close() // waits for every edit

	var shown []string
	for _, u := range ch.Updates() {
		if u.ID == q.ID {
			shown = append(shown, string(u.Status))
		}
	}
	if len(shown) != 1 || shown[0] != string(broker.StatusCancelled) {
		t.Fatalf("the copy was edited to %v, want the outcome once: [cancelled]", shown)
	}
	tasks, err := st.PlatformWork(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tasks {
		if x.Kind == broker.TaskEdit && x.State != broker.TaskDone {
			t.Errorf("edit task is %s, want done", x.State)
		}
	}
}

package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// lockedBuffer is a log's output, written from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A bridge that stops sends the pushes still queued before the inbox
// stops: the questions it posted last still buzz a phone. What it cannot
// send within the drain is logged with how many questions it was.
func TestPushDrainsAtShutdown(t *testing.T) {
	setup := func(t *testing.T) (*env, *pushService, *lockedBuffer) {
		e := newPushEnv(t, nil, false)
		_, key := pushJSON(t, e, http.MethodGet, "/inbox/push/key", nil)
		ps := newPushService(t, key["public_key"].(string), "mailto:ops@example.com")
		if err := e.ch.push.store.SavePushSubscription(context.Background(), ps.newDevice("ana", "ana-phone")); err != nil {
			t.Fatal(err)
		}
		logs := &lockedBuffer{}
		e.ch.push.log = slog.New(slog.NewTextHandler(logs, nil))
		return e, ps, logs
	}
	ask := func(t *testing.T, e *env, n int) map[string]bool {
		ids := map[string]bool{}
		for i := range n {
			q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Question: "Rotate key " + string(rune('A'+i)) + "?"}}})
			ids[q.ID] = true
		}
		if got := len(e.ch.push.queue); got != n {
			t.Fatalf("%d questions queued, want %d", got, n)
		}
		return ids
	}

	t.Run("sent", func(t *testing.T) {
		e, ps, logs := setup(t)
		ids := ask(t, e, 3)
		// The bridge stops before the pusher took anything.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan struct{})
		go func() { defer close(done); e.ch.push.run(ctx) }()
		for range 3 {
			select {
			case d := <-ps.got:
				if !ids[d.msg.ID] || d.device != "ana-phone" {
					t.Fatalf("pushed %+v; want one of %v on ana-phone", d, ids)
				}
				delete(ids, d.msg.ID)
			case <-time.After(2 * waitFor):
				t.Fatalf("the stopping bridge did not push %v", ids)
			}
		}
		<-done
		if strings.Contains(logs.String(), "level=WARN") {
			t.Errorf("a drain that sent everything warned:\n%s", logs)
		}
	})

	t.Run("past the drain", func(t *testing.T) {
		e, ps, logs := setup(t)
		hold := make(chan struct{}) // the push service never answers
		t.Cleanup(func() { close(hold) })
		ps.mu.Lock()
		ps.hold = hold
		ps.mu.Unlock()
		e.ch.push.drainFor = 50 * time.Millisecond
		ask(t, e, 3)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan struct{})
		go func() { defer close(done); e.ch.push.run(ctx) }()
		select {
		case <-done:
		case <-time.After(2 * waitFor):
			t.Fatal("the pusher went on past its drain")
		}
		if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "questions=3") ||
			!strings.Contains(got, "notifications were sent") {
			t.Fatalf("log after a drain that sent nothing:\n%s\nwant a warning naming 3 questions", got)
		}
		if n := len(e.ch.push.queue); n != 0 {
			t.Fatalf("%d questions left queued", n)
		}
	})
}

package client_test

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// retries records what OnRetry was told.
type retries struct {
	mu   sync.Mutex
	seen []client.RetryInfo
}

func (r *retries) add(i client.RetryInfo) { r.mu.Lock(); r.seen = append(r.seen, i); r.mu.Unlock() }

func (r *retries) all() []client.RetryInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]client.RetryInfo(nil), r.seen...)
}

// With no server, every blocking call says it is retrying at once and
// gives up with an *UnreachableError after ConnectTimeout.
func TestConnectTimeoutGivesUp(t *testing.T) {
	calls := []struct {
		name string
		call func(ctx context.Context, c *client.Client) error
	}{
		{"Ask", func(ctx context.Context, c *client.Client) error { _, err := c.Ask(ctx, deploy); return err }},
		{"AskAsync", func(ctx context.Context, c *client.Client) error { _, err := c.AskAsync(ctx, deploy); return err }},
		{"Wait", func(ctx context.Context, c *client.Client) error { _, err := c.Wait(ctx, "k7m2qx"); return err }},
		{"Events", func(ctx context.Context, c *client.Client) error {
			events, errc := c.Events(ctx, client.EventsFilter{})
			for range events {
			}
			return <-errc
		}},
	}
	for _, tt := range calls {
		t.Run(tt.name, func(t *testing.T) {
			server := "http://" + closedAddr(t)
			c := client.New(server, "")
			c.RetryDelay = 20 * time.Millisecond
			c.ConnectTimeout = 300 * time.Millisecond
			var r retries
			c.OnRetry = r.add
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := tt.call(ctx, c)
			var ue *client.UnreachableError
			if !errors.As(err, &ue) || ue.Server != server || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("error %v, want an *UnreachableError for %s wrapping connection refused", err, server)
			}
			if ctx.Err() != nil {
				t.Fatal("the call gave up only when its context ended")
			}
			seen := r.all()
			if len(seen) == 0 || seen[0].Attempt != 1 || seen[0].Reached || seen[0].Server != server {
				t.Fatalf("OnRetry was told %+v, want attempt 1 of an unreached %s first", seen, server)
			}
		})
	}
}

// A call that reached the server keeps re-attaching after a lost
// connection, however short ConnectTimeout is, and says so to OnRetry.
func TestConnectTimeoutSparesReattach(t *testing.T) {
	br, err := startBridge(filepath.Join(t.TempDir(), "askbridge.db"), "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(br)
	c.ConnectTimeout = time.Millisecond
	var r retries
	c.OnRetry = r.add
	type outcome struct {
		res *client.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Ask(context.Background(), deploy)
		done <- outcome{res, err}
	}()
	q := pendingID(t, br)
	br.Kill()
	for len(r.all()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // down for longer than ConnectTimeout
	br, err = startBridge(br.path, br.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(br.Stop)
	if reply := br.B.HandleInbound(context.Background(), broker.Inbound{Channel: "auto", Chat: "room", User: "u2", Name: "bo", Text: "/answer " + q.ID + " 1"}); !reply.OK {
		t.Fatalf("answer after restart: %s", reply.Text)
	}
	select {
	case o := <-done:
		if o.err != nil || o.res.ID != q.ID {
			t.Fatalf("Ask after restart = %+v, %v; want question %s answered", o.res, o.err, q.ID)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Ask did not return after the restart")
	}
	if seen := r.all(); !seen[0].Reached || seen[0].Attempt != 1 {
		t.Fatalf("OnRetry was told %+v first, want attempt 1 of a re-attach", seen[0])
	}
}

// TestReattachPausesGrowAndEndWithTheContext: with no limit but ctx, a
// call keeps trying with pauses drawn from the upper half of a step that
// doubles from RetryDelay, and stops as soon as ctx ends.
func TestReattachPausesGrowAndEndWithTheContext(t *testing.T) {
	c := client.New("http://"+closedAddr(t), "")
	c.RetryDelay = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var r retries
	c.OnRetry = func(i client.RetryInfo) {
		r.add(i)
		if i.Attempt == 4 {
			cancel()
		}
	}
	_, err := c.Wait(ctx, "k7m2qx")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	seen := r.all()
	if len(seen) != 4 {
		t.Fatalf("%d retries, want 4: none after the context ended", len(seen))
	}
	step := c.RetryDelay
	for i, s := range seen {
		if s.Attempt != i+1 || s.Delay < step/2 || s.Delay >= step {
			t.Errorf("retry %d: attempt %d, pause %s; want attempt %d, pause within [%s, %s)", i+1, s.Attempt, s.Delay, i+1, step/2, step)
		}
		step *= 2
	}
}

package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
)

// A snooze while ask_user waits: the call keeps waiting past the old
// deadline, its progress notifications tell the new one, and the answer
// given afterwards is the tool's result.
func TestAskKeepsWaitingAfterASnooze(t *testing.T) {
	br := startBridge(t)
	s := newServer(t, br)
	var mu sync.Mutex
	var progress []string
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Message)
		},
	})
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })

	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "Deploy now?", "options": []any{map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}},
		}}
		p.SetProgressToken("deploy")
		res, _ := cs.CallTool(ctx, p)
		done <- res
	}()
	id := br.answer(t, func(id string) string { return "/snooze " + id })
	q, err := br.b.Get(ctx, "local", id)
	if err != nil || len(q.State.Snoozes) != 1 {
		t.Fatalf("after the snooze: %+v, %v", q, err)
	}
	want := "times out at " + q.ExpiresAt.UTC().Format("15:04:05 UTC")
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		told := len(progress) > 0 && strings.Contains(progress[len(progress)-1], want)
		mu.Unlock()
		if told {
			break
		}
		if time.Now().After(deadline) {
			mu.Lock()
			t.Fatalf("progress %q, want the last to say %q", progress, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case res := <-done:
		t.Fatalf("the call ended after the snooze: %v", res)
	default:
	}
	br.b.HandleInbound(ctx, broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: "/answer " + id + " 1"})
	res := <-done
	if res == nil || res.IsError || !strings.Contains(textOf(res), `"Yes"`) {
		t.Fatalf("result %v %s, want the answer Yes", res, textOf(res))
	}
}

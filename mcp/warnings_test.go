package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// ask_user's result carries the bridge's warning of a question nobody
// watches (here: one only in the text channel), as a line of text and in
// the structured content: at once for a call that does not wait, and in
// the answer of one that does.
func TestAskUserWarnings(t *testing.T) {
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	hs := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(hs.Close)
	s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(client.New(hs.URL, "")), SessionID: "s1", ProgressEvery: time.Hour, PollWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	const want = "nobody is told of the question; the question will wait until "
	check := func(t *testing.T, res *sdk.CallToolResult) {
		t.Helper()
		if res == nil || res.IsError {
			t.Fatalf("call failed: %v", res)
		}
		if text := textOf(res); !strings.Contains(text, "\nWarning: "+want) {
			t.Errorf("text lacks the warning:\n%s", text)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var o mcp.Outcome
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		if len(o.Warnings) != 1 || !strings.HasPrefix(o.Warnings[0], want) || !strings.HasSuffix(o.Warnings[0], ", then time out with no answer") {
			t.Errorf("structured warnings = %q", o.Warnings)
		}
	}
	args := func(q string, wait bool) map[string]any {
		return map[string]any{"questions": []any{map[string]any{"question": q, "options": []any{
			map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}}, "wait": wait}
	}

	t.Run("not waiting", func(t *testing.T) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: args("Rotate the keys?", false)})
		if err != nil {
			t.Fatal(err)
		}
		check(t, res)
	})
	t.Run("waiting", func(t *testing.T) {
		done := make(chan *sdk.CallToolResult, 1)
		go func() {
			res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: args("Ship it?", true)})
			done <- res
		}()
		var id string
		for range 500 {
			qs, err := b.List(context.Background(), broker.Filter{Status: broker.StatusPending})
			if err == nil {
				for _, q := range qs {
					if q.Prompts[0].Question == "Ship it?" {
						id = q.ID
					}
				}
			}
			if id != "" {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if id == "" {
			t.Fatal("the question was not asked")
		}
		if rep := b.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + id + " Yes"}); !rep.OK {
			t.Fatalf("answer: %s", rep.Text)
		}
		res := <-done
		check(t, res)
		if !strings.HasPrefix(textOf(res), "User answered") {
			t.Errorf("the answer does not come first:\n%s", textOf(res))
		}
	})
	t.Run("told at once", func(t *testing.T) {
		// A client that asked for progress hears the warning as soon as
		// the question is asked (progress is otherwise told hourly here).
		told := make(chan string, 4)
		st, ct := sdk.NewInMemoryTransports()
		ss, err := s.SDK().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, &sdk.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
				told <- req.Params.Message
			},
		})
		pcs, err := cl.Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pcs.Close(); ss.Close() })
		done := make(chan *sdk.CallToolResult, 1)
		go func() {
			p := &sdk.CallToolParams{Name: "ask_user", Arguments: args("Tag the release?", true)}
			p.SetProgressToken("tag")
			res, _ := pcs.CallTool(context.Background(), p)
			done <- res
		}()
		var msg string
		select {
		case msg = <-told:
		case res := <-done:
			t.Fatalf("the call ended with no progress: %v", res)
		case <-time.After(20 * time.Second):
			t.Fatal("no progress notification with the warning")
		}
		id, rest, ok := strings.Cut(strings.TrimPrefix(msg, "Asked question "), ". Warning: ")
		if !ok || !strings.HasPrefix(rest, want) || !strings.HasSuffix(rest, ", then time out with no answer.") {
			t.Fatalf("progress = %q, want the question's id and its warning", msg)
		}
		if rep := b.HandleInbound(context.Background(), broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + id + " No"}); !rep.OK {
			t.Fatalf("answer %q: %s", id, rep.Text)
		}
		check(t, <-done)
	})
}

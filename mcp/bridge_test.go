package mcp_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
	"github.com/askbridge/askbridge/store/sqlite"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// bridge is a real askbridge server in this process (API, broker,
// SQLite) whose route posts to a recording channel and may be snoozed;
// people answer with the broker's inbound path.
type bridge struct {
	b   *broker.Broker
	st  *sqlite.Store
	ch  *brokertest.Channel
	api *client.Client
}

func startBridge(t *testing.T) *bridge {
	t.Helper()
	b := sqlitetest.NewBroker(t, func(c *broker.Config) {
		c.Routes = map[string]broker.Route{
			"default": {Targets: []broker.Target{{Channel: "room", Chat: "c1"}},
				Policy: broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}}},
		}
	})
	ch := brokertest.NewChannel("room")
	b.Register(ch)
	hs := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(hs.Close)
	return &bridge{b: b.Broker, st: b.Store, ch: ch, api: client.New(hs.URL, "")}
}

// answer sends a person's command for the last posted question.
func (br *bridge) answer(t *testing.T, text func(id string) string) string {
	t.Helper()
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
		t.Fatal("no question was posted")
	}
	posts := br.ch.Posts()
	id := posts[len(posts)-1].ID
	reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: text(id)})
	if !reply.OK {
		t.Fatalf("answer refused: %s", reply.Text)
	}
	return id
}

// connect serves s to an SDK client over in-memory transports.
func connect(t *testing.T, s *mcp.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func newServer(t *testing.T, br *bridge) *mcp.Server {
	t.Helper()
	s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(br.api), SessionID: "s1", ProgressEvery: 100 * time.Millisecond, PollWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func textOf(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}

package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// idsServer is the API with keys: "strict" must name its asks, "legacy"
// need not (agents[].legacy_ids); log holds what the server logged.
func idsServer(t *testing.T, keys []api.Key) (*server, *bytes.Buffer) {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	var log bytes.Buffer
	srv := api.New(api.Config{AgentKeys: keys, Loopback: true, Logger: slog.New(slog.NewTextHandler(&log, nil))}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	return &server{Server: hs, api: srv, b: b.Broker, st: b.Store}, &log
}

// An agent with a key names every ask by its session and its call;
// without either the ask is refused naming the field, and nothing is
// stored. legacy_ids lets an agent leave them out, and says so in the
// log, at start and on its first such ask; the keyless agent of a
// loopback bridge keeps them optional; the SDK names both by itself.
func TestAskIDsRequired(t *testing.T) {
	s, log := idsServer(t, []api.Key{{Name: "strict", Secret: agentKey, RequireIDs: true}, {Name: "legacy", Secret: otherKey}})
	if !strings.Contains(log.String(), `agents[].legacy_ids is set`) || !strings.Contains(log.String(), "agent=legacy") || strings.Contains(log.String(), "agent=strict") {
		t.Fatalf("start log %q, want one warning, about legacy", log.String())
	}
	ask := func(fields string) string {
		return `{"question":"Ship it?","options":[{"label":"Yes"},{"label":"No"}],"wait":"0s"` + fields + `}`
	}
	for _, tt := range []struct {
		name, body, field, says string
	}{
		{"neither", ask(""), "session_id", "is required for this agent: name the run that asks"},
		{"no session", ask(`,"tool_call_id":"c1"`), "session_id", "agents[].legacy_ids: true allows leaving it out for now"},
		{"no call", ask(`,"session_id":"s1"`), "tool_call_id", "is required for this agent: name this ask within its session"},
		{"empty strings", ask(`,"session_id":"","tool_call_id":""`), "session_id", "is required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out := s.call(t, "POST", "/v1/questions", agentKey, tt.body)
			e, _ := out["error"].(map[string]any)
			if code != 400 || e["field"] != tt.field || !strings.Contains(e["message"].(string), tt.says) {
				t.Fatalf("%d %v; want 400 naming %s and saying %q", code, out, tt.field, tt.says)
			}
		})
	}
	if code, out := s.call(t, "GET", "/v1/questions", agentKey, nil); code != 200 || len(out["questions"].([]any)) != 0 {
		t.Fatalf("after the refusals: %d %v, want no question stored", code, out)
	}
	if code, out := s.call(t, "POST", "/v1/questions", agentKey, ask(`,"session_id":"s1","tool_call_id":"c1"`)); code != 202 {
		t.Fatalf("a named ask: %d %v", code, out)
	}

	log.Reset()
	for range 2 {
		if code, out := s.call(t, "POST", "/v1/questions", otherKey, ask("")); code != 202 {
			t.Fatalf("legacy agent without ids: %d %v", code, out)
		}
	}
	if n := strings.Count(log.String(), "an ask without session_id or tool_call_id"); n != 1 || !strings.Contains(log.String(), "agent=legacy") {
		t.Fatalf("log %q, want the legacy ask warned once", log.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := client.New(s.URL, agentKey)
	id, err := c.AskAsync(ctx, client.Question{Question: "Through the SDK?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatalf("the SDK's ask without ids: %v", err)
	}
	q, err := s.b.Get(ctx, "strict", id)
	if err != nil || q.SessionID != c.SessionID || !strings.HasPrefix(q.SessionID, "sdk-") || !strings.HasPrefix(q.ToolCallID, "call_") {
		t.Fatalf("stored %+v, %v; want the client's session %q and a call id", q, err, c.SessionID)
	}
}

// The keyless agent of a bridge on loopback keeps the ids optional.
func TestAskIDsOptionalForTheLocalAgent(t *testing.T) {
	s, _ := idsServer(t, nil)
	code, out := s.call(t, "POST", "/v1/questions", "", `{"question":"Ship it?","wait":"0s"}`)
	if code != 202 {
		t.Fatalf("%d %v", code, out)
	}
	q, err := s.b.Get(context.Background(), api.LocalAgent, out["id"].(string))
	if err != nil || q.Status != broker.StatusPending {
		t.Fatalf("%+v %v", q, err)
	}
}

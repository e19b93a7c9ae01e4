package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/mcp"
)

// listenMeta is the _meta of a 2026-07-28 request of a client that
// declares the extension.
const listenMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// listen sends a subscriptions/listen for the statuses of ids.
func (c *rawConn) listen(id int64, meta string, ids ...string) {
	c.t.Helper()
	b, _ := json.Marshal(ids)
	rid, _ := jsonrpc.MakeID(float64(id))
	params := `{` + meta + `"notifications":{"tasksStatus":` + string(b) + `}}`
	if meta != "" {
		params = `{` + meta + `,"notifications":{"tasksStatus":` + string(b) + `}}`
	}
	c.write(&jsonrpc.Request{ID: rid, Method: "subscriptions/listen", Params: json.RawMessage(params)})
}

// until reads messages until the response to request id, and returns
// it with the notifications read before it.
func (c *rawConn) until(id int64) (*jsonrpc.Response, []*jsonrpc.Request) {
	c.t.Helper()
	var notes []*jsonrpc.Request
	for {
		switch m := c.read().(type) {
		case *jsonrpc.Request:
			notes = append(notes, m)
		case *jsonrpc.Response:
			if n, ok := m.ID.Raw().(int64); ok && n == id {
				return m, notes
			}
		}
	}
}

// subscription is the listen a notification's _meta names.
func subscription(t *testing.T, params json.RawMessage) string {
	t.Helper()
	meta := object(t, object(t, params)["_meta"])
	return string(meta["io.modelcontextprotocol/subscriptionId"])
}

// An extension client that listens for a task's status (SEP-2663 on a
// subscriptions/listen, in raw JSON-RPC: the SDK's listen cannot name
// tasks) gets the acknowledgement with the tasks the server follows,
// then the whole task at the snooze (new deadline), the escalation and
// the answer (with its result), each tied to the listen; the listen then
// ends. The task was made on another connection: it is the question's.
func TestTaskStatusListen(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			s := taskServer(t, br)
			cs := connectStdio(t, s, taskClient(t, 0, true))
			id, _ := callTask(t, cs, "Deploy the release?")

			c := rawStdio(t, s)
			c.listen(1, listenMeta, id, "nosuch")
			ack := c.note("notifications/subscriptions/acknowledged")
			if string(ack["notifications"]) != `{"tasksStatus":["`+id+`"]}` || subscription(t, mustJSON(ack)) != "1" {
				t.Fatalf("acknowledgement: %s", jsonOf(ack))
			}
			br.person(t, "/snooze "+id)
			n := c.note(mcp.NotificationTaskStatus)
			if str(n["taskId"]) != id || str(n["status"]) != "working" || !strings.HasPrefix(str(n["statusMessage"]), "Snoozed by ana; waiting for an answer (it times out at ") ||
				string(n["ttlMs"]) != fmt.Sprint((broker.DefaultTimeout+30*time.Minute).Milliseconds()) || subscription(t, mustJSON(n)) != "1" {
				t.Fatalf("notification of the snooze: %s", jsonOf(n))
			}
			if _, has := n["resultType"]; has {
				t.Errorf("a notification's task has a resultType: %s", jsonOf(n))
			}
			if ok, err := br.b.Escalate(context.Background(), id, time.Now().Add(2*time.Minute)); !ok || err != nil {
				t.Fatalf("escalate: %v %v", ok, err)
			}
			if n = c.note(mcp.NotificationTaskStatus); !strings.HasPrefix(str(n["statusMessage"]), "Escalated to oncall; waiting for an answer") {
				t.Fatalf("notification of the escalation: %s", jsonOf(n))
			}
			br.person(t, "/answer "+id+" 1")
			if n = c.note(mcp.NotificationTaskStatus); str(n["status"]) != "completed" || !strings.Contains(string(n["result"]), "User answered your questions:") {
				t.Fatalf("notification of the answer: %s", jsonOf(n))
			}
			end, _ := c.until(1)
			if end.Error != nil || !strings.Contains(string(end.Result), `"io.modelcontextprotocol/subscriptionId":1`) {
				t.Fatalf("end of the listen: %+v %s", end.Error, end.Result)
			}
		})
	}
}

// A listen for task statuses of a client that does not declare the
// extension is refused, as the extension says; a cancelled listen sends
// nothing more, and one for a task that ended gets its status at once.
func TestTaskStatusListenRefusedAndCancelled(t *testing.T) {
	br := startTaskBridge(t, "sqlite")
	s := taskServer(t, br)
	cs := connectStdio(t, s, taskClient(t, 0, true))
	first, _ := callTask(t, cs, "Deploy the release?")
	second, _ := callTask(t, cs, "Tag the release?")
	c := rawStdio(t, s)

	c.listen(1, "", first)
	res, _ := c.until(1)
	var we *jsonrpc.Error
	if res.Error == nil || !errorsAsRPC(res.Error, &we) || we.Code != sdk.CodeMissingRequiredClientCapabilities {
		t.Fatalf("a listen without the extension: %+v", res.Error)
	}

	many := make([]string, mcp.MaxListenTasks+1)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	c.listen(5, listenMeta, many...)
	if res, _ := c.until(5); res.Error == nil || !errorsAsRPC(res.Error, &we) || we.Code != jsonrpc.CodeInvalidParams ||
		!strings.Contains(we.Message, "notifications.tasksStatus: at most 100 tasks a listen, got 101") {
		t.Fatalf("a listen for too many tasks: %+v", res.Error)
	}

	c.listen(2, listenMeta, second)
	c.note("notifications/subscriptions/acknowledged")
	c.write(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":2}`)})
	// The connection reads in order: once the next listen is
	// acknowledged, the cancel was taken.
	br.person(t, "/answer "+first+" 1")
	waitStatus(t, br.api(keyBuilder), first, "answered")
	c.listen(3, listenMeta, first)
	c.note("notifications/subscriptions/acknowledged")
	br.person(t, "/answer "+second+" 2")
	waitStatus(t, br.api(keyBuilder), second, "answered")
	c.listen(4, listenMeta, second)
	_, notes := c.until(4)
	seen := 0
	for _, n := range append(c.notes, notes...) {
		if n.Method != mcp.NotificationTaskStatus {
			continue
		}
		switch sub := subscription(t, n.Params); sub {
		case "2":
			t.Errorf("a cancelled listen sent %s", n.Params)
		case "4":
			if str(object(t, n.Params)["status"]) == "completed" {
				seen++
			}
		}
	}
	if seen != 1 {
		t.Fatalf("the listen for an ended task got %d completed statuses, want 1", seen)
	}
}

func mustJSON(m map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(m)
	return b
}

func errorsAsRPC(err error, target **jsonrpc.Error) bool {
	e, ok := err.(*jsonrpc.Error)
	if ok {
		*target = e
	}
	return ok
}

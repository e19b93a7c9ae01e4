package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askbridge/askbridge/mcp"
)

// httpPost sends one JSON-RPC message to /mcp in a session and returns
// the response, unread.
func httpPost(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+keyBuilder)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("%s: %s %s", body, resp.Status, data)
	}
	return resp
}

// sseMessages reads the messages of an event stream as they come.
func sseMessages(t *testing.T, body io.ReadCloser) <-chan jsonrpc.Message {
	out := make(chan jsonrpc.Message, 16)
	go func() {
		defer close(out)
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				if msg, err := jsonrpc.DecodeMessage([]byte(d)); err == nil {
					t.Logf("← %s", d)
					out <- msg
				}
			}
		}
	}()
	return out
}

func next(t *testing.T, msgs <-chan jsonrpc.Message) jsonrpc.Message {
	t.Helper()
	select {
	case m, ok := <-msgs:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(15 * time.Second):
		t.Fatal("no message on the stream")
	}
	return nil
}

// statusOf is the task of a status notification.
func statusOf(t *testing.T, m jsonrpc.Message) map[string]json.RawMessage {
	t.Helper()
	n, ok := m.(*jsonrpc.Request)
	if !ok || n.Method != mcp.NotificationTaskStatus {
		t.Fatalf("got %#v, want a status notification", m)
	}
	return object(t, n.Params)
}

// Over /mcp, a 2025-11-25 tasks/result that waits carries the task's
// status notifications on its stream: the task as it stands, the snooze
// (with the new deadline), the escalation and the end, then the result.
func TestTaskStatusOverHTTP(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			url := httpTasks(t, taskServer(t, br))
			resp := httpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
			session := resp.Header.Get("Mcp-Session-Id")
			resp.Body.Close()
			httpPost(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
			created := next(t, sseMessages(t, httpPost(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Deploy?","options":[{"label":"Yes"},{"label":"No"}]}]},"task":{"ttl":600000}}}`).Body))
			id := str(object(t, object(t, created.(*jsonrpc.Response).Result)["task"])["taskId"])
			if id == "" {
				t.Fatalf("no task: %+v", created)
			}

			msgs := sseMessages(t, httpPost(t, url, session, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`).Body)
			if n := statusOf(t, next(t, msgs)); str(n["taskId"]) != id || str(n["status"]) != "working" || !strings.HasPrefix(str(n["statusMessage"]), "Waiting for an answer") {
				t.Fatalf("first notification: %s", jsonOf(n))
			}
			br.person(t, "/snooze "+id)
			if n := statusOf(t, next(t, msgs)); !strings.HasPrefix(str(n["statusMessage"]), "Snoozed by ana; waiting for an answer") || string(n["ttl"]) != "2400000" {
				t.Fatalf("notification of the snooze: %s", jsonOf(n))
			}
			if ok, err := br.b.Escalate(context.Background(), id, time.Now().Add(2*time.Minute)); !ok || err != nil {
				t.Fatalf("escalate: %v %v", ok, err)
			}
			if n := statusOf(t, next(t, msgs)); !strings.HasPrefix(str(n["statusMessage"]), "Escalated to oncall") {
				t.Fatalf("notification of the escalation: %s", jsonOf(n))
			}
			br.person(t, "/answer "+id+" 1")
			if n := statusOf(t, next(t, msgs)); str(n["status"]) != "completed" || str(n["statusMessage"]) != "Answered by ana" {
				t.Fatalf("notification of the answer: %s", jsonOf(n))
			}
			res, ok := next(t, msgs).(*jsonrpc.Response)
			if !ok || res.Error != nil || !strings.Contains(string(res.Result), "User answered your questions:") {
				t.Fatalf("the result: %+v", res)
			}
		})
	}
}

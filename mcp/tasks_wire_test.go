package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/mcp"
)

// rawConn is a client that writes and reads raw JSON-RPC on the
// connection Run serves (stdio's), logging every message (go test -v
// shows the exchange docs/mcp.md walks through).
type rawConn struct {
	t    *testing.T
	conn sdk.Connection
	id   int64
	// notes are the notifications read while waiting for a response.
	notes []*jsonrpc.Request
}

func rawStdio(t *testing.T, s *mcp.Server) *rawConn {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = s.Run(ctx, st) }()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(); cancel(); <-ran })
	return &rawConn{t: t, conn: conn}
}

func (c *rawConn) write(msg jsonrpc.Message) {
	c.t.Helper()
	b, _ := jsonrpc.EncodeMessage(msg)
	c.t.Logf("→ %s", b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, msg); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawConn) read() jsonrpc.Message {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	msg, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	b, _ := jsonrpc.EncodeMessage(msg)
	c.t.Logf("← %s", b)
	return msg
}

// call sends a request and returns its result as a JSON object, failing
// the test on an error response.
func (c *rawConn) call(method, params string) map[string]json.RawMessage {
	c.t.Helper()
	c.id++
	id, _ := jsonrpc.MakeID(float64(c.id))
	c.write(&jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)})
	for {
		switch m := c.read().(type) {
		case *jsonrpc.Request:
			c.notes = append(c.notes, m)
		case *jsonrpc.Response:
			if m.Error != nil {
				c.t.Fatalf("%s: %v", method, m.Error)
			}
			var out map[string]json.RawMessage
			if err := json.Unmarshal(m.Result, &out); err != nil {
				c.t.Fatalf("%s result %s: %v", method, m.Result, err)
			}
			return out
		}
	}
}

// note returns the next notification of method.
func (c *rawConn) note(method string) map[string]json.RawMessage {
	c.t.Helper()
	for {
		var n *jsonrpc.Request
		if len(c.notes) > 0 {
			n, c.notes = c.notes[0], c.notes[1:]
		} else if r, ok := c.read().(*jsonrpc.Request); ok {
			n = r
		}
		if n != nil && n.Method == method {
			var out map[string]json.RawMessage
			if err := json.Unmarshal(n.Params, &out); err != nil {
				c.t.Fatal(err)
			}
			return out
		}
	}
}

// jsonOf writes a decoded object back as JSON, for failures.
func jsonOf(m map[string]json.RawMessage) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func keysOf(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func object(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return m
}

// taskKeys2025 are the fields of a 2025-11-25 task.
var taskKeys2025 = []string{"createdAt", "lastUpdatedAt", "pollInterval", "status", "statusMessage", "taskId", "ttl"}

// A 2025-11-25 client on stdio, in raw JSON-RPC: initialize declares the
// tasks capability, tools/list ask_user's task support, a tools/call with
// params.task returns the task, and the status notifications tell the
// snooze (with the new deadline), the escalation and the answer, which
// tasks/result returns.
func TestTaskWireOverStdio(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			c := rawStdio(t, taskServer(t, br))
			init := c.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"tasks":{"list":{},"cancel":{}}},"clientInfo":{"name":"raw","version":"0"}}`)
			caps := object(t, init["capabilities"])
			if string(caps["tasks"]) != `{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}` {
				t.Errorf("capabilities.tasks = %s", caps["tasks"])
			}
			if _, ok := object(t, caps["extensions"])[mcp.ExtensionTasks]; !ok {
				t.Errorf("capabilities.extensions = %s", caps["extensions"])
			}
			c.write(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})

			var tools []map[string]json.RawMessage
			_ = json.Unmarshal(c.call("tools/list", `{}`)["tools"], &tools)
			for _, tl := range tools {
				want := ""
				if str(tl["name"]) == mcp.ToolAskUser {
					want = `{"taskSupport":"optional"}`
				}
				if string(tl["execution"]) != want {
					t.Errorf("tools/list: %s has execution %s, want %q", tl["name"], tl["execution"], want)
				}
			}

			created := c.call("tools/call", `{"name":"ask_user","arguments":{"questions":[{"question":"Deploy the release?","options":[{"label":"Yes"},{"label":"No"}]}]},"task":{"ttl":600000}}`)
			if !slices.Equal(keysOf(created), []string{"_meta", "task"}) {
				t.Fatalf("CreateTaskResult: %s", jsonOf(created))
			}
			task := object(t, created["task"])
			id := str(task["taskId"])
			if !slices.Equal(keysOf(task), taskKeys2025) || id != br.posted(t, 1) || str(task["status"]) != "working" ||
				string(task["ttl"]) != "600000" || string(task["pollInterval"]) != "5000" {
				t.Fatalf("created task: %s", jsonOf(task))
			}
			if rel := object(t, object(t, created["_meta"])["io.modelcontextprotocol/related-task"]); str(rel["taskId"]) != id {
				t.Errorf("_meta: %s", created["_meta"])
			}

			got := c.call("tasks/get", `{"taskId":"`+id+`"}`)
			if !slices.Equal(keysOf(got), taskKeys2025) || str(got["status"]) != "working" || str(got["createdAt"]) != str(task["createdAt"]) {
				t.Fatalf("tasks/get: %s", jsonOf(got))
			}

			br.person(t, "/snooze "+id)
			n := c.note(mcp.NotificationTaskStatus)
			if str(n["taskId"]) != id || str(n["status"]) != "working" || !strings.HasPrefix(str(n["statusMessage"]), "Snoozed by ana; waiting for an answer (it times out at ") ||
				string(n["ttl"]) != "2400000" {
				t.Fatalf("notification of the snooze: %s", jsonOf(n))
			}
			if ok, err := br.b.Escalate(context.Background(), id, time.Now().Add(2*time.Minute)); !ok || err != nil {
				t.Fatalf("escalate: %v %v", ok, err)
			}
			if n = c.note(mcp.NotificationTaskStatus); !strings.HasPrefix(str(n["statusMessage"]), "Escalated to oncall; waiting for an answer") {
				t.Fatalf("notification of the escalation: %s", jsonOf(n))
			}
			br.person(t, "/answer "+id+" 1")
			if n = c.note(mcp.NotificationTaskStatus); str(n["status"]) != "completed" || str(n["statusMessage"]) != "Answered by ana" || !slices.Equal(keysOf(n), taskKeys2025) {
				t.Fatalf("notification of the answer: %s", jsonOf(n))
			}

			res := c.call("tasks/result", `{"taskId":"`+id+`"}`)
			var content []map[string]any
			_ = json.Unmarshal(res["content"], &content)
			if len(content) == 0 || !strings.HasPrefix(content[0]["text"].(string), "User answered your questions:") ||
				str(object(t, res["structuredContent"])["status"]) != "answered" || string(res["isError"]) == "true" {
				t.Fatalf("tasks/result: %s", jsonOf(res))
			}
			if rel := object(t, object(t, res["_meta"])["io.modelcontextprotocol/related-task"]); str(rel["taskId"]) != id {
				t.Errorf("tasks/result _meta: %s", res["_meta"])
			}
			if l := c.call("tasks/list", `{}`); string(l["tasks"]) != "[]" {
				t.Errorf("tasks/list with no pending question: %s", jsonOf(l))
			}
		})
	}
}

// Over HTTP, initialize and tools/list declare tasks as on stdio, a
// tools/call with params.task is a task (unless its question ended as it
// was asked: then its result is the answer), and a client's own copy of
// the header that carries params.task inside the server makes nothing a
// task.
func TestTaskWireOverHTTP(t *testing.T) {
	br := startTaskBridge(t, "sqlite")
	url := httpTasks(t, taskServer(t, br))
	send := func(session, body string, header map[string]string) (string, map[string]json.RawMessage, *jsonrpc.Error) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+keyBuilder)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %s %s", body, resp.Status, data)
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
			Error  *jsonrpc.Error             `json:"error"`
		}
		for line := range strings.SplitSeq(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				_ = json.Unmarshal([]byte(d), &msg)
			}
		}
		if len(data) > 0 && data[0] == '{' {
			_ = json.Unmarshal(data, &msg)
		}
		return resp.Header.Get("Mcp-Session-Id"), msg.Result, msg.Error
	}
	post := func(session, body string, header map[string]string) (string, map[string]json.RawMessage) {
		t.Helper()
		id, res, err := send(session, body, header)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return id, res
	}
	session, init := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, nil)
	if caps := object(t, init["capabilities"]); string(caps["tasks"]) != `{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}` {
		t.Fatalf("capabilities over HTTP: %s", init["capabilities"])
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	_, list := post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	if !strings.Contains(string(list["tools"]), `"execution":{"taskSupport":"optional"}`) {
		t.Fatalf("tools/list over HTTP: %s", list["tools"])
	}
	_, created := post(session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Deploy?"}]},"task":{"ttl":60000}}}`, nil)
	if task := object(t, created["task"]); str(task["status"]) != "working" || string(task["ttl"]) != "60000" {
		t.Fatalf("task call over HTTP: %s", jsonOf(created))
	}
	_, bad, err := send(session, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Deploy?"}]},"task":{"ttl":-5}}}`, nil)
	if err == nil || err.Code != jsonrpc.CodeInvalidParams || err.Message != "task.ttl: must be a positive number of milliseconds, got -5" {
		t.Fatalf("a task call with a negative ttl: %v %s", err, jsonOf(bad))
	}
	if qs, _ := br.api(keyBuilder).List(context.Background(), "", ""); len(qs) != 1 {
		t.Fatalf("%d questions after a refused task call, want 1", len(qs))
	}
	_, quiet := post(session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Deploy?"}],"route":"quiet"},"task":{}}}`, nil)
	if _, isTask := quiet["task"]; isTask || !strings.Contains(string(quiet["content"]), `route \"quiet\" has no targets: nobody is asked`) {
		t.Fatalf("a task call whose question ended as it was asked: %s", jsonOf(quiet))
	}
	_, plain := post(session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Which port?"}],"wait":false}}}`,
		map[string]string{"X-Askbridge-Mcp-Task": `{"ttl":60000}`})
	if _, isTask := plain["task"]; isTask || !strings.Contains(string(plain["content"]), "is waiting for an answer") {
		t.Fatalf("a call with a forged task header: %s", jsonOf(plain))
	}
}

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestFloorAnswersTheCycle runs the load tool's cycle against the floor:
// each answer has the status the bridge gives, its JSON reads, and the
// question's id is the one asked for, so that askbench counts the cycle
// as done.
func TestFloorAnswersTheCycle(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()
	do := func(method, path, body string, want int, out any) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s %s: status %d, want %d", method, path, resp.StatusCode, want)
		}
		if ct := resp.Header.Get("Content-Type"); out != nil && ct != "application/json; charset=utf-8" {
			t.Fatalf("%s %s: Content-Type %q", method, path, ct)
		}
		if out != nil {
			if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
	}
	do(http.MethodGet, "/readyz", "", http.StatusOK, nil)
	var asked, again struct{ ID, Status string }
	do(http.MethodPost, "/v1/questions", `{"question":"Which database?"}`, http.StatusAccepted, &asked)
	do(http.MethodPost, "/v1/questions", `{"question":"Which database?"}`, http.StatusAccepted, &again)
	if asked.Status != "pending" || asked.ID == "" || again.ID == asked.ID {
		t.Fatalf("asks answered %+v and %+v; want pending questions with ids of their own", asked, again)
	}
	var cmd struct {
		OK       bool
		Question struct{ ID, Status string }
	}
	do(http.MethodPost, "/v1/commands", `{"channel":"cli","user":"u1","text":"/answer `+asked.ID+` 2"}`, http.StatusOK, &cmd)
	if !cmd.OK || cmd.Question.ID != asked.ID || cmd.Question.Status != "answered" {
		t.Fatalf("answer command = %+v; want ok, question %s answered", cmd, asked.ID)
	}
	var res struct {
		ID, Status string
		Answers    map[string]struct{ Selected []string }
		Copies     []struct {
			MessageID string `json:"message_id"`
		}
	}
	do(http.MethodGet, "/v1/questions/"+asked.ID+"?wait=30s", "", http.StatusOK, &res)
	a, ok := res.Answers["Which database should the service use?"]
	if res.ID != asked.ID || res.Status != "answered" || !ok || len(a.Selected) != 1 || a.Selected[0] != "SQLite" {
		t.Fatalf("result = %+v; want %s answered SQLite", res, asked.ID)
	}
	if len(res.Copies) != 2 || res.Copies[0].MessageID != asked.ID {
		t.Fatalf("copies = %+v; want two, named by the question's id", res.Copies)
	}
}

func TestFloorTakesTheBridgesArguments(t *testing.T) {
	if err := run([]string{"answer"}); err == nil {
		t.Fatal("a command other than serve was taken")
	}
	if err := run([]string{"serve", "--listen", "127.0.0.1:1", "--data-dir", "d", "--store", "redis://x", "--bogus"}); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("an unknown flag gave %v", err)
	}
}

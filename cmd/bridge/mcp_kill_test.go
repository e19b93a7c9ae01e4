package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestMCPStdioKilledMidCall: kill -9 of `bridge mcp` while ask_user waits
// leaves no question open until its timeout: its lease stops being
// renewed, and the sweeper cancels it with "the asking agent is gone".
func TestMCPStdioKilledMidCall(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	api := client.New("http://"+addr, "")

	cmd := exec.Command(bridgeBinary(t), "mcp")
	cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// An MCP client's first lines: initialize, then the call, which waits
	// for an answer.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Wipe the staging database?","options":[{"label":"Yes"},{"label":"No"}]}],"lease":"5s"}}}`,
	} {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	q := questionNamed(t, api, "Wipe the staging database?")
	if q.Status != client.StatusPending {
		t.Fatalf("question is %s before the kill, want pending", q.Status)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: nothing is released
		t.Fatal(err)
	}
	// The lease (5s) lapses and the next sweep (every second) cancels it.
	// Watch through the list: a GET of the question is a read by its agent
	// and would renew the lease itself.
	var got client.Result
	until(t, "the question to be cancelled", func() bool {
		got = questionNamed(t, api, "Wipe the staging database?")
		return got.Status != client.StatusPending
	})
	if got.Status != client.StatusCancelled || !strings.Contains(got.Reason, "the asking agent is gone") {
		t.Fatalf("after kill -9 the question is %s (%q), want cancelled because the asking agent is gone", got.Status, got.Reason)
	}
}

// TestMCPHTTPSessionEndCancels: a question that ask_user left pending on
// /mcp (wait: false) stays open while its MCP session lives, and is
// cancelled with "the asking agent is gone" when the client ends the
// session (DELETE /mcp).
func TestMCPHTTPSessionEndCancels(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	api := client.New("http://"+addr, "")
	conn, err := connectHTTP(t, addr, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res := conn.call(t, ctx, "ask_user", withWait(askArgs(prompt("Rotate the signing key?", "Yes", "No")), false), nil)
	if res.IsError {
		t.Fatalf("ask_user: %s", text(res))
	}
	q := questionNamed(t, api, "Rotate the signing key?")
	time.Sleep(3 * time.Second) // well past a progress tick, still within the session
	if q = questionNamed(t, api, "Rotate the signing key?"); q.Status != client.StatusPending {
		t.Fatalf("while the session lives the question is %s (%q), want pending", q.Status, q.Reason)
	}
	if err := conn.cs.Close(); err != nil {
		t.Fatalf("end the session: %v", err)
	}
	until(t, "the question to be cancelled", func() bool {
		q = questionNamed(t, api, "Rotate the signing key?")
		return q.Status != client.StatusPending
	})
	if q.Status != client.StatusCancelled || !strings.Contains(q.Reason, "the asking agent is gone") {
		t.Fatalf("after the session ended the question is %s (%q), want cancelled because the asking agent is gone", q.Status, q.Reason)
	}
}

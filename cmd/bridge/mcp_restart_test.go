package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestMCPPendingAcrossRestart asks in pending mode, kills the bridge,
// starts it again on the same data, and collects the answer with
// get_answer through the same `bridge mcp` process; a call that waits
// meanwhile gets its answer too.
func TestMCPPendingAcrossRestart(t *testing.T) {
	t.Parallel()
	addr, data := freeAddr(t), t.TempDir()
	serve := startServe(t, addr, nil, "--data-dir", data)
	conn := startMCPStdio(t, addr)
	api := client.New("http://"+addr, "")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()

	res := conn.call(t, ctx, "ask_user", withWait(askArgs(prompt("Which license?", "MIT", "Apache 2.0")), false), nil)
	id := outcome(t, res).ID
	if res.IsError || id == "" {
		t.Fatalf("pending ask: %s", text(res))
	}

	// A call that waits for its answer keeps waiting through the restart.
	blocking := conn.callAsync(t, ctx, "ask_user", askArgs(prompt("Which CI runner?", "Hosted", "Self-hosted")), nil)
	waitingID := questionNamed(t, api, "Which CI runner?").ID

	serve.kill()
	// get_answer while the bridge is down waits for it to come back.
	ch := conn.callAsync(t, ctx, "get_answer", map[string]any{"id": id, "wait_seconds": 20}, nil)
	time.Sleep(500 * time.Millisecond)
	startServe(t, addr, nil, "--data-dir", data)
	command(t, api, "/answer "+id+" 2")
	command(t, api, "/answer "+waitingID+" 1")

	if got := receive(t, blocking, 30*time.Second); got.IsError || outcome(t, got).Answers["Which CI runner?"].Selected[0] != "Hosted" {
		t.Fatalf("waiting ask_user across the restart: %s", text(got))
	}

	got := receive(t, ch, 30*time.Second)
	if got.IsError || !strings.HasPrefix(text(got), "User answered your questions:") {
		t.Fatalf("get_answer after restart: %s", text(got))
	}
	if a := outcome(t, got).Answers["Which license?"]; len(a.Selected) != 1 || a.Selected[0] != "Apache 2.0" {
		t.Fatalf("answer after restart: %+v", a)
	}
}

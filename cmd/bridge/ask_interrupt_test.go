package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// Ctrl-C on a waiting `bridge ask` cancels its question, says which, and
// exits 130; people see why on every copy. The question holds the ask's
// lease (one minute unless --lease says otherwise), so that a killed ask
// leaves nothing open for long.
func TestProcessAskInterrupted(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	ask := startBridgeIn(t, addr, nil, "ask", "--session", "int-1", "--option", "Yes", "--option", "No", "Deploy now?")
	var q client.Result
	deadline := time.Now().Add(30 * time.Second)
	for {
		if qs := questionsOf(t, addr, "int-1", client.StatusPending); len(qs) == 1 {
			q = qs[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge ask did not ask within 30s; stderr %q", ask.errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := ask.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := ask.wait(t, 30*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %q", code, ask.errb.String())
	}
	if want := "bridge ask: interrupted; question " + q.ID + " cancelled"; !strings.Contains(ask.errb.String(), want) {
		t.Fatalf("stderr %q, want it to say %q", ask.errb.String(), want)
	}
	got := questionByID(t, addr, "int-1", q.ID)
	if got.Status != client.StatusCancelled || got.Reason != "the asker stopped waiting (interrupted)" {
		t.Fatalf("question %s is %s (%q), want cancelled with the reason", q.ID, got.Status, got.Reason)
	}
	if ask.out.String() != "" {
		t.Fatalf("stdout %q, want nothing", ask.out.String())
	}
}

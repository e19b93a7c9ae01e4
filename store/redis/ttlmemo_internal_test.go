package redis

import (
	"strconv"
	"testing"
	"time"
)

// TestTTLMemoPlan: plan renews the keys not marked within the window,
// skips the others and empty keys, one digit per key in order, and marks
// nothing itself.
func TestTTLMemoPlan(t *testing.T) {
	m := newTTLMemo()
	now := time.Now()
	m.marked([]string{"fresh"}, now)
	m.marked([]string{"old"}, now.Add(-renewWindow))
	digits, renew := m.plan(now, []string{"new", "", "fresh", "old"})
	if digits != "1001" || len(renew) != 2 || renew[0] != "new" || renew[1] != "old" {
		t.Fatalf("plan = %q, %q; want \"1001\" and [new old]", digits, renew)
	}
	if !m.due("new", now) {
		t.Fatal("plan marked a key: only marked may")
	}
}

// TestTTLMemoStaysBounded: past memoCap keys the memo first drops the
// keys whose window has passed, then starts over, so it never holds more
// than memoCap keys; a dropped key is due again.
func TestTTLMemoStaysBounded(t *testing.T) {
	m := newTTLMemo()
	now := time.Now()
	old := now.Add(-2 * renewWindow)
	m.marked([]string{"stale"}, old)
	if !m.due("stale", now) {
		t.Fatal("a key renewed two windows ago is not due")
	}
	keys := make([]string, memoCap-1)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	m.marked(keys, now)
	if m.due("k0", now) || len(m.until) != memoCap {
		t.Fatalf("k0 due = %v, %d keys; want k0 not due among %d", m.due("k0", now), len(m.until), memoCap)
	}
	m.marked([]string{"new"}, now) // the stale key makes room
	if _, ok := m.until["stale"]; ok || m.due("new", now) || m.due("k0", now) || len(m.until) != memoCap {
		t.Fatalf("after pruning: %d keys, stale kept %v; want the stale key dropped and the rest kept", len(m.until), ok)
	}
	m.marked([]string{"newer"}, now) // none stale: the memo starts over
	if len(m.until) != 1 || m.due("newer", now) || !m.due("k0", now) {
		t.Fatalf("after starting over: %d keys, k0 due %v; want only the newest key", len(m.until), m.due("k0", now))
	}
}

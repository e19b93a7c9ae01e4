package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// auditKinds runs `bridge audit --json id` and returns the kinds of its
// entries with their details ("escalated to oncall").
func auditKinds(t *testing.T, addr, id string) []string {
	t.Helper()
	r := runBridge(t, addr, "audit", "--json", id)
	if r.code != 0 {
		t.Fatalf("bridge audit: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	var log struct {
		Entries []struct {
			Kind   string `json:"kind"`
			Detail string `json:"detail"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &log); err != nil {
		t.Fatalf("bridge audit --json printed %q: %v", r.stdout, err)
	}
	var out []string
	for _, e := range log.Entries {
		out = append(out, strings.TrimSpace(e.Kind+" "+e.Detail))
	}
	return out
}

// TestProcessEscalationAcrossRestart asks on a route that escalates to
// on-call (the terminal) after 4 seconds, stops the bridge before that,
// and starts it again after it: the restarted bridge takes the step once,
// the question's responders widen to the on-call route's (an answer from
// the terminal, refused before, is taken), and the audit shows one
// escalation.
func TestProcessEscalationAcrossRestart(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	cfg := writeConfig(t, dir, `
routes:
  default:
    targets: [web]
    timeout: 1m
    escalate: [{after: 4s, route: oncall}]
  oncall:
    targets: [cli]
`)
	first := startServe(t, addr, nil, "--data-dir", dir, "--config", cfg)
	r := runBridge(t, addr, "ask", "--pending", "--option", "Allow", "--option", "Deny", "Deploy 412?")
	if r.code != 0 {
		t.Fatalf("bridge ask --pending: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := decodeResult(t, r.stdout).ID
	if r := runBridge(t, addr, "answer", id, "Allow"); r.code == 0 {
		t.Fatalf("bridge answer before the escalation: exit 0 (%s), want it refused: the terminal is not asked yet", r.stdout)
	}
	first.stop(t)

	time.Sleep(5 * time.Second) // past the step while no bridge runs
	startServe(t, addr, nil, "--data-dir", dir, "--config", cfg)
	until(t, "the escalation after the restart", func() bool {
		return slices.Contains(auditKinds(t, addr, id), "escalated to oncall")
	})
	if r := runBridge(t, addr, "answer", id, "Allow"); r.code != 0 {
		t.Fatalf("bridge answer after the escalation: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	got := slices.DeleteFunc(auditKinds(t, addr, id), func(k string) bool {
		return strings.HasPrefix(k, "asked") || strings.HasPrefix(k, "posted")
	})
	if len(got) != 2 || got[0] != "escalated to oncall" || !strings.HasPrefix(got[1], "resolved") {
		t.Fatalf("audit = %q, want one escalation to oncall, then the resolution", got)
	}
	if q := decodeResult(t, runBridge(t, addr, "wait", id).stdout); q.Status != "answered" {
		t.Fatalf("question after the on-call answer: %+v, want answered", q)
	}
}

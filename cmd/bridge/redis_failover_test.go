package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// kill -9 of the leader: the other instance takes the sweeper lease within
// a few lease times, and the question asked on the dead leader still
// times out, with its default, through the survivor's sweeper.
func TestRedisLeaderFailover(t *testing.T) {
	srv := redistest.Start(t)
	cfg := writeRedisConfig(t, "store:\n  leader_lease: 1s\n")
	a := startRedisBridge(t, srv.Addr, "--config", cfg)
	b := startRedisBridge(t, srv.Addr, "--config", cfg)

	var leader, survivor *proc
	until(t, "an instance to lead the sweeper", func() bool {
		switch h := leaseHolder(t, srv.Addr, "sweeper"); {
		case a.holds(h):
			leader, survivor = a, b
		case b.holds(h):
			leader, survivor = b, a
		default:
			return false
		}
		return true
	})
	if leader.acquisitions("sweeper") == 0 {
		t.Fatalf("the leader holds the sweeper lease but its log does not say so:\n%s", leader.out.String())
	}
	before := survivor.acquisitions("sweeper")

	r := runBridge(t, leader.addr, "ask", "--pending", "--timeout", "10s",
		"--option", "Postgres", "--option", "SQLite", "--default", "SQLite", "Which database?")
	if r.code != 0 {
		t.Fatalf("ask on the leader: exit %d %s", r.code, r.stderr)
	}
	id := decodeResult(t, r.stdout).ID

	leader.kill()
	killed := time.Now()
	until(t, "the survivor to log leadership of the sweeper", func() bool {
		return survivor.acquisitions("sweeper") > before
	})
	t.Logf("the survivor took the sweeper lease %s after the kill (lease 1s)", time.Since(killed).Round(time.Millisecond))
	if h := leaseHolder(t, srv.Addr, "sweeper"); !survivor.holds(h) {
		t.Fatalf("the sweeper lease is held by %q, not by the survivor", h)
	}

	w := runBridge(t, survivor.addr, "wait", id)
	res := decodeResult(t, w.stdout)
	if w.code != cmdline.ExitTimedOut || res.Status != "timed_out" || res.Fallback != "default" || res.Answers["Which database?"].Selected[0] != "SQLite" {
		t.Fatalf("wait on the survivor: exit %d, %s %s", w.code, w.stdout, w.stderr)
	}
}

// Redis killed (kill -9) and restarted under AOF while a bridge keeps
// running: during the outage calls get 503 and /readyz fails, the server
// stays up; afterwards it is ready again by itself, answered questions are
// unchanged and pending ones are answerable, and an agent that waited
// through the outage gets its answer.
func TestRedisRestartMidTraffic(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	a := startRedisBridge(t, srv.Addr)

	var answered, pending []string
	for i := range 6 {
		id := askPendingHTTP(t, a.addr, fmt.Sprintf("Deploy service %d?", i), nil)
		if i%2 == 1 {
			pending = append(pending, id)
			continue
		}
		code, raw := apiCall(t, "POST", a.addr, "/v1/commands", commandBody{User: "ana", Text: "/answer " + id + " 2"})
		if code != http.StatusOK {
			t.Fatalf("answer %s: %d %s", id, code, raw)
		}
		answered = append(answered, id)
	}
	before := map[string]map[string]any{}
	for _, id := range answered {
		before[id] = getResult(t, a.addr, id)
	}
	blocked := startBridge(t, a.addr, "ask", "--option", "Yes", "--option", "No", "Still there?")
	waitPending(t, a.addr, len(pending)+1)
	var blockedID string
	for _, id := range pendingIDs(t, a.addr) {
		if !slices.Contains(pending, id) {
			blockedID = id
		}
	}

	srv.Kill()
	until(t, "/readyz to report the store unreachable", func() bool {
		code, raw := apiCall(t, "GET", a.addr, "/readyz", nil)
		return code == http.StatusServiceUnavailable && strings.Contains(string(raw), `"message":"store unavailable"}`)
	})
	unavailable := []string{"the store is unavailable; try again shortly"}
	down := []struct {
		name, method, path string
		body               any
		// want lists the replies that are right; one of them must appear.
		want []string
	}{
		{"get", "GET", "/v1/questions/" + pending[0], nil, unavailable},
		{"list", "GET", "/v1/questions?status=pending", nil, unavailable},
		{"ask", "POST", "/v1/questions", map[string]any{"question": "Anyone?", "wait": "0s"}, unavailable},
		// The bridge remembers the questions asked on it until its
		// resolution feed drops, which it notices on its own schedule: an
		// answer that comes before is refused when it is recorded, one that
		// comes after when the question is read.
		{"answer", "POST", "/v1/commands", commandBody{Text: "/answer " + pending[0] + " 1"}, []string{
			"Could not record that right now; please try again.",
			"Could not read question " + pending[0] + " right now; please try again.",
		}},
	}
	for _, c := range down {
		t.Run("down/"+c.name, func(t *testing.T) {
			code, raw := apiCall(t, c.method, a.addr, c.path, c.body)
			if code != http.StatusServiceUnavailable || !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(string(raw), w) }) {
				t.Fatalf("%s %s while Redis is down: %d %s; want 503 with one of %q", c.method, c.path, code, raw, c.want)
			}
			t.Logf("%s %s: %d %s", c.method, c.path, code, strings.TrimSpace(string(raw)))
		})
	}
	select {
	case <-a.exited:
		t.Fatalf("the bridge exited while Redis was down:\n%s", a.out.String())
	default:
	}

	srv.Restart()
	restarted := time.Now()
	until(t, "/readyz to be 200 again", func() bool {
		code, _ := apiCall(t, "GET", a.addr, "/readyz", nil)
		return code == http.StatusOK
	})
	t.Logf("ready again %s after Redis restarted", time.Since(restarted).Round(time.Millisecond))

	for _, id := range answered {
		if after := getResult(t, a.addr, id); !reflect.DeepEqual(after, before[id]) {
			t.Fatalf("answered question %s changed across the Redis restart:\nbefore %v\nafter  %v", id, before[id], after)
		}
	}
	for _, id := range pending {
		code, raw := apiCall(t, "POST", a.addr, "/v1/commands", commandBody{User: "bo", Text: "/answer " + id + " 1"})
		var rep commandReply
		if json.Unmarshal(raw, &rep) != nil || code != http.StatusOK || rep.Reply != "Recorded: Yes" {
			t.Fatalf("answer %s after the restart: %d %s", id, code, raw)
		}
	}
	if r := runBridge(t, a.addr, "answer", blockedID, "2"); r.code != 0 {
		t.Fatalf("answer the waiting agent's question: exit %d %s", r.code, r.stderr)
	}
	if code := blocked.wait(t, 30*time.Second); code != cmdline.ExitOK {
		t.Fatalf("the ask that waited through the outage: exit %d %s", code, blocked.errb.String())
	}
	if res := decodeResult(t, blocked.out.String()); res.Status != "answered" || res.Answers["Still there?"].Selected[0] != "No" {
		t.Fatalf("the ask that waited through the outage printed %s", blocked.out.String())
	}
	if strings.Contains(a.out.String(), "panic") {
		t.Fatalf("the bridge panicked:\n%s", a.out.String())
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// inboxQuestion is a question as GET /inbox/state shows it.
type inboxQuestion struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Deadline string `json:"deadline"`
	Outcome  string `json:"outcome"`
}

// inboxView finds question id in the web inbox's open list or history.
func inboxView(t *testing.T, addr, list, id string) (inboxQuestion, bool) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/inbox/state")
	if err != nil {
		t.Fatalf("GET /inbox/state: %v", err)
	}
	defer resp.Body.Close()
	var st struct {
		Open    []inboxQuestion `json:"open"`
		History []inboxQuestion `json:"history"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /inbox/state: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("GET /inbox/state: %v", err)
	}
	views := st.Open
	if list == "history" {
		views = st.History
	}
	for _, v := range views {
		if v.ID == id {
			return v, true
		}
	}
	return inboxQuestion{}, false
}

// TestTimeoutSurvivesKill9 asks a 10-second question with a default, kills
// the server with SIGKILL at 5 s, starts it again at 15 s on the same data
// directory, and checks that the question then ends timed_out with its
// default, which `bridge wait` prints with exit code 4.
func TestTimeoutSurvivesKill9(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)

	first := startServe(t, addr, nil, "--data-dir", dir)
	r := runBridge(t, addr, "ask", "--pending", "--timeout", "10s", "--default", "SQLite",
		"--option", "Postgres", "--option", "SQLite", "Which database?")
	code, out := r.code, r.stdout
	if code != cmdline.ExitOK {
		t.Fatalf("bridge ask --pending: exit %d: %s%s", code, out, r.stderr)
	}
	var asked struct {
		ID        string    `json:"id"`
		Status    string    `json:"status"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(out), &asked); err != nil || asked.ID == "" || asked.Status != "pending" {
		t.Fatalf("bridge ask --pending printed %q (%v), want a pending question's id", out, err)
	}
	t0 := asked.ExpiresAt.Add(-10 * time.Second) // when the server took the question

	time.Sleep(time.Until(t0.Add(5 * time.Second)))
	r = runBridge(t, addr, "list", "--status", "pending", "--json")
	code, out = r.code, r.stdout
	if code != cmdline.ExitOK || !bytes.Contains([]byte(out), []byte(asked.ID)) {
		t.Fatalf("at 5 s, bridge list --status pending (exit %d) does not show %s:\n%s", code, asked.ID, out)
	}
	if v, ok := inboxView(t, addr, "open", asked.ID); !ok || !strings.HasSuffix(v.Deadline, " · default: SQLite") {
		t.Errorf("at 5 s the web inbox lists %s as open: %v, %+v; want its deadline with the default SQLite", asked.ID, ok, v)
	}
	first.kill()

	time.Sleep(time.Until(t0.Add(15 * time.Second)))
	restarted := time.Now()
	startServe(t, addr, nil, "--data-dir", dir)

	r = runBridge(t, addr, "wait", asked.ID)
	code, out = r.code, r.stdout
	if code != cmdline.ExitTimedOut {
		t.Fatalf("bridge wait %s: exit %d, want %d (timed out)\n%s%s", asked.ID, code, cmdline.ExitTimedOut, out, r.stderr)
	}
	var res struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Fallback string `json:"fallback"`
		Answers  map[string]struct {
			Selected   []string `json:"selected"`
			CustomText string   `json:"custom_text"`
			Defaulted  bool     `json:"defaulted"`
		} `json:"answers"`
		AnsweredBy *json.RawMessage `json:"answered_by"`
		ExpiresAt  time.Time        `json:"expires_at"`
		ResolvedAt time.Time        `json:"resolved_at"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("bridge wait printed %q: %v", out, err)
	}
	a, ok := res.Answers["Which database?"]
	if res.ID != asked.ID || res.Status != "timed_out" || res.Fallback != "default" || !ok ||
		fmt.Sprint(a.Selected) != "[SQLite]" || !a.Defaulted || res.AnsweredBy != nil {
		t.Errorf("bridge wait printed %s\nwant status timed_out, fallback default, answer SQLite marked defaulted, nobody answering", out)
	}
	if !res.ExpiresAt.Equal(asked.ExpiresAt) {
		t.Errorf("expires_at changed across the restart: %s, was %s", res.ExpiresAt, asked.ExpiresAt)
	}
	// The web inbox shows the outcome in its history.
	if v, ok := inboxView(t, addr, "history", asked.ID); !ok || v.Status != "timed_out" || v.Outcome != "No answer in 10 s: used the default, SQLite" {
		t.Errorf("the web inbox history shows %s as %+v (listed: %v); want timed_out, \"No answer in 10 s: used the default, SQLite\"", asked.ID, v, ok)
	}
	// Resolved by the restarted server: after the restart, not before the kill.
	if res.ResolvedAt.Before(restarted.Add(-time.Second)) {
		t.Errorf("resolved_at %s is before the restart at %s", res.ResolvedAt, restarted)
	}
}

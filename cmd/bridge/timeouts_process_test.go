package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// timeoutsServerEnv, when set, makes TestTimeoutsServeProcess act as the bridge
// binary: it runs the command line after "--" and exits with its code.
const timeoutsServerEnv = "ASKBRIDGE_TEST_RUN_BRIDGE"

// TestTimeoutsServeProcess is the bridge binary when re-executed by
// startTimeoutsServer; it skips in a normal test run.
func TestTimeoutsServeProcess(t *testing.T) {
	if os.Getenv(timeoutsServerEnv) != "1" {
		t.Skip("runs only as the bridge subprocess of TestTimeoutSurvivesKill9")
	}
	os.Exit(run(flag.Args(), os.Stdin, os.Stdout, os.Stderr))
}

// bridgeProcess is a `bridge serve` subprocess.
type bridgeProcess struct {
	cmd    *exec.Cmd
	output *lockedBuffer
	done   chan struct{}
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startTimeoutsServer runs `bridge serve --data-dir dir --listen addr` as a
// separate process (this test binary, re-executed to run main's code) and
// waits until it answers /healthz.
func startTimeoutsServer(t *testing.T, dir, addr string) *bridgeProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTimeoutsServeProcess$", "--",
		"serve", "--data-dir", dir, "--listen", addr)
	cmd.Env = append(os.Environ(), timeoutsServerEnv+"=1", "ASKBRIDGE_CONFIG=")
	p := &bridgeProcess{cmd: cmd, output: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.output, p.output
	if err := cmd.Start(); err != nil {
		t.Fatalf("start bridge serve: %v", err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("bridge serve (pid %d) output:\n%s", cmd.Process.Pid, p.output.String())
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.done:
			t.Fatalf("bridge serve exited at start:\n%s", p.output.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge serve did not become healthy on %s:\n%s", addr, p.output.String())
		}
	}
}

// kill9 ends the process with SIGKILL: no shutdown, no draining.
func (p *bridgeProcess) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9: %v", err)
	}
	<-p.done
}

func timeoutsFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runBridgeProcess runs a client command of the bridge as a subprocess
// against the server at addr and returns its exit code and output; it
// fails the test when the command runs longer than limit.
func runBridgeProcess(t *testing.T, addr string, limit time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestTimeoutsServeProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), timeoutsServerEnv+"=1", "ASKBRIDGE_SERVER=http://"+addr, "ASKBRIDGE_KEY=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("bridge %v still running after %s; stderr: %s", args, limit, stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatalf("bridge %v: %v", args, err)
	}
	return 0, stdout.String(), stderr.String()
}

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

func timeoutsSleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// TestTimeoutSurvivesKill9 asks a 10-second question with a default, kills
// the server with SIGKILL at 5 s, starts it again at 15 s on the same data
// directory, and checks that the question then ends timed_out with its
// default, which `bridge wait` prints with exit code 4.
func TestTimeoutSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 20 s")
	}
	dir, addr := t.TempDir(), timeoutsFreeAddr(t)

	first := startTimeoutsServer(t, dir, addr)
	code, out, errOut := runBridgeProcess(t, addr, 10*time.Second, "ask", "--pending", "--timeout", "10s", "--default", "SQLite",
		"--option", "Postgres", "--option", "SQLite", "Which database?")
	if code != exitOK {
		t.Fatalf("bridge ask --pending: exit %d: %s%s", code, out, errOut)
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

	timeoutsSleepUntil(t0.Add(5 * time.Second))
	code, out, _ = runBridgeProcess(t, addr, 10*time.Second, "list", "--status", "pending", "--json")
	if code != exitOK || !bytes.Contains([]byte(out), []byte(asked.ID)) {
		t.Fatalf("at 5 s, bridge list --status pending (exit %d) does not show %s:\n%s", code, asked.ID, out)
	}
	if v, ok := inboxView(t, addr, "open", asked.ID); !ok || !strings.HasSuffix(v.Deadline, " · default: SQLite") {
		t.Errorf("at 5 s the web inbox lists %s as open: %v, %+v; want its deadline with the default SQLite", asked.ID, ok, v)
	}
	first.kill9(t)

	timeoutsSleepUntil(t0.Add(15 * time.Second))
	restarted := time.Now()
	startTimeoutsServer(t, dir, addr)

	code, out, errOut = runBridgeProcess(t, addr, 20*time.Second, "wait", asked.ID)
	if code != exitTimedOut {
		t.Fatalf("bridge wait %s: exit %d, want %d (timed out)\n%s%s", asked.ID, code, exitTimedOut, out, errOut)
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

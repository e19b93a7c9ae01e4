package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// vmRSS reads the resident set size of process pid, in bytes.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

// stalled opens a connection that sends the headers of a POST to path
// and a few bytes of its body, then nothing more.
func stalled(t *testing.T, addr, path, contentType string, length int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n{\"tok", path, addr, contentType, length); err != nil {
		t.Fatal(err)
	}
	return c
}

// idle opens a keep-alive connection, makes one request on it and leaves
// it idle.
func idle(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := getHealthz(c, addr); err != nil {
		t.Fatalf("a request on a fresh connection: %v", err)
	}
	return c
}

// getHealthz makes one keep-alive request on c and reads its answer.
func getHealthz(c net.Conn, addr string) error {
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /healthz: %s", resp.Status)
	}
	return nil
}

// closedByServer waits until the server closes c (the read ends with EOF
// or a reset) or until the deadline (the read times out: still open).
func closedByServer(c net.Conn, deadline time.Time) error {
	_ = c.SetReadDeadline(deadline)
	_, err := io.Copy(io.Discard, c)
	if err == nil || errors.Is(err, syscall.ECONNRESET) {
		return nil
	}
	return err
}

// TestSlowAndIdleConnectionsAreClosed runs the bridge with short read and
// idle timeouts, holds 200 connections that stall in their request body
// (on the public Slack webhook and the inbox's sign-in) and 200 idle
// keep-alive connections, and sees the bridge close every one of them
// within its timeouts while its memory barely grows.
func TestSlowAndIdleConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second
	fake := slackfake.New(t)
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	err := os.WriteFile(cfg, []byte(fmt.Sprintf(`server:
  read_timeout: %s
  idle_timeout: %s
channels:
  slack:
    mode: http
    bot_token_env: CONNTEST_SLACK_BOT
    signing_secret_env: CONNTEST_SLACK_SECRET
    api_url: %s
routes:
  default: {targets: [web]}
`, timeout, timeout, fake.URL)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// Memory is measured on a binary built as for production: the race
	// detector keeps several times more state per goroutine.
	p := startServeBinary(t, plainBridgeBinary(t), addr, []string{"CONNTEST_SLACK_BOT=" + slackfake.BotToken, "CONNTEST_SLACK_SECRET=fake-signing-secret"}, "--config", cfg, "--data-dir", dir)
	pid := p.cmd.Process.Pid
	// Warm up: the handlers' first use allocates what every later request
	// reuses.
	for range 20 {
		idle(t, addr).Close()
	}
	before := vmRSS(t, pid)

	var conns []net.Conn
	for range 100 {
		conns = append(conns, stalled(t, addr, "/slack/events", "application/json", 200_000))
		conns = append(conns, stalled(t, addr, "/inbox/login", "application/json", 10_000))
	}
	for range 200 {
		conns = append(conns, idle(t, addr))
	}
	opened := time.Now()
	held := vmRSS(t, pid)
	t.Logf("RSS %d MB before, %d MB with 400 stalled and idle connections open (growth %.1f MB)", before>>20, held>>20, float64(held-before)/(1<<20))

	// Every connection is closed by the server within its timeout; the
	// slack covers a loaded machine running the race detector.
	deadline := opened.Add(timeout + 8*time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var last time.Duration
	errs := make(chan error, len(conns))
	for i, c := range conns {
		wg.Go(func() {
			if err := closedByServer(c, deadline); err != nil {
				errs <- fmt.Errorf("connection %d still open %s after it stalled or went idle: %v", i, time.Since(opened).Round(time.Second), err)
				return
			}
			mu.Lock()
			last = max(last, time.Since(opened))
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	t.Logf("the last connection was closed %s after all were open (timeouts %s)", last.Round(100*time.Millisecond), timeout)
	n := 0
	for err := range errs {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Fatalf("%d of %d connections were not closed by the server", n, len(conns))
	}
	if growth := held - before; growth > 20<<20 {
		t.Errorf("400 stalled and idle connections grew the bridge's RSS by %.1f MB, want under 20 MB", float64(growth)/(1<<20))
	}
	// The bridge still serves.
	idle(t, addr)
}

// TestConnectionsBeyondTheCapAreRefused fills server.max_connections with
// idle connections and sees the next one refused at once, not queued,
// and served again once a slot is free.
func TestConnectionsBeyondTheCapAreRefused(t *testing.T) {
	t.Parallel()
	const max = 20
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("server:\n  max_connections: %d\n  idle_timeout: 5m\n", max)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, addr, nil, "--config", cfg, "--data-dir", dir)
	// The readiness check's keep-alive connection may hold a slot: fill
	// the cap one connection at a time until the bridge refuses one.
	var held []net.Conn
	refused := false
	for range max + 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			refused = true
			break
		}
		t.Cleanup(func() { c.Close() })
		if err := getHealthz(c, addr); err != nil {
			if err := closedByServer(c, time.Now().Add(10*time.Second)); err != nil {
				t.Fatalf("the connection over the cap was queued, not refused: %v", err)
			}
			refused = true
			break
		}
		held = append(held, c)
	}
	if !refused || len(held) < max-2 || len(held) > max {
		t.Fatalf("served %d connections and refused: %v; want about %d served, then a refusal", len(held), refused, max)
	}

	held[0].Close()
	served := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !served; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			continue
		}
		served = getHealthz(c, addr) == nil
		c.Close()
	}
	if !served {
		t.Fatal("no connection was served after one of the held ones closed")
	}
	if !strings.Contains(p.out.String(), "connection refused: server.max_connections reached") {
		t.Errorf("the refusal is not in the log:\n%s", p.out.String())
	}
}

package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BuildBridge builds cmd/bridge into dir and returns the binary's path.
// It must run from inside the module.
func BuildBridge(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "bridge")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/askbridge/askbridge/cmd/bridge").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("bench: go build ./cmd/bridge: %w\n%s", err, out)
	}
	return bin, nil
}

// Bridge is a running `bridge serve` started by the tool.
type Bridge struct {
	URL  string
	bin  string
	args []string
	env  []string
	out  *lockedBuffer
	cmd  *exec.Cmd
	done chan struct{}
}

// StartBridge starts `bridge serve` on a free loopback port, its data in
// dataDir and the store at storeURL ("" for SQLite in dataDir), and waits
// until it is ready.
//
// config is the configuration file's content; with "" the bridge runs
// without one, on its embedded defaults. env is added to the process's
// environment.
func StartBridge(ctx context.Context, bin, dataDir, storeURL, config string, env []string) (*Bridge, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args := []string{"serve", "--listen", addr, "--data-dir", dataDir}
	if config != "" {
		cfg := filepath.Join(dataDir, "bridge.yaml")
		if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		args = append(args, "--config", cfg)
	}
	if storeURL != "" {
		args = append(args, "--store", storeURL)
	}
	b := &Bridge{URL: "http://" + addr, bin: bin, args: args, env: env, out: &lockedBuffer{}}
	return b, b.start(ctx)
}

func (b *Bridge) start(ctx context.Context) error {
	b.cmd = exec.Command(b.bin, b.args...)
	b.cmd.Stdout, b.cmd.Stderr = b.out, b.out
	b.cmd.Env = append(withoutConfigEnv(os.Environ()), b.env...)
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := b.cmd.Start(); err != nil {
		return fmt.Errorf("bench: start bridge: %w", err)
	}
	b.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(b.cmd, b.done)
	return b.waitReady(ctx, 30*time.Second)
}

func (b *Bridge) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(b.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-b.done:
			return fmt.Errorf("bench: bridge exited at start:\n%s", b.out.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: bridge not ready after %s:\n%s", limit, b.out.String())
		}
	}
}

// Pid returns the process id of the running server.
func (b *Bridge) Pid() int { return b.cmd.Process.Pid }

// Kill ends the server with SIGKILL, as a crash would.
func (b *Bridge) Kill() {
	if b.cmd != nil && b.cmd.Process != nil {
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// Stop ends the server with SIGTERM and waits up to 20 s for it to drain.
func (b *Bridge) Stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(20 * time.Second):
		b.Kill()
	}
}

// Restart starts the server again with the same arguments and port.
func (b *Bridge) Restart(ctx context.Context) error { return b.start(ctx) }

// Output returns what the server has written so far.
func (b *Bridge) Output() string { return b.out.String() }

// withoutConfigEnv drops ASKBRIDGE_CONFIG, so that a bridge started
// without --config runs on the embedded defaults, not on a file named in
// the caller's environment.
func withoutConfigEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ASKBRIDGE_CONFIG=") {
			out = append(out, kv)
		}
	}
	return out
}

// keepOutput bounds what a bridge's output buffer keeps: the default
// profile logs at info, and a long run must not grow the tool's memory.
const keepOutput = 1 << 20

// lockedBuffer keeps the last keepOutput bytes a bridge wrote.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len()+len(p) > 2*keepOutput {
		l.b.Next(l.b.Len() - keepOutput)
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// RaiseOpenFiles raises this process's open-files limit to its hard
// limit (children inherit it) and returns the new soft limit.
func RaiseOpenFiles() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("bench: getrlimit: %w", err)
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, fmt.Errorf("bench: setrlimit: %w", err)
	}
	return r.Cur, nil
}

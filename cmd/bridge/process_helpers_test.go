package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// builtBridge is the bridge binary built once per test run with flags.
type builtBridge struct {
	flags []string
	once  sync.Once
	path  string
	err   error
}

// The process tests run the real binary with the race detector; the
// memory measurements run one without it, whose RSS is the user's.
var (
	raceBridge  = &builtBridge{flags: []string{"-race"}}
	plainBridge = &builtBridge{}
)

func (b *builtBridge) get(t *testing.T) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "askbridge-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "bridge")
		args := append(append([]string{"build"}, b.flags...), "-o", b.path, ".")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func bridgeBinary(t *testing.T) string { return raceBridge.get(t) }

func plainBridgeBinary(t *testing.T) string { return plainBridge.get(t) }

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a running `bridge serve`.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	out    *testutil.Buffer
	exited chan struct{}
}

// startServe starts `bridge serve` on addr with the given arguments and
// waits until /readyz answers.
func startServe(t *testing.T, addr string, env []string, args ...string) *proc {
	t.Helper()
	return startServeBinary(t, bridgeBinary(t), addr, env, args...)
}

// startServeBinary is startServe with the binary at bin.
func startServeBinary(t *testing.T, bin, addr string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", addr}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	p := &proc{cmd: cmd, addr: addr, out: &testutil.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("server output:\n%s", p.out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("bridge serve exited early:\n%s", p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge serve not ready after 30s:\n%s", p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL, as a crash would.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// stop ends the server with SIGTERM and waits for it to drain.
func (p *proc) stop(t *testing.T) {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("bridge serve did not stop within 30s of SIGINT")
	}
}

// cliResult is a finished client command.
type cliResult struct {
	stdout, stderr string
	code           int
}

// bridgeCmd prepares a client command against the server at addr.
func bridgeCmd(t *testing.T, addr string, args ...string) *exec.Cmd {
	cmd := exec.Command(bridgeBinary(t), args...)
	cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr)
	return cmd
}

// runBridge runs a client command to its end.
func runBridge(t *testing.T, addr string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := bridgeCmd(t, addr, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// background is a client command running in the background.
type background struct {
	cmd  *exec.Cmd
	out  *testutil.Buffer
	errb *testutil.Buffer
	done chan int
}

func startBridge(t *testing.T, addr string, args ...string) *background {
	t.Helper()
	return startBridgeIn(t, addr, nil, args...)
}

// startBridgeIn runs the bridge command in the background with stdin as
// its standard input (none when nil).
func startBridgeIn(t *testing.T, addr string, stdin io.Reader, args ...string) *background {
	t.Helper()
	cmd := bridgeCmd(t, addr, args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	bg := &background{cmd: cmd, out: &testutil.Buffer{}, errb: &testutil.Buffer{}, done: make(chan int, 1)}
	cmd.Stdout, cmd.Stderr = bg.out, bg.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			bg.done <- ee.ExitCode()
			return
		}
		bg.done <- 0
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return bg
}

// wait returns the exit code, failing the test after timeout.
func (bg *background) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case code := <-bg.done:
		return code
	case <-time.After(timeout):
		t.Fatalf("command still running after %s; stderr: %s", timeout, bg.errb.String())
		return -1
	}
}

// pendingIDs lists the ids of pending questions through `bridge list`.
func pendingIDs(t *testing.T, addr string) []string {
	t.Helper()
	r := runBridge(t, addr, "list", "--status", "pending")
	var ids []string
	for _, line := range strings.Split(r.stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// waitPending polls until n questions are pending.
func waitPending(t *testing.T, addr string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ids := pendingIDs(t, addr)
		if len(ids) == n {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pending questions, want %d", len(ids), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Package redistest starts private redis-server processes for tests and
// hands out configurations for the shared test Redis at 127.0.0.1:6379.
//
// Tests use a real redis-server, never a stand-in: Debian's redis-server
// must be on PATH. Shared(t) fails (it does not skip) when 127.0.0.1:6379
// does not answer, because CI always provides Redis.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	redisstore "github.com/askbridge/askbridge/store/redis"
)

// SharedAddr is the Redis every test environment provides.
const SharedAddr = "127.0.0.1:6379"

// Shared returns a configuration for the shared Redis with a key prefix
// unique to this test, and deletes the test's keys when it ends.
func Shared(t testing.TB) redisstore.Config {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: SharedAddr, DialTimeout: time.Second, MaxRetries: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		t.Fatalf("redistest: the shared Redis at %s does not answer (start it with `redis-server --daemonize yes`): %v", SharedAddr, err)
	}
	prefix := "askbridge-test:" + randomHex(6) + ":"
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return redisstore.Config{Addrs: []string{SharedAddr}, KeyPrefix: prefix}
}

// Server is a private redis-server process.
type Server struct {
	Addr string
	Dir  string
	t    testing.TB
	args []string
	cmd  *exec.Cmd
}

// StartServer starts a private redis-server on a free loopback port with
// no persistence (unless args say otherwise) and stops it when the test
// ends. It returns the address and a stop function (safe to call twice).
func StartServer(t testing.TB, args ...string) (addr string, stop func()) {
	s := Start(t, args...)
	return s.Addr, s.Stop
}

// Start is StartServer returning the Server, for tests that kill and
// restart it. A first argument that is not an option is a configuration
// file (as for a sentinel: Start(t, "sentinel.conf", "--sentinel")).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(FreePort(t))), Dir: t.TempDir(), t: t, args: args}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Restart starts the server again on the same port and directory after
// Kill or Stop.
func (s *Server) Restart() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	var argv []string
	args := s.args
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		argv, args = append(argv, args[0]), args[1:] // a configuration file comes first
	}
	argv = append(argv, "--port", port, "--bind", "127.0.0.1", "--dir", s.Dir,
		"--save", "", "--appendonly", "no", "--logfile", filepath.Join(s.Dir, "redis.log"))
	argv = append(argv, args...)
	cmd := exec.Command("redis-server", argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("redistest: start redis-server: %v", err)
	}
	s.cmd = cmd
	if err := waitReady(s.Addr, password(s.args), 10*time.Second); err != nil {
		logTail, _ := os.ReadFile(filepath.Join(s.Dir, "redis.log"))
		s.Stop()
		s.t.Fatalf("redistest: redis-server on %s did not start: %v\n%s", s.Addr, err, logTail)
	}
}

// Kill ends the server with SIGKILL, as a crash would.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Stop ends the server.
func (s *Server) Stop() { s.Kill() }

func password(args []string) string {
	for i, a := range args {
		if a == "--requirepass" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func waitReady(addr, pass string, limit time.Duration) error {
	c := goredis.NewClient(&goredis.Options{Addr: addr, Password: pass, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil || strings.Contains(fmt.Sprint(err), "NOAUTH") {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// FreePort returns a loopback TCP port that was free a moment ago, below
// 55536 so that port+10000 (the cluster bus port) is valid too.
func FreePort(t testing.TB) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("redistest: free port: %v", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if p > 55535 {
			continue
		}
		if bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+10000))); err == nil {
			_ = bus.Close()
			return p
		}
	}
	t.Fatalf("redistest: no free port pair found")
	return 0
}

// StartCluster starts a Redis Cluster of three masters on loopback ports,
// waits until it serves every slot and stops it when the test ends. It
// returns the node addresses.
func StartCluster(t testing.TB) []string {
	t.Helper()
	var addrs []string
	// No test stops a node of this cluster, so nothing needs a failure
	// noticed fast; a short node timeout only let a starved machine mark
	// a live node failed, and the cluster answered CLUSTERDOWN.
	for range 3 {
		s := Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "15000")
		addrs = append(addrs, s.Addr)
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, a := range addrs {
		c := goredis.NewClient(&goredis.Options{Addr: a})
		for {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				_ = c.Close()
				t.Fatalf("redistest: cluster at %s not ok: %v %s", a, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = c.Close()
	}
	return addrs
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

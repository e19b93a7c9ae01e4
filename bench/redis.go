package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// RedisServer is a private redis-server process on a loopback port.
type RedisServer struct {
	Addr string
	dir  string
	args []string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartRedis starts redis-server (from PATH) on a free loopback port with
// its files in dir. aof turns on the append-only file, synced on every
// write (appendfsync always), so that even a kill -9 keeps every write
// Redis acknowledged.
func StartRedis(ctx context.Context, dir string, aof bool) (*RedisServer, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s := &RedisServer{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir}
	s.args = []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--save", "", "--daemonize", "no", "--logfile", "redis.log", "--maxmemory-policy", "noeviction"}
	if aof {
		s.args = append(s.args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		s.args = append(s.args, "--appendonly", "no")
	}
	return s, s.start(ctx)
}

func (s *RedisServer) start(ctx context.Context) error {
	s.cmd = exec.Command("redis-server", s.args...)
	s.cmd.Dir = s.dir
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("redis-server: %w (is it on PATH?)", err)
	}
	s.done = make(chan struct{})
	go func(c *exec.Cmd, done chan struct{}) { _ = c.Wait(); close(done) }(s.cmd, s.done)
	c := s.Client()
	defer c.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		// With AOF, Redis answers LOADING while it replays the file.
		if err := c.Ping(ctx).Err(); err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited at start; see %s/redis.log", s.dir)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server at %s not ready after 15 s", s.Addr)
		}
	}
}

// URL is the store URL of the server.
func (s *RedisServer) URL() string { return "redis://" + s.Addr + "/0" }

// Client returns a new client of the server; the caller closes it.
func (s *RedisServer) Client() *goredis.Client {
	return goredis.NewClient(&goredis.Options{Addr: s.Addr, MaxRetries: -1})
}

// Kill ends the server with SIGKILL.
func (s *RedisServer) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Restart kills the server and starts it again on the same port and
// directory (with AOF on, it reloads what was written).
func (s *RedisServer) Restart(ctx context.Context) error {
	s.Kill()
	return s.start(ctx)
}

// Pid returns the server's process id.
func (s *RedisServer) Pid() int { return s.cmd.Process.Pid }

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// CommandCalls returns the sum of calls over every command in INFO
// commandstats of the Redis at c.
func CommandCalls(ctx context.Context, c goredis.UniversalClient) (int64, error) {
	by, err := CommandCallsBy(ctx, c)
	var total int64
	for _, n := range by {
		total += n
	}
	return total, err
}

// CommandCallsBy returns the calls of each command in INFO commandstats
// of the Redis at c ("evalsha", "hgetall", ...), leaving out INFO itself.
func CommandCallsBy(ctx context.Context, c goredis.UniversalClient) (map[string]int64, error) {
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, fmt.Errorf("redis: INFO commandstats: %w", err)
	}
	return callsBy(info), nil
}

// sumCalls adds the calls= of every cmdstat_ line, leaving out INFO itself
// (the measurement's own command).
func sumCalls(info string) int64 {
	var total int64
	for _, n := range callsBy(info) {
		total += n
	}
	return total
}

// callsBy reads the calls= of every cmdstat_ line but INFO's.
func callsBy(info string) map[string]int64 {
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				out[strings.TrimPrefix(name, "cmdstat_")] += n
			}
		}
	}
	return out
}

// perCycle divides the growth of each command's calls from before to
// after by cycles, leaving out commands that did not grow.
func perCycle(before, after map[string]int64, cycles int) map[string]float64 {
	out := map[string]float64{}
	for name, n := range after {
		if d := n - before[name]; d > 0 {
			out[name] = float64(d) / float64(cycles)
		}
	}
	return out
}

// UsedMemory returns used_memory from INFO memory, in bytes.
func UsedMemory(ctx context.Context, c goredis.UniversalClient) (int64, error) {
	info, err := c.Info(ctx, "memory").Result()
	if err != nil {
		return 0, fmt.Errorf("redis: INFO memory: %w", err)
	}
	v, ok := infoField(info, "used_memory")
	if !ok {
		return 0, fmt.Errorf("redis: INFO memory has no used_memory")
	}
	return strconv.ParseInt(v, 10, 64)
}

func infoField(info, key string) (string, bool) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+":"); ok {
			return v, true
		}
	}
	return "", false
}

// removeAll deletes a temporary directory, ignoring errors.
func removeAll(dir string) { _ = os.RemoveAll(dir) }

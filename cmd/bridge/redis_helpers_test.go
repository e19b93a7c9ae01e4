package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/redis/redistest"
	goredis "github.com/redis/go-redis/v9"
)

// The Redis process tests run real `bridge serve` binaries against a
// private redis-server each, so that no test sees another's keys and the
// shared Redis is never touched. A missing redis-server fails the test.

// redisHTTP is the client of the Redis process tests: many connections per
// host, so that concurrent requests really are concurrent.
var redisHTTP = &http.Client{
	Timeout:   60 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256},
}

// startRedisPair starts a private redis-server and two bridges, A and B,
// on it with the given extra serve arguments.
func startRedisPair(t *testing.T, serveArgs ...string) (srv *redistest.Server, a, b *proc) {
	t.Helper()
	srv = redistest.Start(t)
	a = startRedisBridge(t, srv.Addr, serveArgs...)
	b = startRedisBridge(t, srv.Addr, serveArgs...)
	return srv, a, b
}

// startRedisBridge starts `bridge serve` on the Redis at redisAddr.
func startRedisBridge(t *testing.T, redisAddr string, serveArgs ...string) *proc {
	t.Helper()
	args := append([]string{"--data-dir", t.TempDir(), "--store", "redis://" + redisAddr + "/0"}, serveArgs...)
	return startServe(t, freeAddr(t), nil, args...)
}

// apiCall sends a JSON request to a bridge and returns the status and the
// body; a transport error fails the test.
func apiCall(t *testing.T, method, addr, path string, body any) (int, []byte) {
	t.Helper()
	code, raw, err := apiTry(method, addr, path, body)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, addr, path, err)
	}
	return code, raw
}

// apiTry is apiCall that returns transport errors, for goroutines.
func apiTry(method, addr, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+addr+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := redisHTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// askPendingHTTP asks a two-option question in pending mode through
// POST /v1/questions and returns its id.
func askPendingHTTP(t *testing.T, addr, question string, extra map[string]any) string {
	t.Helper()
	body := map[string]any{
		"question": question,
		"options":  []map[string]string{{"label": "Yes"}, {"label": "No"}},
		"wait":     "0s",
	}
	for k, v := range extra {
		body[k] = v
	}
	code, raw := apiCall(t, "POST", addr, "/v1/questions", body)
	var res struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || code != http.StatusAccepted || res.Status != "pending" {
		t.Fatalf("ask %q on %s: %d %s", question, addr, code, raw)
	}
	return res.ID
}

// commandBody is the body of POST /v1/commands.
type commandBody struct {
	Channel string `json:"channel,omitempty"`
	User    string `json:"user,omitempty"`
	Text    string `json:"text"`
}

// commandReply is the answer of POST /v1/commands.
type commandReply struct {
	OK       bool            `json:"ok"`
	Reply    string          `json:"reply"`
	Question json.RawMessage `json:"question"`
}

// getResult reads a question through GET /v1/questions/{id} as a generic
// JSON object, so that whole results can be compared.
func getResult(t *testing.T, addr, id string) map[string]any {
	t.Helper()
	code, raw := apiCall(t, "GET", addr, "/v1/questions/"+id, nil)
	if code != http.StatusOK {
		t.Fatalf("GET %s on %s: %d %s", id, addr, code, raw)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("GET %s: %v: %s", id, err, raw)
	}
	return m
}

// metricValue reads one unlabelled gauge or counter from /metrics.
func metricValue(t *testing.T, addr, name string) float64 {
	t.Helper()
	code, raw := apiCall(t, "GET", addr, "/metrics", nil)
	if code != http.StatusOK {
		t.Fatalf("metrics on %s: %d", addr, code)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("metric %s: %q", name, line)
			}
			return f
		}
	}
	t.Fatalf("metric %s not exposed by %s", name, addr)
	return 0
}

// leaseHolder returns the instance id holding the leader lease of job, ""
// when none does.
func leaseHolder(t *testing.T, redisAddr, job string) string {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: redisAddr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	v, err := c.Get(ctx, "askbridge:leader:"+job).Result()
	if errors.Is(err, goredis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatalf("read the %s lease: %v", job, err)
	}
	return v
}

// holds reports whether the instance id names this process (ids are
// host-pid-random).
func (p *proc) holds(instance string) bool {
	return strings.Contains(instance, "-"+strconv.Itoa(p.cmd.Process.Pid)+"-")
}

// acquisitions counts the "leadership acquired" lines of job in the
// server's log.
func (p *proc) acquisitions(job string) int {
	n := 0
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.Contains(line, `msg="leadership acquired"`) && strings.Contains(line, "lease="+job+" ") {
			n++
		}
	}
	return n
}

// stampWriter records when its first byte arrived.
type stampWriter struct {
	testutil.Buffer
	once  sync.Once
	first chan time.Time
}

func newStampWriter() *stampWriter { return &stampWriter{first: make(chan time.Time, 1)} }

func (w *stampWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { w.first <- time.Now() })
	return w.Buffer.Write(p)
}

// runServeFails runs `bridge serve` with extra environment variables,
// expecting it to give up; it fails the test if serve is still running
// after limit, and returns the exit code and the output.
func runServeFails(t *testing.T, limit time.Duration, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bridgeBinary(t), append([]string{"serve", "--listen", freeAddr(t), "--data-dir", t.TempDir()}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("bridge serve %v still running after %s:\n%s", args, limit, out)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// writeRedisConfig writes a configuration file into a fresh directory.
func writeRedisConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askbridge.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// resolvedEvents replays the event stream of a bridge from the start and
// counts the resolution events per question id. It reads until want
// events arrived, then half a second more to catch any extra ones.
func resolvedEvents(t *testing.T, addr string, want int) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/v1/events?last_event_id=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := redisHTTP.Do(req)
	if err != nil {
		t.Fatalf("event stream: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %d", resp.StatusCode)
	}
	ids := make(chan string)
	go func() {
		defer close(ids)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var r struct {
				ID string `json:"id"`
			}
			if json.Unmarshal([]byte(data), &r) != nil {
				r.ID = "unreadable: " + data
			}
			select {
			case ids <- r.ID:
			case <-ctx.Done():
				return
			}
		}
	}()
	counts, n := map[string]int{}, 0
	var extra <-chan time.Time
	for {
		select {
		case id, ok := <-ids:
			if !ok {
				t.Fatalf("event stream ended after %d events", n)
			}
			counts[id]++
			if n++; n == want {
				extra = time.After(500 * time.Millisecond)
			}
		case <-extra:
			return counts
		case <-ctx.Done():
			t.Fatalf("%d resolution events within 20s, want %d", n, want)
		}
	}
}

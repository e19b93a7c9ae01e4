package web

import (
	"bufio"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
)

// The event stream outlives the server's WriteTimeout: each write is
// bounded by it, the stream is not.
func TestEventsOutliveTheWriteTimeout(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	e.ch.beat = 50 * time.Millisecond
	srv := httptest.NewUnstartedServer(e.ch.Handler())
	srv.Config.WriteTimeout = 200 * time.Millisecond
	srv.Start()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/inbox/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	start := time.Now()
	for time.Since(start) < 5*srv.Config.WriteTimeout {
		if !lines.Scan() {
			t.Fatalf("the stream ended %s in, with a write timeout of %s: %v", time.Since(start), srv.Config.WriteTimeout, lines.Err())
		}
	}
	q := e.ask(t, &broker.AskRequest{Question: "Still there?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "data: ") && strings.Contains(lines.Text(), q.ID) {
			return
		}
	}
	t.Fatalf("no event for %s after the write timeout: %v", q.ID, lines.Err())
}

var wrongTokenLine = regexp.MustCompile(`msg="wrong web token".* count=(\d+)`)

func TestWrongTokensLogAFewLines(t *testing.T) {
	const token = "a-long-enough-web-token-1234"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	logs := &testutil.Buffer{}
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}, Options{Loopback: false, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	self := e.srv.URL
	const wrong = maxFailuresPerMinute
	start := time.Now()
	for range wrong {
		if res, _ := post(t, self+"/inbox/login", self, "application/json", `{"token":"guess-guess-guess-guess"}`); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token: %d, want 401", res.StatusCode)
		}
	}
	elapsed := time.Since(start)
	var lines, counted int
	deadline := time.Now().Add(waitFor)
	for counted < wrong && time.Now().Before(deadline) {
		lines, counted = 0, 0
		for _, m := range wrongTokenLine.FindAllStringSubmatch(logs.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			lines++
			counted += n
		}
		time.Sleep(20 * time.Millisecond)
	}
	if counted != wrong {
		t.Fatalf("the wrong-token lines count %d attempts, want %d:\n%s", counted, wrong, logs.String())
	}
	if max := int(elapsed/time.Second) + 2; lines > max {
		t.Errorf("%d wrong tokens over %s wrote %d lines, want at most %d", wrong, elapsed, lines, max)
	}
}

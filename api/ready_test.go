package api_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// logBuffer collects log lines safely from handler goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// edgeServer is an API server over a real SQLite file with cfg's metrics
// settings, logging into the returned buffer.
func edgeServer(t *testing.T, cfg api.Config) (*httptest.Server, broker.Store, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	b := sqlitetest.OpenBroker(t, filepath.Join(t.TempDir(), "sub", "api.db"), func(c *broker.Config) { c.Logger = log })
	cfg.Logger, cfg.Loopback = log, true
	cfg.Metrics = api.NewMetrics(func() int { return 0 }, b.Store)
	hs := httptest.NewServer(api.New(cfg, b.Broker, b.Store))
	t.Cleanup(hs.Close)
	return hs, b.Store, logs
}

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestReadyHidesStoreDetail: /readyz says only "store unavailable"; the
// store's own error (file paths, addresses) goes to the log.
func TestReadyHidesStoreDetail(t *testing.T) {
	hs, st, logs := edgeServer(t, api.Config{})
	if status, body := get(t, hs.URL+"/readyz", ""); status != 200 {
		t.Fatalf("ready: %d %s", status, body)
	}
	st.Close()
	status, body := get(t, hs.URL+"/readyz", "")
	want := `{"error":{"code":"unavailable","message":"store unavailable"}}` + "\n"
	if status != 503 || body != want {
		t.Fatalf("got %d %q, want 503 %q", status, body, want)
	}
	if !strings.Contains(logs.String(), "sqlite") || !strings.Contains(logs.String(), "store unavailable") {
		t.Fatalf("the log lacks the detail:\n%s", logs)
	}
}

func TestMetricsAccess(t *testing.T) {
	const key = "metrics-key-0123456789"
	tests := []struct {
		name   string
		cfg    api.Config
		key    string
		status int
		says   string
	}{
		{"open on loopback", api.Config{}, "", 200, "askbridge_questions_asked_total"},
		{"key required", api.Config{MetricsKey: key}, "", 401, "missing or wrong metrics key"},
		{"wrong key", api.Config{MetricsKey: key}, key + "x", 401, "missing or wrong metrics key"},
		{"right key", api.Config{MetricsKey: key}, key, 200, "askbridge_questions_asked_total"},
		{"refused", api.Config{MetricsRefusal: "set metrics.key_env or metrics.listen"}, key, 404, `"message":"set metrics.key_env or metrics.listen"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, _, _ := edgeServer(t, tt.cfg)
			status, body := get(t, hs.URL+"/metrics", tt.key)
			if status != tt.status || !strings.Contains(body, tt.says) {
				t.Fatalf("got %d %.200q, want %d with %q", status, body, tt.status, tt.says)
			}
		})
	}
}

package api_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// instanceOn is one bridge instance (store handle, broker, API with
// metrics) over the SQLite file at path, as a second process sharing the
// file would be.
func instanceOn(t *testing.T, path string) *server {
	t.Helper()
	var b *sqlitetest.Broker
	var metrics *api.Metrics
	b = sqlitetest.OpenBroker(t, path, sqlitetest.DefaultRoute(cli.Name, ""), func(c *broker.Config) {
		metrics = api.NewMetrics(func() int { return b.Waiting() }, c.Store)
		c.Observer = metrics
	})
	b.Register(&cli.Channel{})
	srv := api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler), Metrics: metrics}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	return &server{Server: hs, b: b.Broker, st: b.Store}
}

var pendingSample = regexp.MustCompile(`(?m)^askbridge_questions_pending (\S+)$`)

// pendingGauge reads askbridge_questions_pending from s's /metrics.
func pendingGauge(t *testing.T, s *server) string {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	m := pendingSample.FindSubmatch(raw)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET /metrics: %d, no askbridge_questions_pending sample in\n%s", resp.StatusCode, raw)
	}
	return string(m[1])
}

// The pending gauge is the store's count: two instances sharing a store
// report the same number, and a question asked on one and cancelled on the
// other leaves both at 0 (a tally per instance said 1 and -1).
func TestPendingGaugeIsTheStoreCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := instanceOn(t, path), instanceOn(t, path)
	wantBoth := func(want, after string) {
		t.Helper()
		for name, s := range map[string]*server{"first": a, "second": b} {
			if got := pendingGauge(t, s); got != want {
				t.Errorf("after %s: the %s instance reports askbridge_questions_pending %s, want %s", after, name, got, want)
			}
		}
	}
	wantBoth("0", "nothing")
	var ids []string
	for range 2 {
		status, body := a.call(t, "POST", "/v1/questions", "", map[string]any{"question": "Which database?", "wait": "0s"})
		if status != http.StatusAccepted {
			t.Fatalf("ask on the first instance: %d %v", status, body)
		}
		ids = append(ids, body["id"].(string))
	}
	wantBoth("2", "two asks on the first instance")
	if status, body := b.call(t, "POST", "/v1/questions/"+ids[0]+"/cancel", "", nil); status != http.StatusOK {
		t.Fatalf("cancel on the second instance: %d %v", status, body)
	}
	wantBoth("1", "a cancel on the second instance")
	if status, body := b.call(t, "POST", "/v1/questions/"+ids[1]+"/cancel", "", nil); status != http.StatusOK {
		t.Fatalf("cancel on the second instance: %d %v", status, body)
	}
	wantBoth("0", "both cancelled on the second instance")
}

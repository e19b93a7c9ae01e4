package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
	"github.com/askbridge/askbridge/timeouts"
)

// TestTimeoutsConfigKeys checks the timeouts keys as a person writes them
// in the file: good values are read, bad ones are refused with the key
// and the line named.
func TestTimeoutsConfigKeys(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    timeouts.Config
		wantErr []string
	}{
		{name: "unset: defaults", yaml: "listen: 127.0.0.1:8377\n", want: timeouts.Config{}},
		{name: "every key", yaml: "timeouts:\n  default: 1h\n  reminders: [0.25, 0.75]\n  sweep_every: 2s\n  batch: 1000\n",
			want: timeouts.Config{Default: config.Duration(time.Hour), Reminders: []float64{0.25, 0.75}, SweepEvery: timeouts.SweepInterval(2 * time.Second), Batch: 1000}},
		{name: "sweep_every below a second", yaml: "timeouts:\n  sweep_every: 500ms\n", wantErr: []string{"line 2", "timeouts.sweep_every", "500ms is below the minimum of 1s"}},
		{name: "sweep_every above an hour", yaml: "timeouts:\n  sweep_every: 2h\n", wantErr: []string{"line 2", "timeouts.sweep_every", "above the maximum of 1h"}},
		{name: "sweep_every not a duration", yaml: "timeouts:\n  sweep_every: often\n", wantErr: []string{"line 2", "timeouts.sweep_every", `"often" is not a duration`}},
		{name: "batch zero", yaml: "timeouts:\n  default: 30m\n  batch: 0\n", wantErr: []string{"line 3", "timeouts.batch", "0 is outside 1–100000"}},
		{name: "batch too large", yaml: "timeouts:\n  batch: 1000000\n", wantErr: []string{"timeouts.batch", "outside 1–100000"}},
		{name: "batch not a number", yaml: "timeouts:\n  batch: many\n", wantErr: []string{"line 2", "timeouts.batch", `"many" is not a whole number`}},
		{name: "unknown key", yaml: "timeouts:\n  sweep_evry: 1s\n", wantErr: []string{"line 2", "sweep_evry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := bridgeconfig.Load(path)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatalf("loadConfig accepted %q (%+v)", tt.yaml, cfg.Timeouts)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				// check-config says the same and exits 2.
				var stderr bytes.Buffer
				if code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr); code != cmdline.ExitBadInput {
					t.Errorf("check-config exit %d, want %d", code, cmdline.ExitBadInput)
				}
				if !strings.Contains(stderr.String(), tt.wantErr[len(tt.wantErr)-1]) {
					t.Errorf("check-config said %q, want it to say %q", stderr.String(), tt.wantErr[len(tt.wantErr)-1])
				}
				return
			}
			if err != nil {
				t.Fatalf("loadConfig: %v", err)
			}
			if err := cfg.Finish(); err != nil {
				t.Fatalf("finish: %v", err)
			}
			got := cfg.Timeouts
			if got.Default != tt.want.Default || got.SweepEvery != tt.want.SweepEvery || got.Batch != tt.want.Batch || len(got.Reminders) != len(tt.want.Reminders) {
				t.Errorf("timeouts = %+v, want %+v", got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("validate: %v", err)
			}
		})
	}
}

// recordingElector is the local elector that remembers which jobs asked
// to lead.
type recordingElector struct {
	mu    sync.Mutex
	names []string
}

func (e *recordingElector) RunAsLeader(ctx context.Context, name string, fn func(context.Context)) error {
	e.mu.Lock()
	e.names = append(e.names, name)
	e.mu.Unlock()
	return broker.LocalElector{}.RunAsLeader(ctx, name, fn)
}

// TestTimeoutJobsRunTheSweeperAsLeader checks the wiring: one job, run
// under the elector as "sweeper", that times out a question whose deadline
// passed before it started, and stops with its context.
func TestTimeoutJobsRunTheSweeperAsLeader(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	log := slog.New(slog.DiscardHandler)
	sb := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""), func(c *broker.Config) { c.Now = clock })
	b, st := sb.Broker, sb.Store
	cfg := bridgeconfig.Default()
	cfg.Timeouts.SweepEvery = timeouts.SweepInterval(time.Second)
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	b.Register(&cli.Channel{})
	timeout := broker.Duration(10 * time.Second)
	q, _, err := b.Ask(ctx, "local", &broker.AskRequest{Question: "Which database?", Timeout: &timeout, Default: broker.StringList{"SQLite"}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(11 * time.Second)
	mu.Unlock()

	el := &recordingElector{}
	jobs := timeoutJobs(cfg, b, st, el, log)
	if len(jobs) != 1 {
		t.Fatalf("timeoutJobs returned %d jobs, want 1", len(jobs))
	}
	done := make(chan struct{})
	go func() { defer close(done); jobs[0](ctx) }()

	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := st.Get(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == broker.StatusTimedOut {
			if got.Fallback != broker.FallbackDefault || !got.Answers["Which database?"].Defaulted {
				t.Errorf("timed out with fallback %q and answers %+v, want the default SQLite", got.Fallback, got.Answers)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the question is still %s", got.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the sweeper job did not stop with its context")
	}
	if len(el.names) != 1 || el.names[0] != "sweeper" {
		t.Errorf("the job asked to lead as %q, want [sweeper]", el.names)
	}
}

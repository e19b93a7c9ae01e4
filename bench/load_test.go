package bench

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// inProcessBridge serves the real API, broker and text channel on a
// SQLite file, on loopback.
func inProcessBridge(t *testing.T) (string, broker.Store) {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := httptest.NewServer(api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store))
	t.Cleanup(srv.Close)
	return srv.URL, b.Store
}

func TestLoadAnswersEveryQuestionOnce(t *testing.T) {
	url, st := inProcessBridge(t)
	for _, run := range []struct{ mode, client string }{
		{ModePending, ClientRaw}, {ModeBlocking, ClientRaw}, {ModePending, ClientNetHTTP}, {ModeBlocking, ClientNetHTTP},
	} {
		mode := run.mode
		t.Run(mode+" "+run.client, func(t *testing.T) {
			res, err := Load(context.Background(), LoadConfig{Servers: []string{url}, Agents: 4, Cycles: 20,
				Duration: 20 * time.Second, Mode: mode, Think: time.Millisecond, Client: run.client})
			if err != nil {
				t.Fatal(err)
			}
			if res.Cycles != 20 || res.Errors != 0 {
				t.Fatalf("%d cycles, %d errors (%v); want 20 and 0", res.Cycles, res.Errors, res.FirstErrors)
			}
			if res.AnswerToAgent.Count != 20 || res.Ask.Count != 20 || res.PerSecond <= 0 {
				t.Errorf("summaries: ask %+v, answer-to-agent %+v, %v/s", res.Ask, res.AnswerToAgent, res.PerSecond)
			}
			r := &FaultResult{Name: mode}
			if err := checkStore(context.Background(), st, dedupe(res.IDs), r); err != nil {
				t.Fatal(err)
			}
			if r.Asked = len(dedupe(res.IDs)); r.Asked != 20 {
				t.Errorf("%d distinct questions, want 20", r.Asked)
			}
			if r.decide(); !r.OK {
				t.Errorf("store check: %s", r.Verdict())
			}
		})
	}
}

// A paced run starts no more cycles than its rate allows in its duration,
// however fast the bridge answers, and tells each cycle to Observe.
func TestLoadPacedByRate(t *testing.T) {
	url, _ := inProcessBridge(t)
	var observed, failed atomic.Int64
	res, err := Load(context.Background(), LoadConfig{Servers: []string{url}, Agents: 4, Cycles: 1000,
		Duration: time.Second, Mode: ModePending, Rate: 10,
		Observe: func(err error) {
			observed.Add(1)
			if err != nil {
				failed.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cycles+res.Errors > 10 || res.Cycles < 1 {
		t.Fatalf("%d cycles and %d errors in 1 s at 10/s; want 1 to 10 cycles", res.Cycles, res.Errors)
	}
	if int(observed.Load()) != res.Cycles+res.Errors || int(failed.Load()) != res.Errors {
		t.Fatalf("observed %d cycles (%d failed); the run counted %d and %d errors", observed.Load(), failed.Load(), res.Cycles, res.Errors)
	}
}

func TestLoadRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  LoadConfig
		want string
	}{
		{"no server", LoadConfig{Agents: 1, Cycles: 1, Duration: time.Second, Mode: ModePending}, "no server"},
		{"no agents", LoadConfig{Servers: []string{"http://127.0.0.1:1"}, Cycles: 1, Duration: time.Second, Mode: ModePending}, "agents"},
		{"bad mode", LoadConfig{Servers: []string{"http://127.0.0.1:1"}, Agents: 1, Cycles: 1, Duration: time.Second, Mode: "eager"}, "mode"},
		{"no duration", LoadConfig{Servers: []string{"http://127.0.0.1:1"}, Agents: 1, Cycles: 1, Mode: ModePending}, "duration"},
		{"negative rate", LoadConfig{Servers: []string{"http://127.0.0.1:1"}, Agents: 1, Cycles: 1, Duration: time.Second, Mode: ModePending, Rate: -1}, "rate"},
		{"unknown client", LoadConfig{Servers: []string{"http://127.0.0.1:1"}, Agents: 1, Cycles: 1, Duration: time.Second, Mode: ModePending, Client: "curl"}, `client "curl"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
}

func TestStoreOnlyOnSQLite(t *testing.T) {
	ctx := context.Background()
	st := sqlitetest.OpenStore(t)
	res, err := StoreOnly(ctx, st, 4, 40, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cycles != 40 || res.Cycle.Count != 40 {
		t.Errorf("%d cycles (%d timed), want 40", res.Cycles, res.Cycle.Count)
	}
	seen, err := countEvents(ctx, st, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 40 {
		t.Errorf("%d questions have events, want 40", len(seen))
	}
}

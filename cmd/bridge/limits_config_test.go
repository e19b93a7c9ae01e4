package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestLimitsConfigKeys checks the limits keys as a person writes them:
// unset means the defaults, good values are read, bad ones are refused by
// serve and check-config with the key named.
func TestLimitsConfigKeys(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    api.Limits
		wantErr string
	}{
		{name: "unset: defaults", yaml: "listen: 127.0.0.1:8377\n", want: api.Limits{PendingPerAgent: 1000, StreamsPerAgent: 16}},
		{name: "both set", yaml: "limits:\n  pending_per_agent: 50\n  streams_per_agent: 2\n", want: api.Limits{PendingPerAgent: 50, StreamsPerAgent: 2}},
		{name: "zero: default", yaml: "limits:\n  pending_per_agent: 0\n", want: api.Limits{PendingPerAgent: 1000, StreamsPerAgent: 16}},
		{name: "largest", yaml: "limits:\n  pending_per_agent: 1000000\n  streams_per_agent: 10000\n", want: api.Limits{PendingPerAgent: 1000000, StreamsPerAgent: 10000}},
		{name: "negative pending", yaml: "limits:\n  pending_per_agent: -1\n", wantErr: "limits.pending_per_agent: must be a whole number from 1 to 1000000, got -1"},
		{name: "pending too large", yaml: "limits:\n  pending_per_agent: 10000000\n", wantErr: "limits.pending_per_agent: must be a whole number from 1 to 1000000, got 10000000"},
		{name: "negative streams", yaml: "limits:\n  streams_per_agent: -5\n", wantErr: "limits.streams_per_agent: must be a whole number from 1 to 10000, got -5"},
		{name: "streams too large", yaml: "limits:\n  streams_per_agent: 100000\n", wantErr: "limits.streams_per_agent: must be a whole number from 1 to 10000, got 100000"},
		{name: "not a number", yaml: "limits:\n  streams_per_agent: many\n", wantErr: "line 2"},
		{name: "unknown key", yaml: "limits:\n  pending: 5\n", wantErr: `line 2: unknown key "pending" in limits (did you mean "pending_per_agent"?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := bridgeconfig.Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("config %q: err = %v, want it to say %q", tt.yaml, err, tt.wantErr)
				}
				var stderr bytes.Buffer
				if code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr); code != cmdline.ExitBadInput {
					t.Errorf("check-config exit %d, want %d", code, cmdline.ExitBadInput)
				}
				if !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("check-config said %q, want it to say %q", stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("config %q: %v", tt.yaml, err)
			}
			if cfg.Limits != tt.want {
				t.Fatalf("limits = %+v, want %+v", cfg.Limits, tt.want)
			}
		})
	}
}

// TestLimitsApply starts `bridge serve` with small limits and checks what
// an agent sees beyond them: a 429 with Retry-After that names the limit
// and its key, for a new question and for another event stream; asking
// again for an existing question still works, and a closed stream frees
// its slot.
func TestLimitsApply(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	cfg := filepath.Join(dir, "bridge.yaml")
	if err := os.WriteFile(cfg, []byte("limits:\n  pending_per_agent: 2\n  streams_per_agent: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, addr, nil, "--data-dir", dir, "--config", cfg)
	base := "http://" + addr

	ask := func(call string) (*http.Response, string) {
		t.Helper()
		body := `{"question":"Ship it?","options":[{"label":"Yes"},{"label":"No"}],"wait":"0s","session_id":"s1","tool_call_id":"` + call + `"}`
		resp, err := http.Post(base+"/v1/questions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, string(data)
	}
	for _, call := range []string{"c1", "c2", "c1"} {
		if resp, body := ask(call); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("ask %s: %s %s, want 202", call, resp.Status, body)
		}
	}
	resp, body := ask("c3")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "30" {
		t.Fatalf("third question: %s Retry-After %q %s; want 429 with Retry-After 30", resp.Status, resp.Header.Get("Retry-After"), body)
	}
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code != "limit" ||
		!strings.Contains(e.Error.Message, "2 pending questions") || !strings.Contains(e.Error.Message, "limits.pending_per_agent") {
		t.Fatalf("third question's error = %s, want code limit naming 2 pending questions and limits.pending_per_agent", body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := func(ctx context.Context) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	first := stream(ctx)
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %s", first.Status)
	}
	second := stream(context.Background())
	data, _ := io.ReadAll(second.Body)
	second.Body.Close()
	if second.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(data), "limits.streams_per_agent") || !strings.Contains(string(data), "1 open event streams") {
		t.Fatalf("second stream: %s %s; want 429 naming 1 open event streams and limits.streams_per_agent", second.Status, data)
	}
	cancel()
	first.Body.Close()
	// The slot frees once the server sees the stream end.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithCancel(context.Background())
		resp := stream(ctx)
		code := resp.StatusCode
		cancel()
		resp.Body.Close()
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a new stream after closing the first: %d, want 200", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

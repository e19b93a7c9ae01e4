package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/edge"
)

func TestServerConnectionsConfig(t *testing.T) {
	defaults := edge.Settings{MaxConnections: 10000, ReadTimeout: config.Duration(30 * time.Second), WriteTimeout: config.Duration(30 * time.Second), IdleTimeout: config.Duration(90 * time.Second)}
	tests := []struct {
		name    string
		yaml    string
		want    edge.Settings
		wantErr string
	}{
		{"defaults", "", defaults, ""},
		{"all set", "server:\n  max_connections: 500\n  read_timeout: 2s\n  write_timeout: 5s\n  idle_timeout: 2s\n",
			edge.Settings{MaxConnections: 500, ReadTimeout: config.Duration(2 * time.Second), WriteTimeout: config.Duration(5 * time.Second), IdleTimeout: config.Duration(2 * time.Second)}, ""},
		{"negative cap", "server:\n  max_connections: -1\n", edge.Settings{}, "server.max_connections: -1 is outside 1–1000000"},
		{"cap too large", "server:\n  max_connections: 2000000\n", edge.Settings{}, "server.max_connections: 2000000 is outside 1–1000000"},
		{"read timeout too short", "server:\n  read_timeout: 100ms\n", edge.Settings{}, "server.read_timeout: 100ms is outside 1s–10m"},
		{"read timeout too long", "server:\n  read_timeout: 1h\n", edge.Settings{}, "server.read_timeout: 1h is outside 1s–10m"},
		{"write timeout below a platform's answer time", "server:\n  write_timeout: 2s\n", edge.Settings{}, "server.write_timeout: 2s is outside 5s–10m"},
		{"negative idle timeout", "server:\n  idle_timeout: -5s\n", edge.Settings{}, "server.idle_timeout: -5s is outside 1s–1h"},
		{"idle timeout too long", "server:\n  idle_timeout: 2h\n", edge.Settings{}, "server.idle_timeout: 2h is outside 1s–1h"},
		{"not a duration", "server:\n  idle_timeout: soon\n", edge.Settings{}, `"soon" is not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := bridgeconfig.FromFlags(bridgeconfig.Flags{Config: path, DataDir: t.TempDir()})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want it to say %q", err, tt.wantErr)
				}
				// check-config says the same and exits 2.
				var stderr bytes.Buffer
				if code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr); code != cmdline.ExitBadInput || !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("check-config: exit %d, said %q; want %d saying %q", code, stderr.String(), cmdline.ExitBadInput, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Server
			got.PublicURL, got.AllowedHosts = "", nil
			if got.MaxConnections != tt.want.MaxConnections || got.ReadTimeout != tt.want.ReadTimeout || got.WriteTimeout != tt.want.WriteTimeout || got.IdleTimeout != tt.want.IdleTimeout {
				t.Errorf("server = %+v, want %+v", got, tt.want)
			}
			srv := got.HTTPServer(nil)
			if srv.ReadTimeout != time.Duration(got.ReadTimeout) || srv.WriteTimeout != time.Duration(got.WriteTimeout) || srv.IdleTimeout != time.Duration(got.IdleTimeout) ||
				srv.ReadHeaderTimeout != min(10*time.Second, time.Duration(got.ReadTimeout)) || srv.MaxHeaderBytes != 64<<10 {
				t.Errorf("http.Server limits = read %s, write %s, idle %s, header %s, header bytes %d",
					srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout, srv.ReadHeaderTimeout, srv.MaxHeaderBytes)
			}
		})
	}
}

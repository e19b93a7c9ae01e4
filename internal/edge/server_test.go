package edge

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/testutil"
)

func TestConnectionCapFitsTheOpenFileLimit(t *testing.T) {
	tests := []struct {
		name    string
		want    int
		limit   uint64
		got     int
		warning bool
	}{
		{"room to spare", 10000, 1 << 20, 10000, false},
		{"limit unknown", 10000, 0, 10000, false},
		{"limit of 1024", 10000, 1024, 1024 - fdReserve, true},
		{"limit below the reserve", 10000, 100, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &testutil.Buffer{}
			got := connectionCap(tt.want, tt.limit, slog.New(slog.NewTextHandler(logs, nil)))
			if got != tt.got {
				t.Errorf("cap = %d, want %d", got, tt.got)
			}
			if warned := strings.Contains(logs.String(), "server.max_connections lowered"); warned != tt.warning {
				t.Errorf("warning logged = %v, want %v: %s", warned, tt.warning, logs.String())
			}
		})
	}
}

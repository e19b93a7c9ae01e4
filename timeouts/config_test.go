package timeouts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/timeouts"
)

// TestConfigValidate checks Validate on configurations built in
// code, where the file's checks do not apply.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  timeouts.Config
		want string
	}{
		{"zero is the defaults", timeouts.Config{}, ""},
		{"default too short", timeouts.Config{Default: config.Duration(5 * time.Second)}, "timeouts.default: must be between 10s and 7d, got 5s"},
		{"reminder point 1", timeouts.Config{Reminders: []float64{1}}, "timeouts.reminders[0]"},
		{"sweep_every too short", timeouts.Config{SweepEvery: timeouts.SweepInterval(time.Millisecond)}, "timeouts.sweep_every: 1ms is below the minimum of 1s"},
		{"negative batch", timeouts.Config{Batch: -3}, "timeouts.batch: -3 is outside 1–100000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("validate = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

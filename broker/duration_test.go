package broker_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"7d", 7 * 24 * time.Hour},
		{"1w", 7 * 24 * time.Hour},
		{"1d12h", 36 * time.Hour},
		{"1.5d", 36 * time.Hour},
		{"1w2d", 9 * 24 * time.Hour},
		{"2h30m", 150 * time.Minute},
		{"30s", 30 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"0", 0},
		{" 10m ", 10 * time.Minute},
		{"-1d", -24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := broker.ParseDuration(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "7", "7x", "d", "1.2.3d", "7 d", "soon", "1d-2h", "999999999w"} {
		t.Run("refuses "+bad, func(t *testing.T) {
			_, err := broker.ParseDuration(bad)
			want := `"` + bad + `" is not a duration (use e.g. 30s, 30m, 2h, 7d)`
			if err == nil || err.Error() != want {
				t.Fatalf("ParseDuration(%q) error = %v, want %q", bad, err, want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * 24 * time.Hour: "7d",
		36 * time.Hour:     "1d12h0m0s",
		30 * time.Minute:   "30m0s",
	} {
		if got := broker.FormatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := broker.ParseDuration(broker.FormatDuration(d)); err != nil || back != d {
			t.Errorf("ParseDuration(formatDuration(%v)) = %v, %v", d, back, err)
		}
	}
}

// TestDurationJSON: the API's duration fields take the same forms, and a
// number of seconds too large for a duration is refused, not wrapped.
func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{`"7d"`, 7 * 24 * time.Hour, ""},
		{`"1d12h"`, 36 * time.Hour, ""},
		{`90`, 90 * time.Second, ""},
		{`"7x"`, 0, `"7x" is not a duration (use e.g. 30s, 30m, 2h, 7d)`},
		{`true`, 0, "must be a duration"},
		{`1e300`, 0, "far too long"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d broker.Duration
			err := json.Unmarshal([]byte(tt.in), &d)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want …%s…", err, tt.err)
				}
				return
			}
			if err != nil || time.Duration(d) != tt.want {
				t.Fatalf("got %v, %v; want %v", time.Duration(d), err, tt.want)
			}
		})
	}
}

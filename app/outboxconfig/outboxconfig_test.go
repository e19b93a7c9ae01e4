package outboxconfig

import (
	"strings"
	"testing"
	"time"
)

// parseRate reads a rate as the interval between two calls, and names
// what is wrong with one it refuses.
func TestParseRate(t *testing.T) {
	tests := []struct {
		in       string
		interval time.Duration
		ok       bool
		err      string
	}{
		{"", 0, false, ""},
		{"off", 0, true, ""},
		{"30/s", time.Second / 30, true, ""},
		{"20/min", 3 * time.Second, true, ""},
		{"1/h", time.Hour, true, ""},
		{"5", 0, false, "is not a rate"},
		{"5/day", 0, false, `the unit "day" is not s, min or h`},
		{"0/s", 0, false, "must be above zero"},
		{"2000/s", 0, false, "above the most of 1000/s"},
		{"1/h ", time.Hour, true, ""},
	}
	for _, tt := range tests {
		d, ok, err := parseRate(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseRate(%q) err = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || d != tt.interval || ok != tt.ok):
			t.Errorf("parseRate(%q) = %v, %v, %v; want %v, %v", tt.in, d, ok, err, tt.interval, tt.ok)
		}
	}
}

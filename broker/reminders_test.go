package broker

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestValidateReminders(t *testing.T) {
	many := make([]float64, 99)
	for i := range many {
		many[i] = float64(i+1) / 100
	}
	tests := []struct {
		name    string
		points  []float64
		timeout time.Duration
		err     string // "" when accepted
	}{
		{"the default at 30 minutes", []float64{0.5, 0.9}, 30 * time.Minute, ""},
		{"none", []float64{}, 30 * time.Minute, ""},
		{"one point at the shortest timeout", []float64{0.5}, 10 * time.Second, ""},
		{"five points", []float64{0.1, 0.3, 0.5, 0.7, 0.9}, time.Hour, ""},
		{"exactly 5% apart", []float64{0.1, 0.15, 0.2}, time.Hour, ""},
		{"exactly a minute apart", []float64{0.5, 0.75}, 4 * time.Minute, ""},
		{"99 points", many, time.Hour, "reminders: at most 5 points, got 99"},
		{"six points", []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 0, "reminders: at most 5 points, got 6"},
		{"under 5% apart, timeout not known yet", []float64{0.5, 0.52}, 0, "reminders[1]: 0.52 is too close to 0.5: successive reminder points must be at least 5% of the timeout (and 1 min) apart"},
		{"under 5% apart in a week", []float64{0.5, 0.54}, 7 * 24 * time.Hour, "reminders[1]: 0.54 is only 6 h 43 min after 0.5 with a timeout of 7 days"},
		{"under a minute apart", []float64{0.5, 0.55}, 10 * time.Minute, "reminders[1]: 0.55 is only 30 s after 0.5 with a timeout of 10 min: successive reminder points must be at least 1 min and 5% of the timeout apart"},
		{"the default at the shortest timeout, given explicitly", []float64{0.5, 0.9}, 10 * time.Second, "reminders[1]: 0.9 is only 4 s after 0.5 with a timeout of 10 s"},
		{"out of order", []float64{0.9, 0.5}, 0, "reminders[1]: reminder points must increase"},
		{"1 is the deadline", []float64{0.5, 1}, 0, "reminders[1]: a reminder point is a fraction of the time to the deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateReminders("reminders", tt.points, tt.timeout)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v\nwant %s…", err, tt.err)
			}
		})
	}
}

func TestSpacedReminders(t *testing.T) {
	tests := []struct {
		points  []float64
		timeout time.Duration
		want    []float64
	}{
		{[]float64{0.5, 0.9}, 30 * time.Minute, []float64{0.5, 0.9}},
		{[]float64{0.5, 0.9}, 10 * time.Second, []float64{0.5}},
		{[]float64{0.5, 0.9}, 150 * time.Second, []float64{0.5, 0.9}},
		{[]float64{0.5, 0.9}, 149 * time.Second, []float64{0.5}},
		{[]float64{0.2, 0.5, 0.6, 0.9}, 5 * time.Minute, []float64{0.2, 0.5, 0.9}},
		{nil, time.Hour, nil},
	}
	for _, tt := range tests {
		if got := spacedReminders(tt.points, tt.timeout); !slices.Equal(got, tt.want) {
			t.Errorf("spacedReminders(%v, %s) = %v, want %v", tt.points, tt.timeout, got, tt.want)
		}
	}
}

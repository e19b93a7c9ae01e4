package broker

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// day and week are the units ParseDuration adds to Go's: a day is 24
// hours and a week 7 days, whatever the calendar says.
const (
	day  = 24 * time.Hour
	week = 7 * day
)

// durationHint is the examples every "is not a duration" error ends with.
const durationHint = "use e.g. 30s, 30m, 2h, 7d"

// ParseDuration reads a duration as people write it, everywhere one is
// read (API, configuration file, command line): Go's units (ns, us, µs,
// ms, s, m, h) plus d (24 h) and w (7 d), mixed as in "1d12h" or "1w2d",
// with decimals as in "1.5d". "0" is zero. The error quotes the input
// and shows examples: `"7x" is not a duration (use e.g. 30s, 30m, 2h, 7d)`.
func ParseDuration(s string) (time.Duration, error) {
	d, err := parseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (%s)", s, durationHint)
	}
	return d, nil
}

var errDuration = errors.New("not a duration")

func parseDuration(s string) (time.Duration, error) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return 0, errDuration
	}
	var total time.Duration
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		if i <= 0 {
			return 0, errDuration // no number, or a number without a unit
		}
		num := s[:i]
		s = s[i:]
		j := strings.IndexAny(s, "0123456789.")
		if j < 0 {
			j = len(s)
		}
		unit := s[:j]
		s = s[j:]
		var part time.Duration
		switch unit {
		case "d", "w":
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, errDuration
			}
			mult := day
			if unit == "w" {
				mult = week
			}
			f := v * float64(mult)
			if f >= math.MaxInt64 {
				return 0, errDuration
			}
			part = time.Duration(f)
		default:
			var err error
			if part, err = time.ParseDuration(num + unit); err != nil {
				return 0, errDuration
			}
		}
		if total > math.MaxInt64-part {
			return 0, errDuration
		}
		total += part
	}
	if neg {
		total = -total
	}
	return total, nil
}

// formatDuration writes d the way ParseDuration reads it, in whole days
// when it is one ("7d", "1d12h0m0s"), else as Go does ("30m0s").
func formatDuration(d time.Duration) string {
	if d <= -day || d >= day {
		days := d / day
		rest := d - days*day
		if rest == 0 {
			return strconv.FormatInt(int64(days), 10) + "d"
		}
		if rest < 0 {
			rest = -rest
		}
		return strconv.FormatInt(int64(days), 10) + "d" + rest.String()
	}
	return d.String()
}

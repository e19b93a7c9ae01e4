package logthrottle

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/testutil"
)

// line is one JSON log line.
type line struct {
	Msg    string `json:"msg"`
	Level  string `json:"level"`
	Count  int    `json:"count"`
	Remote string `json:"remote"`
}

func lines(t *testing.T, buf *testutil.Buffer) []line {
	t.Helper()
	var out []line
	for _, b := range bytes.Split(bytes.TrimSpace([]byte(buf.String())), []byte("\n")) {
		if len(b) == 0 {
			continue
		}
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatalf("log line %q: %v", b, err)
		}
		out = append(out, l)
	}
	return out
}

// total waits until the lines of msg account for want events, and
// returns them.
func total(t *testing.T, buf *testutil.Buffer, msg string, want int) []line {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got []line
		n := 0
		for _, l := range lines(t, buf) {
			if l.Msg == msg {
				got = append(got, l)
				n += l.Count
			}
		}
		if n == want {
			return got
		}
		if n > want || time.Now().After(deadline) {
			t.Fatalf("lines of %q count %d events, want %d: %+v", msg, n, want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newLogger(every time.Duration) (*Logger, *testutil.Buffer) {
	buf := &testutil.Buffer{}
	return New(slog.New(slog.NewJSONHandler(buf, nil)), every), buf
}

func TestAFloodBecomesAFewLinesWithTheCount(t *testing.T) {
	const events = 5000
	tests := []struct {
		name    string
		workers int
	}{
		{"one goroutine", 1},
		{"eight goroutines", 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, buf := newLogger(200 * time.Millisecond)
			start := time.Now()
			var wg sync.WaitGroup
			for w := range tt.workers {
				wg.Go(func() {
					for i := w; i < events; i += tt.workers {
						l.Warn("slack", "slack request refused", "remote", "192.0.2.1:4000")
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			got := total(t, buf, "slack request refused", events)
			// One line at once, then at most one per interval while the
			// flood lasts, and one summary after it.
			if max := int(elapsed/(200*time.Millisecond)) + 2; len(got) > max {
				t.Errorf("%d events over %s wrote %d lines, want at most %d", events, elapsed, len(got), max)
			}
			if got[0].Count != 1 || got[0].Level != "WARN" || got[0].Remote != "192.0.2.1:4000" {
				t.Errorf("first line = %+v, want the event itself with count 1", got[0])
			}
		})
	}
}

func TestKeysAreThrottledApart(t *testing.T) {
	l, buf := newLogger(time.Hour)
	for range 3 {
		l.Warn("slack", "slack request refused")
		l.Info("discord", "discord request refused")
	}
	got := lines(t, buf)
	if len(got) != 2 || got[0].Msg != "slack request refused" || got[1].Msg != "discord request refused" || got[1].Level != "INFO" {
		t.Fatalf("lines = %+v, want the first event of each key at once", got)
	}
}

func TestAnEventAfterAQuietIntervalIsLoggedAtOnce(t *testing.T) {
	l, buf := newLogger(50 * time.Millisecond)
	l.Warn("k", "refused", "remote", "a")
	l.Warn("k", "refused", "remote", "b") // held: summarised after 50 ms
	got := total(t, buf, "refused", 2)
	if len(got) != 2 || got[1].Count != 1 || got[1].Remote != "b" {
		t.Fatalf("lines = %+v, want the event, then a summary of one carrying the latest fields", got)
	}
	time.Sleep(120 * time.Millisecond) // a quiet interval after the summary
	l.Warn("k", "refused", "remote", "c")
	if got := lines(t, buf); len(got) != 3 || got[2].Remote != "c" || got[2].Count != 1 {
		t.Fatalf("lines = %+v, want the event after a quiet interval logged at once", got)
	}
}

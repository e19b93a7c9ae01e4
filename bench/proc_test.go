package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{"plain", "1234 (bridge) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 100 0 0", 3 * time.Second, false},
		{"name with spaces and parentheses", "77 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0", 100 * time.Millisecond, false},
		{"truncated", "77 (x) R 1 1", 0, true},
		{"no name", "77 x R", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatCPU([]byte(tt.stat))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseStatCPU = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseStatus(t *testing.T) {
	rss, hwm, threads := parseStatus([]byte("Name:\tbridge\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t7\n"))
	if rss != 10240*1024 || hwm != 20480*1024 || threads != 7 {
		t.Errorf("parseStatus = %d, %d, %d", rss, hwm, threads)
	}
}

func TestReadProcSelf(t *testing.T) {
	s, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.HWM < s.RSS || s.Threads < 1 {
		t.Errorf("sample of this process = %+v: want a positive RSS, HWM ≥ RSS, threads ≥ 1", s)
	}
}

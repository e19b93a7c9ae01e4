package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ, the unit of /proc/<pid>/stat times;
// 100 on every Linux architecture Go supports.
const clockTick = 100

// ProcSample is what /proc says about a process at one moment.
type ProcSample struct {
	// CPU is the user plus system time the process has used.
	CPU time.Duration
	// RSS is the resident set now; HWM its peak so far (bytes).
	RSS, HWM int64
	// Threads is the number of OS threads.
	Threads int
}

// ReadProc samples process pid from /proc.
func ReadProc(pid int) (ProcSample, error) {
	var s ProcSample
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, fmt.Errorf("proc: %w", err)
	}
	if s.CPU, err = parseStatCPU(stat); err != nil {
		return s, fmt.Errorf("proc: /proc/%d/stat: %w", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, fmt.Errorf("proc: %w", err)
	}
	s.RSS, s.HWM, s.Threads = parseStatus(status)
	return s, nil
}

// parseStatCPU returns utime+stime (fields 14 and 15) of a stat line. The
// command name (field 2) is in parentheses and may hold spaces, so fields
// are counted after its closing parenthesis.
func parseStatCPU(stat []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("utime %q or stime %q is not a number", f[11], f[12])
	}
	return time.Duration(u+k) * time.Second / clockTick, nil
}

// parseStatus reads VmRSS, VmHWM (kB) and Threads from a status file.
func parseStatus(status []byte) (rss, hwm int64, threads int) {
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "VmRSS":
			rss = n * 1024
		case "VmHWM":
			hwm = n * 1024
		case "Threads":
			threads = int(n)
		}
	}
	return rss, hwm, threads
}

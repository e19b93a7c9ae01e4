package logbuf

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps each Write it gets, and signals it.
type recorder struct {
	mu     sync.Mutex
	writes []string
	wrote  chan struct{}
	err    error
}

func newRecorder() *recorder { return &recorder{wrote: make(chan struct{}, 1000)} }

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.writes = append(r.writes, string(p))
	r.mu.Unlock()
	r.wrote <- struct{}{}
	return len(p), r.err
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

func TestLinesWrittenTogetherAfterTheDelay(t *testing.T) {
	rec := newRecorder()
	w := newDelay(rec, 50*time.Millisecond)
	start := time.Now()
	for i := range 3 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if got := rec.all(); len(got) != 0 {
		t.Fatalf("written at once: %q", got)
	}
	select {
	case <-rec.wrote:
	case <-time.After(5 * time.Second):
		t.Fatal("nothing written 5 s after the lines")
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("written after %v, before the delay", waited)
	}
	if got := rec.all(); len(got) != 1 || got[0] != "line 0\nline 1\nline 2\n" {
		t.Fatalf("writes = %q; want the three lines in one", got)
	}
	// Idle: no timer runs, nothing more is written.
	select {
	case <-rec.wrote:
		t.Fatalf("written again with nothing held: %q", rec.all())
	case <-time.After(150 * time.Millisecond):
	}
	fmt.Fprintln(w, "later")
	select {
	case <-rec.wrote:
	case <-time.After(5 * time.Second):
		t.Fatal("a line after an idle spell was not written")
	}
	if got := rec.all(); len(got) != 2 || got[1] != "later\n" {
		t.Fatalf("writes = %q", got)
	}
}

func TestWarnWritesAtOnce(t *testing.T) {
	rec := newRecorder()
	w := newDelay(rec, time.Hour)
	log := slog.New(Handler(slog.NewTextHandler(w, nil), w)).With("instance", "a").WithGroup("g")
	log.Info("question asked", "n", 1)
	log.Debug("not shown")
	if got := rec.all(); len(got) != 0 {
		t.Fatalf("an info line was written at once: %q", got)
	}
	log.Warn("store slow", "n", 2)
	got := rec.all()
	if len(got) != 1 {
		t.Fatalf("writes = %q; want one with both lines", got)
	}
	lines := strings.Split(strings.TrimSuffix(got[0], "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "question asked") || !strings.Contains(lines[0], "instance=a") ||
		!strings.Contains(lines[1], "level=WARN") || !strings.Contains(lines[1], "g.n=2") {
		t.Fatalf("lines = %q; want the info line, then the warning", lines)
	}
	log.Error("failed")
	if got := rec.all(); len(got) != 2 || !strings.Contains(got[1], "level=ERROR") {
		t.Fatalf("writes = %q; want the error written at once", got)
	}
}

func TestFullBufferWritesAtOnce(t *testing.T) {
	rec := newRecorder()
	w := newDelay(rec, time.Hour)
	line := strings.Repeat("x", 1023) + "\n"
	for range MaxBuffered/len(line) - 1 {
		_, _ = w.Write([]byte(line))
	}
	if got := rec.all(); len(got) != 0 {
		t.Fatalf("written before the buffer was full: %d writes", len(got))
	}
	_, _ = w.Write([]byte(line))
	got := rec.all()
	if len(got) != 1 || len(got[0]) != MaxBuffered {
		t.Fatalf("%d writes (first %d bytes); want one of %d bytes", len(got), len(got[0]), MaxBuffered)
	}
}

func TestFlush(t *testing.T) {
	rec := newRecorder()
	w := newDelay(rec, time.Hour)
	if err := w.Flush(); err != nil || len(rec.all()) != 0 {
		t.Fatalf("Flush with nothing held = %v, writes %q; want nil and none", err, rec.all())
	}
	fmt.Fprintln(w, "bye")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := rec.all(); len(got) != 1 || got[0] != "bye\n" {
		t.Fatalf("writes = %q", got)
	}
	rec.err = errors.New("disk full")
	fmt.Fprintln(w, "lost")
	if err := w.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush = %v; want the writer's error", err)
	}
	fmt.Fprintln(w, "next")
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after an error = nil; want the error again")
	}
	if got := rec.all(); got[len(got)-1] != "next\n" {
		t.Fatalf("after a failed write the next write is %q; want only the new line", got[len(got)-1])
	}
}

// TestConcurrentLines: lines logged from many goroutines each arrive
// whole, once.
func TestConcurrentLines(t *testing.T) {
	rec := newRecorder()
	w := newDelay(rec, time.Millisecond)
	log := slog.New(Handler(slog.NewTextHandler(w, nil), w))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if i%50 == 49 {
					log.Warn("warn", "g", g, "i", i)
				} else {
					log.Info("info", "g", g, "i", i)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, s := range rec.all() {
		all.WriteString(s)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n") {
		i := strings.Index(line, " msg=")
		if i < 0 {
			t.Fatalf("a broken line: %q", line)
		}
		key := line[i:]
		if seen[key] {
			t.Fatalf("line written twice: %q", line)
		}
		seen[key] = true
	}
	if len(seen) != 8*200 {
		t.Fatalf("%d lines written, want %d", len(seen), 8*200)
	}
}

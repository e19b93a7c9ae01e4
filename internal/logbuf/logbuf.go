// Package logbuf batches a server's log lines into fewer writes.
//
// A busy bridge logs two lines per question (asked, resolved) at the
// default level. Written one by one, each is a write system call; under
// load those calls cost more than the formatting. A Writer keeps the
// lines in memory and writes them in one call once Delay has passed
// since the first line it holds, or at once when it holds MaxBuffered
// bytes. Handler writes a record at Warn or above, and everything before
// it, at once. Nothing waits while nothing is logged: the timer is armed
// by the first line after a write, not ticking.
//
// Lines logged in the last Delay before the process is killed (SIGKILL, a
// panic) are lost; Flush before exiting writes the rest.
package logbuf

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

const (
	// Delay is the longest a line waits before it is written.
	Delay = 10 * time.Millisecond
	// MaxBuffered is how many bytes are held before they are written
	// whatever the time.
	MaxBuffered = 32 << 10
)

// Writer is an io.Writer that batches what it is given for the
// underlying writer. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	timer *time.Timer
	armed bool
	delay time.Duration
}

// New returns a Writer that writes to w at most Delay after each line.
func New(w io.Writer) *Writer {
	return newDelay(w, Delay)
}

func newDelay(w io.Writer, delay time.Duration) *Writer {
	b := &Writer{w: w, delay: delay}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.Flush() })
	b.timer.Stop()
	return b
}

// Write keeps p to be written with the lines around it. It never fails:
// an error of the underlying writer is reported by Flush.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= MaxBuffered {
		_ = b.flushLocked()
		return len(p), nil
	}
	if !b.armed {
		b.armed = true
		b.timer.Reset(b.delay)
	}
	return len(p), nil
}

// Flush writes what the Writer holds now.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *Writer) flushLocked() error {
	if b.armed {
		b.armed = false
		b.timer.Stop()
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 2*MaxBuffered {
		b.buf = nil // a burst's large buffer is not kept
	} else {
		b.buf = b.buf[:0]
	}
	return err
}

// Handler wraps h, which writes to w, so that a record at Warn or above
// is written at once, with the lines held before it.
func Handler(h slog.Handler, w *Writer) slog.Handler {
	return &handler{Handler: h, w: w}
}

type handler struct {
	slog.Handler
	w *Writer
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &handler{Handler: h.Handler.WithAttrs(as), w: h.w}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{Handler: h.Handler.WithGroup(name), w: h.w}
}

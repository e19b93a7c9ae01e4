// Package logthrottle keeps a flood of identical events from flooding the
// log: one line per key and interval, carrying how many events it stands
// for.
//
// The first event of a key is logged at once with count=1. Events of the
// same key within the interval after a line are counted, not logged; one
// interval after that line a single summary line carries their count and
// the fields of the latest of them. A forged-signature flood against a
// webhook thus writes at most one line a second per endpoint however fast
// it comes, and the count in the log still says how big it was.
//
// Keys are meant to be a small fixed set (an endpoint, a kind of
// refusal): each key keeps a few words of state for the life of the
// Logger.
package logthrottle

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultInterval is the interval of New when it is given none.
const DefaultInterval = time.Second

// Logger writes at most one line per key and interval to an slog.Logger.
// Its methods are safe for concurrent use.
type Logger struct {
	log   *slog.Logger
	every time.Duration

	mu   sync.Mutex
	keys map[string]*state
}

// state is one key's throttle.
type state struct {
	// quietUntil is when the next event may be logged at once.
	quietUntil time.Time
	// held counts the events since the last line; level, msg and args are
	// the latest of them, for the summary line.
	held  int
	level slog.Level
	msg   string
	args  []any
	timer *time.Timer
}

// New returns a Logger writing to log, at most one line per key and
// every (DefaultInterval when zero).
func New(log *slog.Logger, every time.Duration) *Logger {
	if every <= 0 {
		every = DefaultInterval
	}
	return &Logger{log: log, every: every, keys: map[string]*state{}}
}

// Warn logs msg with args at Warn level under key, or counts it when a
// line of key was written less than an interval ago.
func (l *Logger) Warn(key, msg string, args ...any) { l.Log(slog.LevelWarn, key, msg, args...) }

// Info is Warn at Info level.
func (l *Logger) Info(key, msg string, args ...any) { l.Log(slog.LevelInfo, key, msg, args...) }

// Log logs msg with args at level under key, or counts it when a line of
// key was written less than an interval ago. Every line carries count,
// the number of events it stands for.
func (l *Logger) Log(level slog.Level, key, msg string, args ...any) {
	now := time.Now()
	l.mu.Lock()
	s := l.keys[key]
	if s == nil {
		s = &state{}
		l.keys[key] = s
	}
	if s.held == 0 && !now.Before(s.quietUntil) {
		s.quietUntil = now.Add(l.every)
		l.mu.Unlock()
		l.log.Log(context.Background(), level, msg, append(args[:len(args):len(args)], "count", 1)...)
		return
	}
	s.held++
	s.level, s.msg, s.args = level, msg, args
	if s.timer == nil {
		s.timer = time.AfterFunc(s.quietUntil.Sub(now), func() { l.flush(s) })
	}
	l.mu.Unlock()
}

// flush writes the summary line of the events s held back.
func (l *Logger) flush(s *state) {
	l.mu.Lock()
	n, level, msg, args := s.held, s.level, s.msg, s.args
	s.held, s.args, s.timer = 0, nil, nil
	s.quietUntil = time.Now().Add(l.every)
	l.mu.Unlock()
	if n > 0 {
		l.log.Log(context.Background(), level, msg, append(args[:len(args):len(args)], "count", n)...)
	}
}

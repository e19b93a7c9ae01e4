package logbuf

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// NewTextHandler returns a handler that writes what slog.NewTextHandler(w,
// opts) writes, byte for byte. A busy bridge logs two lines per question;
// slog's handler builds each through its general machinery (a state per
// record, a value switch per attribute, a lock), which cost about 2 % of
// the bridge's CPU under load. This one appends a line of plain values
// (strings, numbers, booleans, durations, times) into a pooled buffer and
// writes it in one call; a record with anything else (another kind of
// value, a group, an empty key), and every handler made by WithAttrs or
// WithGroup, goes to slog's own handler. With ReplaceAttr or AddSource set
// it is slog's handler.
func NewTextHandler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	std := slog.NewTextHandler(w, opts)
	if opts != nil && (opts.ReplaceAttr != nil || opts.AddSource) {
		return std
	}
	var level slog.Leveler = slog.LevelInfo
	if opts != nil && opts.Level != nil {
		level = opts.Level
	}
	return &textHandler{std: std, w: w, level: level}
}

type textHandler struct {
	std   *slog.TextHandler
	w     io.Writer
	level slog.Leveler
}

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxLineBuf bounds the buffers kept in lineBufs.
const maxLineBuf = 16 << 10

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	bp := lineBufs.Get().(*[]byte)
	b, ok := appendLine((*bp)[:0], r)
	var err error
	if ok {
		_, err = h.w.Write(b)
	} else {
		err = h.std.Handle(ctx, r)
	}
	if cap(b) <= maxLineBuf {
		*bp = b[:0]
		lineBufs.Put(bp)
	}
	return err
}

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.std.WithAttrs(as) }

func (h *textHandler) WithGroup(name string) slog.Handler { return h.std.WithGroup(name) }

// appendLine appends r as slog's text handler writes it, or reports
// false for a record it leaves to that handler.
func appendLine(b []byte, r slog.Record) ([]byte, bool) {
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, r.Time.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendText(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendText(b, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" {
			ok = false
			return false
		}
		b = append(b, ' ')
		b = appendText(b, a.Key)
		b = append(b, '=')
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b = appendText(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindFloat64:
			b = strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		case slog.KindTime:
			b = appendRFC3339Millis(b, v.Time())
		default:
			ok = false
		}
		return ok
	})
	return append(b, '\n'), ok
}

// appendRFC3339Millis appends t as slog's text handler does: RFC 3339
// with exactly three digits of milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond added
	// to the truncated time keeps four digits, and the fourth is dropped.
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendText appends s as slog's text handler writes a string: quoted
// (strconv.Quote) when it is empty or holds a space, '=', '"', a control
// character, or a rune that is not printable or is a space, and as it is
// otherwise.
func appendText(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '=' || c == '"' || c < 0x20 {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

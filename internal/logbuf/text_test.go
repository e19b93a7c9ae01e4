package logbuf

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// awkward holds strings that test every rule of slog's quoting.
var awkward = []string{
	"", "plain", "two words", "a=b", `say "hi"`, `back\slash`, "tab\there", "new\nline", "nul\x00",
	"del\x7f", "nbsp\u00a0x", "line\u2028sep", "bidi\u202eok", "zero\u200bwidth", "café", "日本語", "emoji😀",
	"bad\xffutf8", "\ufffd", "{\"json\":1}", "<html>&amp;", "question_id", "k7m2qx", "-", "=",
}

func randomString(rng *rand.Rand) string {
	if rng.IntN(3) == 0 {
		return awkward[rng.IntN(len(awkward))]
	}
	var b strings.Builder
	for range rng.IntN(12) {
		switch rng.IntN(6) {
		case 0:
			b.WriteString(awkward[rng.IntN(len(awkward))])
		case 1:
			b.WriteByte(byte(rng.IntN(256)))
		case 2:
			b.WriteRune(rune(rng.IntN(0x3000)))
		default:
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
	}
	return b.String()
}

func randomTime(rng *rand.Rand) time.Time {
	zones := []*time.Location{time.UTC, time.FixedZone("", 5*3600+30*60), time.FixedZone("X", -8*3600), time.Local}
	sec := rng.Int64N(400*365*24*3600) - 100*365*24*3600
	if rng.IntN(10) == 0 {
		sec = rng.Int64N(1<<40) - 1<<39 // years far from now, negative ones too
	}
	return time.Unix(sec, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
}

type valuer struct{}

func (valuer) LogValue() slog.Value { return slog.StringValue("resolved value") }

func randomAttr(rng *rand.Rand) slog.Attr {
	key := randomString(rng)
	if rng.IntN(4) != 0 {
		key = []string{"question_id", "agent", "status", "prompts", "fallback"}[rng.IntN(5)]
	}
	floats := []float64{0, math.Copysign(0, -1), 1.5, 1e21, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1), rng.NormFloat64() * 1e6}
	switch rng.IntN(12) {
	case 0:
		return slog.Int64(key, rng.Int64()-rng.Int64())
	case 1:
		return slog.Uint64(key, rng.Uint64())
	case 2:
		return slog.Float64(key, floats[rng.IntN(len(floats))])
	case 3:
		return slog.Bool(key, rng.IntN(2) == 0)
	case 4:
		return slog.Duration(key, time.Duration(rng.Int64N(1e13)-5e12))
	case 5:
		return slog.Time(key, randomTime(rng))
	case 6:
		// Kinds left to slog's handler.
		switch rng.IntN(5) {
		case 0:
			return slog.Any(key, errors.New(randomString(rng)))
		case 1:
			return slog.Group(key, slog.String("inner", randomString(rng)))
		case 2:
			return slog.Any(key, valuer{})
		case 3:
			return slog.Any(key, []byte(randomString(rng)))
		default:
			return slog.Any(key, nil)
		}
	case 7:
		return slog.Attr{} // elided by slog
	case 8:
		return slog.Int("", 3)
	default:
		return slog.String(key, randomString(rng))
	}
}

// TestTextHandlerMatchesSlog compares NewTextHandler with
// slog.NewTextHandler over random records, line for line.
func TestTextHandlerMatchesSlog(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var got, want bytes.Buffer
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelDebug - 3}
	fast, std := NewTextHandler(&got, &slog.HandlerOptions{Level: slog.LevelDebug - 4}), slog.NewTextHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug - 4})
	took := 0
	for i := range 30000 {
		var at time.Time
		if rng.IntN(20) != 0 {
			at = randomTime(rng)
		}
		r := slog.NewRecord(at, levels[rng.IntN(len(levels))], randomString(rng), 0)
		for range rng.IntN(7) {
			r.AddAttrs(randomAttr(rng))
		}
		got.Reset()
		want.Reset()
		if err := fast.Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if err := std.Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("record %d differs from slog's\n got: %q\nwant: %q", i, got.String(), want.String())
		}
		if _, ok := appendLine(nil, r); ok {
			took++
		}
	}
	if took < 10000 {
		t.Fatalf("the fast path took %d of 30,000 records; it should take most of those with plain values", took)
	}
}

// The bridge's two lines per question go through the fast path.
func TestTextHandlerTakesTheBridgesLines(t *testing.T) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "question asked", 0)
	r.AddAttrs(slog.String("question_id", "k7m2qx"), slog.String("agent", "local"), slog.String("route", "default"), slog.Int("prompts", 1))
	if _, ok := appendLine(nil, r); !ok {
		t.Fatal("a question's log line left to slog's handler")
	}
}

func TestTextHandlerOptions(t *testing.T) {
	var got, want bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelWarn}
	fast, std := slog.New(NewTextHandler(&got, opts)), slog.New(slog.NewTextHandler(&want, opts))
	for _, l := range []*slog.Logger{fast, std} {
		l.Info("not written")
		l.Warn("written", "n", 1)
		l.With("agent", "a1").WithGroup("g").Error("grouped", "k", "v")
	}
	strip := func(s string) string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
			_, rest, _ := strings.Cut(line, " ") // the time
			out = append(out, rest)
		}
		return strings.Join(out, "\n")
	}
	if strip(got.String()) != strip(want.String()) || strings.Contains(got.String(), "not written") {
		t.Fatalf("got\n%s\nwant\n%s", got.String(), want.String())
	}
	// ReplaceAttr and AddSource are slog's handler itself.
	if _, ok := NewTextHandler(&got, &slog.HandlerOptions{AddSource: true}).(*slog.TextHandler); !ok {
		t.Fatal("AddSource: not slog's handler")
	}
	if _, ok := NewTextHandler(&got, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return a }}).(*slog.TextHandler); !ok {
		t.Fatal("ReplaceAttr: not slog's handler")
	}
	if !NewTextHandler(&got, nil).Enabled(context.Background(), slog.LevelInfo) || NewTextHandler(&got, nil).Enabled(context.Background(), slog.LevelDebug) {
		t.Fatal("nil options: want info and above")
	}
}

func BenchmarkTextHandler(b *testing.B) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "question resolved", 0)
	r.AddAttrs(slog.String("question_id", "k7m2qx"), slog.String("status", "answered"), slog.String("fallback", ""))
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{{"slog", slog.NewTextHandler(discard{}, nil)}, {"fast", NewTextHandler(discard{}, nil)}} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.h.Handle(context.Background(), r)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

package redis

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

func TestB62(t *testing.T) {
	for _, n := range []int64{0, 1, 9, 10, 35, 36, 61, 62, 3843, 3844, -1, -62, 1_796_000_000_000, 1 << 53, math.MaxInt64, -math.MaxInt64} {
		s := string(appendB62(nil, n))
		got, ok := parseB62(s)
		if !ok || got != n {
			t.Errorf("%d → %q → %d, %v", n, s, got, ok)
		}
	}
	// A time of this century takes seven characters.
	if s := string(appendB62(nil, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).UnixMilli())); len(s) != 7 {
		t.Errorf("a time of 2026 in base 62 is %q, want 7 characters", s)
	}
	for _, bad := range []string{"", "-", "+1", "1.5", "a b", "é", "zzzzzzzzzzz", "AzL8n0Y58m8", "123456789012", "--1"} {
		if n, ok := parseB62(bad); ok {
			t.Errorf("parseB62(%q) = %d, want a refusal", bad, n)
		}
	}
}

// A task reads the same from the decimal form older versions wrote and
// from base 62.
func TestParseTaskBothForms(t *testing.T) {
	const field = "o\tpost\ttelegram\t-1001234567890"
	created, next, deadline, claim, updated := int64(1_796_000_000_123), int64(1_796_000_005_000), int64(1_796_001_800_123), int64(1_796_000_030_000), int64(1_796_000_001_999)
	dec := func(n int64) string { return strconv.FormatInt(n, 10) }
	b62 := func(n int64) string { return string(appendB62(nil, n)) }
	older := strings.Join([]string{"retrying", "2", dec(next), dec(deadline), "3", dec(claim), dec(created), dec(updated), "42", "timeout"}, "\t")
	newer := strings.Join([]string{"retrying", "2", b62(next), b62(deadline), "3", b62(claim), b62(created), b62(updated), "42", "timeout"}, "\t")
	a, err := parseTask("k7m2qx", field, older)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseTask("k7m2qx", field, newer)
	if err != nil {
		t.Fatal(err)
	}
	want := broker.PlatformTask{QuestionID: "k7m2qx", Kind: broker.TaskPost, Target: broker.Target{Channel: "telegram", Chat: "-1001234567890"},
		State: "retrying", Attempts: 2, NextAt: msTime(next), Deadline: msTime(deadline), Gen: 3, Claim: msTime(claim),
		CreatedAt: msTime(created), UpdatedAt: msTime(updated), MessageID: "42", LastError: "timeout"}
	if a != want || b != want {
		t.Fatalf("older form read %+v\nnewer form read %+v\nwant %+v", a, b, want)
	}
	if len(newer) >= len(older)-20 {
		t.Errorf("base 62 value %d bytes against %d", len(newer), len(older))
	}
	// A claim of 0 is no claim, in either form.
	v := newTaskValue(created, deadline)
	q, err := parseTask("k7m2qx", field, v)
	if err != nil || !q.Claim.IsZero() || q.State != broker.TaskQueued || q.Gen != 1 || q.Attempts != 0 || !q.NextAt.Equal(msTime(created)) || !q.Deadline.Equal(msTime(deadline)) {
		t.Fatalf("new task %q read as %+v, %v", v, q, err)
	}

	for _, c := range []struct{ value, names string }{
		{strings.Replace(newer, b62(next), "ab!c", 1), `time "ab!c"`},
		{strings.Replace(older, dec(deadline), "17960018001x3", 1), `time "17960018001x3"`},
		{strings.Replace(newer, "\t2\t", "\ttwo\t", 1), `attempts "two"`},
		{strings.Replace(newer, "\t3\t", "\t\t", 1), `gen ""`},
		{strings.TrimSuffix(newer, "\ttimeout"), "malformed task"},
	} {
		if _, err := parseTask("k7m2qx", field, c.value); err == nil || !strings.Contains(err.Error(), c.names) {
			t.Errorf("parseTask(%q) = %v, want an error naming %s", c.value, err, c.names)
		}
	}
}

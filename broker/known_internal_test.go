package broker

import (
	"strconv"
	"testing"
	"time"
)

// The settled questions are bounded: past settledMax, the oldest is no
// longer served from memory, and none is served settledFor after its
// resolution or before it (a clock set back).
func TestSettledStaysBounded(t *testing.T) {
	k := newKnown()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for i := range settledMax + 1 {
		k.settle(&Question{ID: "q" + strconv.Itoa(i), Status: StatusAnswered, ResolvedAt: now})
	}
	if k.settled("q0", now) != nil {
		t.Fatalf("the oldest of %d settled questions is still kept", settledMax+1)
	}
	for _, id := range []string{"q1", "q" + strconv.Itoa(settledMax)} {
		if k.settled(id, now) == nil {
			t.Fatalf("%s is not kept", id)
		}
	}
	if n := len(k.done); n != settledMax {
		t.Fatalf("%d settled questions kept, want %d", n, settledMax)
	}
	last := "q" + strconv.Itoa(settledMax)
	if k.settled(last, now.Add(settledFor-time.Millisecond)) == nil {
		t.Fatal("not served just before settledFor")
	}
	if k.settled(last, now.Add(settledFor)) != nil {
		t.Fatal("served settledFor after its resolution")
	}
	if k.settled(last, now.Add(-time.Millisecond)) != nil {
		t.Fatal("served before its resolution")
	}
	// Settling a kept question again changes nothing.
	k.settle(&Question{ID: last, Status: StatusCancelled, ResolvedAt: now})
	if q := k.settled(last, now); q == nil || q.Status != StatusAnswered {
		t.Fatalf("settled again: %+v", q)
	}
}

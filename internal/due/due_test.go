package due

import (
	"testing"
	"time"
)

// Take gives the earliest time noted since the last Take, then nothing;
// a note signals C once however many come; the zero time is no note.
func TestSignal(t *testing.T) {
	base := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	d := New()
	d.Note(time.Time{})
	select {
	case <-d.C():
		t.Fatal("the zero time signalled")
	default:
	}
	d.Note(base.Add(time.Minute))
	d.Note(base)
	d.Note(base.Add(time.Hour))
	select {
	case <-d.C():
	default:
		t.Fatal("no signal after a note")
	}
	select {
	case <-d.C():
		t.Fatal("three notes signalled more than once")
	default:
	}
	if got := d.Take(); !got.Equal(base) {
		t.Fatalf("Take = %v, want the earliest %v", got, base)
	}
	if got := d.Take(); !got.IsZero() {
		t.Fatalf("second Take = %v, want zero", got)
	}
}

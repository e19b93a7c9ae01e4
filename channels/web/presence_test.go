package web

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// The mark of open pages is written when a page opens, renewed no more
// than every third of its life, and lasts presenceTTL; without it, and
// without a page here or a push subscription, nobody watches.
func TestPresenceMark(t *testing.T) {
	now := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	e := newEnv(t, Config{}, Options{Loopback: true})
	store := e.st.(Presence)
	e.ch.presence = &presence{store: store}
	e.ch.now = func() time.Time { return now }
	q := &broker.Question{ID: "k7m2qx"}
	watched := func(at time.Time) bool {
		t.Helper()
		now = at
		ok, err := e.ch.Watched(context.Background(), q, "")
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	marked := func(at time.Time) time.Time {
		t.Helper()
		got, err := store.ListenedAt(context.Background(), presenceAgent, presenceSession, at)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	t0 := now
	if watched(t0) {
		t.Fatal("watched before any page opened")
	}
	e.ch.pageOpened(context.Background())
	if !watched(t0.Add(presenceTTL - time.Second)) {
		t.Fatal("not watched while the mark lasts")
	}
	now = t0.Add(10 * time.Second)
	e.ch.pageOpened(context.Background())
	if got := marked(now); !got.Equal(t0) {
		t.Fatalf("a second page within a third of the mark's life wrote it again: marked at %v, want %v", got, t0)
	}
	t1 := t0.Add(presenceTTL/3 + time.Second)
	now = t1
	e.ch.pageOpened(context.Background())
	if got := marked(t1); !got.Equal(t1) {
		t.Fatalf("renewal after a third of the mark's life: marked at %v, want %v", got, t1)
	}
	if !watched(t1.Add(presenceTTL - time.Second)) {
		t.Fatal("not watched while the renewed mark lasts")
	}
	if watched(t1.Add(presenceTTL)) {
		t.Fatal("watched after the mark expired")
	}
	e.ch.push = newPusher(e.st.(broker.PushStore), nil, e.ch.userName, "", quiet, e.ch.now, time.UTC)
	if watched(t1.Add(presenceTTL)) {
		t.Fatal("watched with push on but nobody subscribed")
	}
	ps := newPushService(t, "", "")
	if err := e.ch.push.store.SavePushSubscription(context.Background(), ps.newDevice(e.ch.userName, "phone")); err != nil {
		t.Fatal(err)
	}
	// A device subscribed on another instance counts once the store's
	// answer that there was none is memoLife old.
	if watched(t1.Add(presenceTTL + memoLife/2)) {
		t.Fatal("the store was read again within memoLife of its answer that nobody has a device")
	}
	if !watched(t1.Add(presenceTTL + memoLife)) {
		t.Fatal("not watched with a push subscription")
	}
}

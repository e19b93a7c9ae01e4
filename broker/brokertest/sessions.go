package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestSessions runs the conformance suite of broker.Sessions. open returns
// two handles on one fresh, empty store, as two bridge instances would
// have (two Opens of one SQLite file, or of one Redis with one prefix),
// and arranges its own clean-up.
//
//	func TestSessionConformance(t *testing.T) {
//		brokertest.TestSessions(t, func(t *testing.T) (broker.Sessions, broker.Sessions) { … })
//	}
func TestSessions(t *testing.T, open func(t *testing.T) (a, b broker.Sessions)) {
	t.Helper()
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T, a, b broker.Sessions)
	}{
		{"created session is valid on every instance", func(t *testing.T, a, b broker.Sessions) {
			now := time.Now()
			if err := a.CreateSession(ctx, "d1", now.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			for name, s := range map[string]broker.Sessions{"creating instance": a, "other instance": b} {
				if ok, err := s.CheckSession(ctx, "d1", now); err != nil || !ok {
					t.Fatalf("%s: CheckSession = %v, %v; want true", name, ok, err)
				}
			}
		}},
		{"unknown session is not valid", func(t *testing.T, a, _ broker.Sessions) {
			if ok, err := a.CheckSession(ctx, "nobody", time.Now()); err != nil || ok {
				t.Fatalf("CheckSession = %v, %v; want false, nil", ok, err)
			}
		}},
		{"session is not valid from its expiry on", func(t *testing.T, a, b broker.Sessions) {
			now := time.Now()
			expires := now.Add(time.Hour)
			if err := a.CreateSession(ctx, "d2", expires); err != nil {
				t.Fatal(err)
			}
			for _, at := range []time.Time{expires, expires.Add(time.Minute)} {
				if ok, err := b.CheckSession(ctx, "d2", at); err != nil || ok {
					t.Fatalf("CheckSession at %v after creation = %v, %v; want false", at.Sub(now), ok, err)
				}
			}
			if ok, _ := b.CheckSession(ctx, "d2", expires.Add(-time.Second)); !ok {
				t.Fatal("the session is not valid a second before its expiry")
			}
		}},
		{"deleted session is not valid on any instance", func(t *testing.T, a, b broker.Sessions) {
			now := time.Now()
			for _, d := range []string{"d3", "d4"} {
				if err := a.CreateSession(ctx, d, now.Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.DeleteSession(ctx, "d3"); err != nil {
				t.Fatal(err)
			}
			if ok, err := a.CheckSession(ctx, "d3", now); err != nil || ok {
				t.Fatalf("deleted session: CheckSession = %v, %v; want false", ok, err)
			}
			if ok, err := a.CheckSession(ctx, "d4", now); err != nil || !ok {
				t.Fatalf("another session went with it: CheckSession = %v, %v", ok, err)
			}
			if err := a.DeleteSession(ctx, "d3"); err != nil {
				t.Fatalf("deleting it again: %v", err)
			}
			if err := a.DeleteSession(ctx, "never-made"); err != nil {
				t.Fatalf("deleting an unknown session: %v", err)
			}
		}},
		{"empty digest is refused", func(t *testing.T, a, _ broker.Sessions) {
			if err := a.CreateSession(ctx, "", time.Now().Add(time.Hour)); err == nil {
				t.Fatal("CreateSession with an empty digest succeeded")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := open(t)
			tc.run(t, a, b)
		})
	}
}

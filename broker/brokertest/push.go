package brokertest

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestPush runs the conformance suite of broker.PushStore. open returns two
// handles on one fresh, empty store, as two bridge instances would have,
// and arranges its own clean-up.
func TestPush(t *testing.T, open func(t *testing.T) (a, b broker.PushStore)) {
	t.Helper()
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(t *testing.T, a, b broker.PushStore)
	}{
		{"concurrent first starts end with one key pair", func(t *testing.T, a, b broker.PushStore) {
			const n = 8
			got := make([]broker.VAPIDKeys, n)
			cands := make([]broker.VAPIDKeys, n)
			var wg sync.WaitGroup
			for i := range n {
				cands[i] = NewVAPIDKeys(t)
				s := a
				if i%2 == 1 {
					s = b
				}
				wg.Go(func() {
					k, err := s.VAPIDKeys(ctx, cands[i])
					if err != nil {
						t.Errorf("VAPIDKeys: %v", err)
					}
					got[i] = k
				})
			}
			wg.Wait()
			won := false
			for i := range n {
				if got[i] != got[0] {
					t.Fatalf("instance %d got key pair %v, instance 0 %v: want one pair", i, got[i].Public, got[0].Public)
				}
				won = won || cands[i] == got[0]
			}
			if !won {
				t.Fatalf("the stored pair %v is none of the candidates", got[0].Public)
			}
			if k, err := b.VAPIDKeys(ctx, NewVAPIDKeys(t)); err != nil || k != got[0] {
				t.Fatalf("a later start got %v, %v; want the stored pair", k.Public, err)
			}
		}},
		{"a bad key pair is refused", func(t *testing.T, a, b broker.PushStore) {
			good := NewVAPIDKeys(t)
			for _, k := range []broker.VAPIDKeys{{}, {Public: good.Public}, {Public: "AAAA", Private: good.Private}} {
				if _, err := a.VAPIDKeys(ctx, k); !errors.Is(err, broker.ErrInvalid) {
					t.Fatalf("VAPIDKeys(%+v) = %v; want ErrInvalid", k, err)
				}
			}
			if k, err := b.VAPIDKeys(ctx, good); err != nil || k != good {
				t.Fatalf("VAPIDKeys after refusals = %v, %v; want the good candidate stored", k, err)
			}
		}},
		{"subscriptions are per person and per device", func(t *testing.T, a, b broker.PushStore) {
			t0 := time.UnixMilli(time.Now().UnixMilli()).UTC()
			s1, s2, s3 := NewPushSubscription(t, "ana", 1), NewPushSubscription(t, "ana", 2), NewPushSubscription(t, "bo", 3)
			s1.CreatedAt, s2.CreatedAt, s3.CreatedAt = t0, t0.Add(time.Second), t0
			s2.Device = "Firefox on Linux"
			for _, s := range []broker.PushSubscription{s2, s1, s3} {
				if err := a.SavePushSubscription(ctx, s); err != nil {
					t.Fatalf("SavePushSubscription(%s): %v", s.Endpoint, err)
				}
			}
			got, err := b.PushSubscriptions(ctx, []string{"bo", "ana", "cy"})
			if err != nil {
				t.Fatal(err)
			}
			if want := []broker.PushSubscription{s3, s1, s2}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("PushSubscriptions =\n%v\nwant\n%v", got, want)
			}
			for _, c := range []struct {
				people []string
				want   bool
			}{{nil, false}, {[]string{"cy"}, false}, {[]string{"cy", "bo"}, true}, {[]string{"ana"}, true}} {
				if has, err := b.HasPushSubscription(ctx, c.people); err != nil || has != c.want {
					t.Fatalf("HasPushSubscription(%v) = %v, %v; want %v", c.people, has, err, c.want)
				}
			}
			if gone, err := b.DeletePushSubscription(ctx, "bo", s1.Endpoint); err != nil || gone {
				t.Fatalf("deleting ana's subscription as bo = %v, %v; want false", gone, err)
			}
			if gone, err := b.DeletePushSubscription(ctx, "ana", s1.Endpoint); err != nil || !gone {
				t.Fatalf("DeletePushSubscription = %v, %v; want true", gone, err)
			}
			if gone, err := a.DeletePushSubscription(ctx, "ana", s1.Endpoint); err != nil || gone {
				t.Fatalf("second DeletePushSubscription = %v, %v; want false", gone, err)
			}
			if got, _ := a.PushSubscriptions(ctx, []string{"ana"}); len(got) != 1 || got[0].Endpoint != s2.Endpoint {
				t.Fatalf("after delete ana has %v; want only %s", got, s2.Endpoint)
			}
		}},
		{"a device signed in as another person moves to them", func(t *testing.T, a, b broker.PushStore) {
			s := NewPushSubscription(t, "ana", 1)
			if err := a.SavePushSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
			s.Person = "bo"
			if err := b.SavePushSubscription(ctx, s); err != nil {
				t.Fatal(err)
			}
			if has, err := a.HasPushSubscription(ctx, []string{"ana"}); err != nil || has {
				t.Fatalf("ana still has a subscription (%v, %v)", has, err)
			}
			if got, err := a.PushSubscriptions(ctx, []string{"bo"}); err != nil || len(got) != 1 || got[0].Person != "bo" {
				t.Fatalf("bo has %v, %v; want the moved subscription", got, err)
			}
			if gone, err := a.DeletePushSubscription(ctx, "ana", s.Endpoint); err != nil || gone {
				t.Fatalf("ana deleted bo's device: %v, %v", gone, err)
			}
		}},
		{"a bad subscription is refused and stores nothing", func(t *testing.T, a, _ broker.PushStore) {
			good := NewPushSubscription(t, "ana", 1)
			bads := map[string]func(*broker.PushSubscription){
				"no person":     func(s *broker.PushSubscription) { s.Person = "" },
				"plain http":    func(s *broker.PushSubscription) { s.Endpoint = "http://push.example.com/x" },
				"not a URL":     func(s *broker.PushSubscription) { s.Endpoint = "push" },
				"short auth":    func(s *broker.PushSubscription) { s.Auth = "AAAA" },
				"not a point":   func(s *broker.PushSubscription) { s.P256dh = base64.RawURLEncoding.EncodeToString(make([]byte, 65)) },
				"two-line name": func(s *broker.PushSubscription) { s.Device = "a\nb" },
			}
			for name, spoil := range bads {
				s := good
				spoil(&s)
				if err := a.SavePushSubscription(ctx, s); !errors.Is(err, broker.ErrInvalid) {
					t.Errorf("%s: SavePushSubscription = %v; want ErrInvalid", name, err)
				}
			}
			if has, err := a.HasPushSubscription(ctx, []string{"ana", ""}); err != nil || has {
				t.Fatalf("a refused subscription was stored (%v, %v)", has, err)
			}
		}},
		{"a person's devices are capped", func(t *testing.T, a, b broker.PushStore) {
			var first broker.PushSubscription
			for i := range broker.MaxPushSubscriptions {
				s := NewPushSubscription(t, "ana", i)
				if i == 0 {
					first = s
				}
				if err := a.SavePushSubscription(ctx, s); err != nil {
					t.Fatalf("subscription %d: %v", i, err)
				}
			}
			over := NewPushSubscription(t, "ana", broker.MaxPushSubscriptions)
			if err := b.SavePushSubscription(ctx, over); !errors.Is(err, broker.ErrLimit) {
				t.Fatalf("subscription over the cap = %v; want ErrLimit", err)
			}
			if err := b.SavePushSubscription(ctx, first); err != nil {
				t.Fatalf("saving a device again at the cap = %v; want nil", err)
			}
			if got, _ := a.PushSubscriptions(ctx, []string{"ana"}); len(got) != broker.MaxPushSubscriptions {
				t.Fatalf("ana has %d subscriptions; want %d", len(got), broker.MaxPushSubscriptions)
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

// NewVAPIDKeys returns a fresh VAPID key pair.
func NewVAPIDKeys(t testing.TB) broker.VAPIDKeys {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return broker.VAPIDKeys{Public: b64(k.PublicKey().Bytes()), Private: b64(k.Bytes())}
}

// NewPushSubscription returns a valid subscription of person on device n,
// with fresh keys, at an https endpoint of its own.
func NewPushSubscription(t testing.TB, person string, n int) broker.PushSubscription {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return broker.PushSubscription{
		Person:    person,
		Endpoint:  fmt.Sprintf("https://push.example.com/send/%s-%d-%s", person, n, b64(auth[:6])),
		P256dh:    b64(k.PublicKey().Bytes()),
		Auth:      b64(auth),
		CreatedAt: time.UnixMilli(time.Now().UnixMilli()).UTC(),
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

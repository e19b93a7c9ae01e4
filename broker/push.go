package broker

import (
	"context"
	"crypto/ecdh"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// PushStore is the role of a Store that keeps what the web inbox needs to
// send Web Push notifications: the bridge's VAPID key pair, which signs
// every push so that a push service accepts it, and the push
// subscriptions of people, one per device (browser) they turned
// notifications on in. It is optional beside Store, as AuditRetainer is:
// cmd/bridge finds it by type assertion, and both stores implement it.
// Subscriptions are few (people times devices), so they are read whole
// per person.
type PushStore interface {
	// VAPIDKeys returns the stored key pair. When none is stored yet it
	// stores candidate and returns it, as one create-if-absent step, so
	// that any number of instances starting at once on one store end
	// with one key pair, and every instance signs alike. A candidate
	// that CheckVAPIDKeys refuses gives ErrInvalid and stores nothing.
	VAPIDKeys(ctx context.Context, candidate VAPIDKeys) (VAPIDKeys, error)
	// SavePushSubscription stores s, replacing the subscription with the
	// same endpoint, whoever's it was (a device signed in as another
	// person now notifies that person). A subscription that
	// PushSubscription.Check refuses gives ErrInvalid; a person who
	// already has MaxPushSubscriptions others gives ErrLimit. Both store
	// nothing.
	SavePushSubscription(ctx context.Context, s PushSubscription) error
	// PushSubscriptions returns the subscriptions of the people named,
	// by person in the order given, then oldest first.
	PushSubscriptions(ctx context.Context, people []string) ([]PushSubscription, error)
	// HasPushSubscription reports whether any of the people named has a
	// subscription: whether a new question for them can reach a device
	// even with no inbox page open.
	HasPushSubscription(ctx context.Context, people []string) (bool, error)
	// DeletePushSubscription removes person's subscription with endpoint
	// and reports whether there was one; another person's is left alone.
	DeletePushSubscription(ctx context.Context, person, endpoint string) (bool, error)
}

// MaxPushSubscriptions is how many devices one person may turn
// notifications on in.
const MaxPushSubscriptions = 20

// maxEndpointLen bounds a push endpoint URL; real ones are a few hundred
// characters.
const maxEndpointLen = 1024

// VAPIDKeys is the bridge's VAPID key pair (RFC 8292): an ECDSA P-256 key,
// Public the uncompressed point (65 bytes) and Private the scalar (32
// bytes), both in unpadded base64url, as browsers and push libraries write
// them.
type VAPIDKeys struct {
	Public  string `json:"public"`
	Private string `json:"private"`
}

// CheckVAPIDKeys says what is wrong with k, or nil: both halves present,
// of the right sizes in base64url.
func CheckVAPIDKeys(k VAPIDKeys) error {
	if !p256Point(k.Public) {
		return fmt.Errorf("%w: the VAPID public key must be a P-256 point (65 bytes, uncompressed) in base64url", ErrInvalid)
	}
	if n, err := b64Len(k.Private); err != nil || n != 32 {
		return fmt.Errorf("%w: the VAPID private key must be 32 bytes in base64url", ErrInvalid)
	}
	return nil
}

// PushSubscription is one device's Web Push subscription, as the browser's
// PushSubscription gives it, kept for a person.
type PushSubscription struct {
	// Person is the id of the person notified.
	Person string `json:"person"`
	// Endpoint is the push service's URL for this device; it names the
	// subscription.
	Endpoint string `json:"endpoint"`
	// P256dh is the device's public key (65 bytes) and Auth its
	// authentication secret (16 bytes), in base64url (RFC 8291).
	P256dh string `json:"p256dh"`
	Auth   string `json:"auth"`
	// Device is a short label for people to tell their devices apart
	// ("Firefox on Linux"); it may be empty.
	Device string `json:"device,omitempty"`
	// CreatedAt is when notifications were turned on.
	CreatedAt time.Time `json:"created_at"`
}

// Check says what is wrong with s, or nil (errors match ErrInvalid): a
// person id, an endpoint that is an https URL (or http on a loopback
// address, for a push service on the same machine), keys of the sizes
// RFC 8291 gives, a label of at most 100 characters.
func (s PushSubscription) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if !personIDPattern.MatchString(s.Person) {
		return bad("the subscription names no person")
	}
	if err := CheckPushEndpoint(s.Endpoint); err != nil {
		return err
	}
	if !p256Point(s.P256dh) {
		return bad("keys.p256dh must be the device's P-256 public key (65 bytes, uncompressed) in base64url")
	}
	if n, err := b64Len(s.Auth); err != nil || n != 16 {
		return bad("keys.auth must be the 16-byte authentication secret in base64url")
	}
	if len(s.Device) > 100 || strings.ContainsAny(s.Device, "\n\r\x00") {
		return bad("the device label must be one line of at most 100 characters")
	}
	return nil
}

// CheckPushEndpoint says what is wrong with a push endpoint, or nil: an
// https URL, or http on a loopback address, of at most 1024 characters.
func CheckPushEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || len(endpoint) > maxEndpointLen || u.Host == "" || u.User != nil {
		return fmt.Errorf("%w: the endpoint must be the push service's URL (at most %d characters)", ErrInvalid, maxEndpointLen)
	}
	if u.Scheme == "https" {
		return nil
	}
	if ip := net.ParseIP(u.Hostname()); u.Scheme == "http" && (u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()) {
		return nil
	}
	return fmt.Errorf("%w: the endpoint %q is not an https URL", ErrInvalid, u.Scheme+"://"+u.Host)
}

// p256Point reports whether s is an uncompressed P-256 point in base64url.
func p256Point(s string) bool {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return false
	}
	_, err = ecdh.P256().NewPublicKey(b)
	return err == nil
}

// b64Len returns the length of base64url data, padded or not.
func b64Len(s string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	return len(b), err
}

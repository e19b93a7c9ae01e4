package web

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// pushService stands in for a browser vendor's push service: it takes
// pushes at /push/<device>, checks each one's VAPID signature (RFC 8292)
// against the key the bridge published, decrypts its aes128gcm payload
// (RFC 8291) with the device's private key and authentication secret, and
// answers with the status the test set for that device (201 by default).
type pushService struct {
	t       *testing.T
	srv     *httptest.Server
	vapid   string // the VAPID public key pushes must carry
	contact string // the "sub" claim pushes must carry

	mu      sync.Mutex
	devices map[string]*device
	status  map[string][]int // device -> statuses to answer, one per push; the last repeats
	hits    map[string]int   // device -> pushes received
	got     chan delivered
	// hold, when set, leaves each push unanswered (and not delivered)
	// until it is closed or the push is abandoned.
	hold chan struct{}
}

// device is a browser's side of one subscription.
type device struct {
	name string
	key  *ecdh.PrivateKey
	auth []byte
}

// delivered is one push the service took, decrypted.
type delivered struct {
	device string
	msg    pushMessage
	ttl    string
}

func newPushService(t *testing.T, vapid, contact string) *pushService {
	ps := &pushService{t: t, vapid: vapid, contact: contact,
		devices: map[string]*device{}, status: map[string][]int{}, hits: map[string]int{}, got: make(chan delivered, 64)}
	ps.srv = httptest.NewServer(http.HandlerFunc(ps.serve))
	t.Cleanup(ps.srv.Close)
	return ps
}

// newDevice makes a device's keys and returns its subscription for person.
func (ps *pushService) newDevice(person, name string) broker.PushSubscription {
	ps.t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		ps.t.Fatal(err)
	}
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	ps.mu.Lock()
	ps.devices[name] = &device{name: name, key: k, auth: auth}
	ps.mu.Unlock()
	return broker.PushSubscription{
		Person: person, Endpoint: ps.srv.URL + "/push/" + name,
		P256dh: b64(k.PublicKey().Bytes()), Auth: b64(auth), Device: name, CreatedAt: time.Now(),
	}
}

// hitsOf returns how many pushes the device's endpoint received.
func (ps *pushService) hitsOf(name string) int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.hits[name]
}

// answer sets the statuses the device's next pushes get.
func (ps *pushService) answer(name string, statuses ...int) {
	ps.mu.Lock()
	ps.status[name] = statuses
	ps.mu.Unlock()
}

func (ps *pushService) serve(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, "/push/")
	ps.mu.Lock()
	d := ps.devices[name]
	ps.hits[name]++
	status := http.StatusCreated
	if s := ps.status[name]; len(s) > 0 {
		status = s[0]
		if len(s) > 1 {
			ps.status[name] = s[1:]
		}
	}
	hold := ps.hold
	ps.mu.Unlock()
	if hold != nil {
		// The body read first: the server then notices a client that
		// gives up.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-hold:
		case <-r.Context().Done():
		}
		return
	}
	if !ok || d == nil || r.Method != http.MethodPost {
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	if err := ps.checkVAPID(r); err != nil {
		ps.t.Errorf("push to %s: VAPID: %v", name, err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "aes128gcm" {
		ps.t.Errorf("push to %s: Content-Encoding %q; want aes128gcm", name, ce)
	}
	body, _ := io.ReadAll(r.Body)
	plain, err := decryptPush(body, d.key, d.auth)
	if err != nil {
		ps.t.Errorf("push to %s: decrypt: %v", name, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg pushMessage
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		ps.t.Errorf("push to %s: payload %q is not a push message: %v", name, plain, err)
	}
	if status < 300 {
		ps.got <- delivered{device: name, msg: msg, ttl: r.Header.Get("TTL")}
	}
	w.WriteHeader(status)
}

// checkVAPID checks the Authorization header: "vapid t=<JWT>, k=<key>",
// k the bridge's public key, the JWT signed with ES256 by its private key,
// for the origin of the endpoint, not expired, with the contact as sub.
func (ps *pushService) checkVAPID(r *http.Request) error {
	h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "vapid ")
	if !ok {
		return fmt.Errorf("authorization %q is not vapid", r.Header.Get("Authorization"))
	}
	var token, key string
	for _, part := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			token = v
		case "k":
			key = v
		}
	}
	if key != ps.vapid {
		return fmt.Errorf("k=%q; want the published key %q", key, ps.vapid)
	}
	raw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return err
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return fmt.Errorf("k: %w", err)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return fmt.Errorf("t is not a JWT")
	}
	var header struct{ Alg, Typ string }
	if err := decodePart(parts[0], &header); err != nil || header.Alg != "ES256" {
		return fmt.Errorf("JWT header %+v (%v); want alg ES256", header, err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("JWT signature is not 64 bytes of r||s")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("JWT signature does not verify with the published key")
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := decodePart(parts[1], &claims); err != nil {
		return err
	}
	if claims.Aud != ps.srv.URL {
		return fmt.Errorf("aud %q; want the endpoint's origin %q", claims.Aud, ps.srv.URL)
	}
	if exp := time.Unix(claims.Exp, 0); !exp.After(time.Now()) || exp.After(time.Now().Add(24*time.Hour)) {
		return fmt.Errorf("exp %v is not within the next 24 hours", exp)
	}
	if claims.Sub != ps.contact {
		return fmt.Errorf("sub %q; want %q", claims.Sub, ps.contact)
	}
	return nil
}

func decodePart(s string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// decryptPush opens an aes128gcm push payload (RFC 8188 framing with the
// keys of RFC 8291) on the device's side.
func decryptPush(body []byte, ua *ecdh.PrivateKey, auth []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than the header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || len(body) < 21+idlen {
		return nil, fmt.Errorf("keyid is %d bytes; want the sender's 65-byte public key", idlen)
	}
	asPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, fmt.Errorf("keyid: %w", err)
	}
	record := body[21+idlen:]
	if uint32(len(record)) > rs {
		return nil, fmt.Errorf("record of %d bytes is larger than rs %d (one record expected)", len(record), rs)
	}
	secret, err := ua.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	keyInfo := append(append([]byte("WebPush: info\x00"), ua.PublicKey().Bytes()...), asPub.Bytes()...)
	ikm, err := hkdf.Key(sha256.New, secret, auth, string(keyInfo), 32)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		return nil, fmt.Errorf("AES-GCM: %w", err)
	}
	end := len(plain) - 1
	for end >= 0 && plain[end] == 0 {
		end--
	}
	if end < 0 || plain[end] != 2 {
		return nil, errors.New("no last-record delimiter (0x02) after the payload")
	}
	return plain[:end], nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

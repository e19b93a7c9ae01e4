package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// cookieName is the session cookie of the inbox.
const cookieName = "askbridge_web"

// cookieMaxAge is how long a browser stays signed in. The expiry is
// fixed at sign-in, not moved by use: a stolen cookie dies on a known
// date, and checking a session never writes to the store.
const cookieMaxAge = 30 * 24 * time.Hour

// sessionIDBytes is the randomness of a session id (256 bits).
const sessionIDBytes = 32

// errNoSession means the request carries no session cookie.
var errNoSession = errors.New("no session cookie")

// auth decides who may use the page. With a token, each sign-in gets a
// random session id, kept in the browser's cookie; the store keeps only
// a digest of it (HMAC-SHA256 keyed with the token), with its expiry, so
// every bridge instance accepts it, signing out ends it everywhere, the
// store's contents sign nobody in, and changing the token ends every
// session.
type auth struct {
	token     []byte   // nil when the page is open
	tokenHash [32]byte // sha256 of the token, compared in constant time
	sessions  broker.Sessions
	guard     *throttle
}

func newAuth(token string, sessions broker.Sessions) *auth {
	a := &auth{guard: newThrottle(maxFailuresPerMinute, time.Minute, maxThrottled)}
	if token == "" {
		return a
	}
	a.token = []byte(token)
	a.tokenHash = sha256.Sum256(a.token)
	a.sessions = sessions
	return a
}

// open reports whether the page needs no token.
func (a *auth) open() bool { return a.token == nil }

// digest is what the store keeps of a session id.
func (a *auth) digest(id string) string {
	m := hmac.New(sha256.New, a.token)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// allowed reports whether r carries a live session (or none is needed).
// An error means the store could not say.
func (a *auth) allowed(r *http.Request, now time.Time) (bool, error) {
	if a.open() {
		return true, nil
	}
	id, err := sessionID(r)
	if err != nil {
		return false, nil
	}
	ok, err := a.sessions.CheckSession(r.Context(), a.digest(id), now)
	if err != nil {
		return false, fmt.Errorf("web: check session: %w", err)
	}
	return ok, nil
}

// sessionID reads the session id from r's cookie.
func sessionID(r *http.Request) (string, error) {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return "", errNoSession
	}
	return c.Value, nil
}

// matches compares a typed token with the configured one in constant time
// (hashing first, so the length of the token does not show either).
func (a *auth) matches(token string) bool {
	if a.open() {
		return true
	}
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], a.tokenHash[:]) == 1
}

// signIn makes a new session valid until now+cookieMaxAge and returns its
// id, for the cookie.
func (a *auth) signIn(ctx context.Context, now time.Time) (string, error) {
	b := make([]byte, sessionIDBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	id := base64.RawURLEncoding.EncodeToString(b)
	if err := a.sessions.CreateSession(ctx, a.digest(id), now.Add(cookieMaxAge)); err != nil {
		return "", fmt.Errorf("web: create session: %w", err)
	}
	return id, nil
}

// signOut ends r's session, if it carries one, on every instance.
func (a *auth) signOut(r *http.Request) error {
	if a.open() {
		return nil
	}
	id, err := sessionID(r)
	if err != nil {
		return nil
	}
	if err := a.sessions.DeleteSession(r.Context(), a.digest(id)); err != nil {
		return fmt.Errorf("web: delete session: %w", err)
	}
	return nil
}

// sessionCookie is set after a successful login; clear with maxAge < 0.
func (a *auth) sessionCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name:     cookieName,
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
		Secure:   r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https",
	}
}

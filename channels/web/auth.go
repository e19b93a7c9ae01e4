package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// cookieName is the session cookie of the inbox.
const cookieName = "askbridge_web"

// sessionLabel is what the session value is an HMAC of, keyed with the
// token: the cookie proves knowledge of the token without carrying it.
const sessionLabel = "askbridge web inbox session v1"

// cookieMaxAge is how long a browser stays signed in.
const cookieMaxAge = 30 * 24 * time.Hour

// Wrong tokens allowed per minute on one instance before logins pause.
const maxFailuresPerMinute = 20

// auth decides who may use the page.
type auth struct {
	tokenHash [32]byte // sha256 of the token, compared in constant time
	session   string   // hex HMAC-SHA256(token, sessionLabel); "" when open

	mu       sync.Mutex
	failures []time.Time
}

func newAuth(token string) *auth {
	a := &auth{}
	if token == "" {
		return a
	}
	a.tokenHash = sha256.Sum256([]byte(token))
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(sessionLabel))
	a.session = hex.EncodeToString(m.Sum(nil))
	return a
}

// open reports whether the page needs no token.
func (a *auth) open() bool { return a.session == "" }

// allowed reports whether r carries a valid session (or none is needed).
func (a *auth) allowed(r *http.Request) bool {
	if a.open() {
		return true
	}
	c, err := r.Cookie(cookieName)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(a.session)) == 1
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

// throttled records a failed login and reports whether too many failed
// lately; it is a brake on guessing, not an account lock.
func (a *auth) throttled(now time.Time, failed bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	keep := a.failures[:0]
	for _, t := range a.failures {
		if now.Sub(t) < time.Minute {
			keep = append(keep, t)
		}
	}
	a.failures = keep
	if failed {
		a.failures = append(a.failures, now)
	}
	return len(a.failures) > maxFailuresPerMinute
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

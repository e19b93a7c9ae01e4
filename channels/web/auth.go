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
	"os"
	"strings"
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

// maxCookieLen bounds a session cookie's value: a person id (64), the
// kind, the random part and two dots.
const maxCookieLen = 128

// How a session was made, written in its cookie: it says whose secret
// keys the session's digest in the store.
const (
	kindShared = "s" // the shared token (token_env)
	kindToken  = "t" // a person's own token (web_token_env)
	kindSSO    = "o" // single sign-on (oidc)
)

// noPerson stands for "no person" in a session cookie: the shared
// token's user when token_person is not set.
const noPerson = "~"

// errNoSession means the request carries no session cookie.
var errNoSession = errors.New("no session cookie")

// identity is who acts on the page: the user id of the account on the
// "web" channel, the name shown and recorded, and the person (nil for
// the shared token's user without token_person, and on an open page).
type identity struct {
	User   string
	Name   string
	Person *broker.Person
}

// personIdentity is a person signed in: the account web:<id>.
func personIdentity(p *broker.Person) identity {
	return identity{User: p.ID, Name: p.DisplayName(), Person: p}
}

// cookieField is how the identity is written in a session cookie.
func (who identity) cookieField() string {
	if who.Person == nil {
		return noPerson
	}
	return who.Person.ID
}

// credential is one token that signs someone in.
type credential struct {
	kind   string
	secret []byte
	hash   [32]byte // sha256 of secret, compared in constant time
	who    identity
}

func newCredential(kind, secret string, who identity) *credential {
	return &credential{kind: kind, secret: []byte(secret), hash: sha256.Sum256([]byte(secret)), who: who}
}

// auth decides who may use the page, and as whom. Each sign-in gets a
// random session id, kept in the browser's cookie as
// "<person id>.<kind>.<random>"; the store keeps only a digest of that
// value (HMAC-SHA256 keyed with the secret of the way it was made: the
// shared token, the person's own token, or for single sign-on a key
// derived from the client secret and the person's email), with its
// expiry. So every bridge instance accepts it, signing out ends it
// everywhere, the store's contents sign nobody in, editing the person
// part of a cookie makes a digest the store does not hold, and changing
// one person's token ends that person's sessions only.
type auth struct {
	isOpen bool     // no way to sign in is configured
	anon   identity // who acts on an open page

	shared   *credential            // the shared token, nil without one
	byPerson map[string]*credential // a person's id → their own token
	creds    []*credential          // every token, for sign-in
	people   *broker.People
	// ssoSecret keys single sign-on sessions (the client secret); nil
	// without single sign-on.
	ssoSecret []byte

	sessions broker.Sessions
	guard    *throttle
}

// keyOf returns who a session of kind for the person written in its
// cookie signs in, and the key of its digest; false when no such sign-in
// is configured (any more).
func (a *auth) keyOf(person, kind string) (identity, []byte, bool) {
	switch kind {
	case kindShared:
		if a.shared != nil && a.shared.who.cookieField() == person {
			return a.shared.who, a.shared.secret, true
		}
	case kindToken:
		if c := a.byPerson[person]; c != nil {
			return c.who, c.secret, true
		}
	case kindSSO:
		if p := a.people.Person(person); a.ssoSecret != nil && p != nil && p.Email != "" {
			m := hmac.New(sha256.New, a.ssoSecret)
			m.Write([]byte("askbridge web single sign-on\x00" + strings.ToLower(p.Email)))
			return personIdentity(p), m.Sum(nil), true
		}
	}
	return identity{}, nil, false
}

// digest is what the store keeps of a session cookie's value.
func digest(key []byte, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(value))
	return hex.EncodeToString(m.Sum(nil))
}

// open reports whether the page needs no sign-in.
func (a *auth) open() bool { return a.isOpen }

// who returns who r's session signs in, and false when r carries no
// live session (an open page signs everyone in as anon). An error means
// the store could not say.
func (a *auth) who(r *http.Request, now time.Time) (identity, bool, error) {
	if a.open() {
		return a.anon, true, nil
	}
	value, err := sessionID(r)
	if err != nil {
		return identity{}, false, nil
	}
	person, kind, ok := parseSession(value)
	if !ok {
		return identity{}, false, nil
	}
	who, key, ok := a.keyOf(person, kind)
	if !ok {
		return identity{}, false, nil
	}
	live, err := a.sessions.CheckSession(r.Context(), digest(key, value), now)
	if err != nil {
		return identity{}, false, fmt.Errorf("web: check session: %w", err)
	}
	return who, live, nil
}

// parseSession splits a session cookie's value into the person and the
// kind; false when it is not one the inbox makes.
func parseSession(value string) (person, kind string, ok bool) {
	if len(value) > maxCookieLen {
		return "", "", false
	}
	rest, random, ok := cutLast(value)
	if !ok || len(random) != base64.RawURLEncoding.EncodedLen(sessionIDBytes) {
		return "", "", false
	}
	person, kind, ok = cutLast(rest)
	if !ok || person == "" || (kind != kindShared && kind != kindToken && kind != kindSSO) {
		return "", "", false
	}
	return person, kind, true
}

// cutLast cuts s around its last dot (a person id may hold dots; the
// kind and the random part do not).
func cutLast(s string) (before, after string, found bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// sessionID reads the session cookie's value from r.
func sessionID(r *http.Request) (string, error) {
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return "", errNoSession
	}
	return c.Value, nil
}

// match returns the credential a typed token is, comparing it with every
// configured token in constant time (hashing first, so the length of the
// tokens does not show either), or nil.
func (a *auth) match(token string) *credential {
	h := sha256.Sum256([]byte(token))
	var found *credential
	for _, c := range a.creds {
		if subtle.ConstantTimeCompare(h[:], c.hash[:]) == 1 {
			found = c
		}
	}
	return found
}

// signIn makes a new session of kind for who, valid until
// now+cookieMaxAge, and returns the cookie's value.
func (a *auth) signIn(ctx context.Context, now time.Time, kind string, who identity) (string, error) {
	b := make([]byte, sessionIDBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	value := who.cookieField() + "." + kind + "." + base64.RawURLEncoding.EncodeToString(b)
	_, key, ok := a.keyOf(who.cookieField(), kind)
	if !ok {
		return "", fmt.Errorf("web: create session: no %q sign-in for %s", kind, who.cookieField())
	}
	if err := a.sessions.CreateSession(ctx, digest(key, value), now.Add(cookieMaxAge)); err != nil {
		return "", fmt.Errorf("web: create session: %w", err)
	}
	return value, nil
}

// signOut ends r's session, if it carries one, on every instance.
func (a *auth) signOut(r *http.Request) error {
	if a.open() {
		return nil
	}
	value, err := sessionID(r)
	if err != nil {
		return nil
	}
	person, kind, ok := parseSession(value)
	if !ok {
		return nil
	}
	_, key, ok := a.keyOf(person, kind)
	if !ok {
		return nil
	}
	if err := a.sessions.DeleteSession(r.Context(), digest(key, value)); err != nil {
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
		Secure:   secure(r),
	}
}

// secure reports whether r came over HTTPS (directly or through a proxy
// that says so), so that cookies set in answer are Secure.
func secure(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}

// newAuth reads every way to sign in from the configuration and the
// environment (already checked by ValidatePeople and cfg.token):
// token is the shared token ("" without one), ssoSecret the client
// secret ("" without single sign-on), user the name of the user that is
// no person.
func newAuth(cfg Config, people *broker.People, token, ssoSecret, user string, sessions broker.Sessions) *auth {
	a := &auth{
		anon: identity{User: user, Name: user}, byPerson: map[string]*credential{}, people: people,
		sessions: sessions, guard: newThrottle(maxFailuresPerMinute, time.Minute, maxThrottled),
	}
	if token != "" {
		who := a.anon
		if p := people.Person(cfg.TokenPerson); p != nil {
			who = personIdentity(p)
		}
		a.shared = newCredential(kindShared, token, who)
		a.creds = append(a.creds, a.shared)
	}
	for _, p := range people.All() {
		if p.WebTokenEnv == "" {
			continue
		}
		c := newCredential(kindToken, os.Getenv(p.WebTokenEnv), personIdentity(p))
		a.byPerson[p.ID] = c
		a.creds = append(a.creds, c)
	}
	if ssoSecret != "" {
		a.ssoSecret = []byte(ssoSecret)
	}
	a.isOpen = len(a.creds) == 0 && a.ssoSecret == nil
	return a
}

// signInState is what GET /inbox/state answers before sign-in: how the
// sign-in page may sign in.
func (c *Channel) signInState() state {
	st := state{Login: true, Open: []view{}, History: []view{}, Tokens: len(c.auth.creds) > 0}
	switch {
	case c.sso == nil:
	case c.sso.available():
		st.SSO = "available"
	default:
		st.SSO = "unavailable"
	}
	return st
}

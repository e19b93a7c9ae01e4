package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// LoginPath starts single sign-on: the sign-in page links to it.
const LoginPath = "/inbox/oidc/login"

// flowCookie holds one sign-in's state, nonce and PKCE verifier between
// LoginPath and the callback. It is SameSite=Lax: the provider sends the
// browser back from another site, and a Strict cookie would not come
// with it.
const flowCookie = "askbridge_oidc"

// flowMaxAge is how long a sign-in at the provider may take.
const flowMaxAge = 10 * time.Minute

// flowPath scopes the flow cookie to the two single sign-on endpoints.
const flowPath = "/inbox/oidc/"

// Sentences of the single sign-on pages besides the callback's refusals.
const (
	textUnavailable = "Single sign-on is unavailable right now: the identity provider does not answer. Sign in with your web token, or try again in a minute."
	textStale       = "This sign-in was not started from this inbox, or took longer than 10 minutes, so nobody was signed in. Start again from the sign-in page."
	textProvider    = "Your identity provider did not sign you in (%s), so nobody was signed in."
	textStore       = "Cannot sign you in right now: the bridge's store is not answering; try again shortly."
)

// serveSSOLogin sends the browser to the provider with a fresh state,
// nonce and PKCE challenge, which the flow cookie keeps.
func (c *Channel) serveSSOLogin(w http.ResponseWriter, r *http.Request) {
	// A tab closed while the provider is asked is no failure of the
	// provider's: discovery is not ended with the request.
	p, err := c.sso.provider(context.WithoutCancel(r.Context()))
	if err != nil {
		ssoPage(w, http.StatusServiceUnavailable, "Single sign-on unavailable", textUnavailable)
		return
	}
	state, nonce, verifier := randomText(), randomText(), oauth2.GenerateVerifier()
	http.SetCookie(w, flowCookieOf(r, state+"."+nonce+"."+verifier, int(flowMaxAge.Seconds())))
	http.Redirect(w, r, p.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), http.StatusFound)
}

// serveSSOCallback takes the provider's answer: it checks the state
// against the flow cookie, exchanges the code, verifies the ID token and
// its nonce, signs in the person the verified email selects and sends
// the browser to the inbox. Every refusal is a page that says why, and
// signs nobody in.
func (c *Channel) serveSSOCallback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, flowCookieOf(r, "", -1)) // one use
	q := r.URL.Query()
	state, nonce, verifier, ok := readFlow(r)
	if !ok || !equalSecret(q.Get("state"), state) {
		ssoPage(w, http.StatusBadRequest, "Single sign-on refused", textStale)
		return
	}
	if e := q.Get("error"); e != "" {
		why := e
		if d := q.Get("error_description"); d != "" {
			why += ": " + d
		}
		ssoPage(w, http.StatusUnauthorized, "Single sign-on refused", fmt.Sprintf(textProvider, why))
		return
	}
	p, err := c.sso.provider(context.WithoutCancel(r.Context()))
	if err != nil {
		ssoPage(w, http.StatusServiceUnavailable, "Single sign-on unavailable", textUnavailable)
		return
	}
	person, err := c.sso.person(r.Context(), p, q.Get("code"), verifier, nonce)
	if err != nil {
		var refused *ssoRefusal
		if !errors.As(err, &refused) {
			refused = &ssoRefusal{status: http.StatusUnauthorized, text: textUnverifiable, detail: err}
		}
		c.refusals.Warn("sso refused", "single sign-on refused", "reason", refused.text, "err", refused.detail, "remote", r.RemoteAddr)
		ssoPage(w, refused.status, "Single sign-on refused", refused.text)
		return
	}
	value, err := c.auth.signIn(r.Context(), c.now(), kindSSO, personIdentity(person))
	if err != nil {
		c.log.Error("sign in", "err", err)
		ssoPage(w, http.StatusServiceUnavailable, "Single sign-on unavailable", textStore)
		return
	}
	c.log.Info("signed in with single sign-on", "person", person.ID)
	http.SetCookie(w, c.auth.sessionCookie(r, value, int(cookieMaxAge.Seconds())))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// flowCookieOf is the flow cookie with value; clear with maxAge < 0.
func flowCookieOf(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: flowCookie, Value: value, Path: flowPath, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure(r),
	}
}

// readFlow reads the state, nonce and verifier from the flow cookie.
func readFlow(r *http.Request) (state, nonce, verifier string, ok bool) {
	ck, err := r.Cookie(flowCookie)
	if err != nil {
		return "", "", "", false
	}
	parts := strings.Split(ck.Value, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// randomText is 256 random bits, base64url.
func randomText() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// equalSecret compares two secrets in constant time; empty matches
// nothing.
func equalSecret(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// ssoPageHTML is the page of a single sign-on refusal: the sentence, and
// the way back to the sign-in page. It uses the inbox's style sheet and
// no script.
var ssoPageHTML = template.Must(template.New("sso").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{.Title}} · askbridge inbox</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/inbox.css">
</head>
<body>
<header class="top"><h1><span class="logo" aria-hidden="true">?</span> askbridge inbox</h1></header>
<main>
  <section class="login" aria-labelledby="sso-title">
    <h2 id="sso-title">{{.Title}}</h2>
    <p id="sso-message" role="alert">{{.Text}}</p>
    <p><a href="/">Back to the sign-in page</a></p>
  </section>
</main>
</body>
</html>
`))

// ssoPage writes a single sign-on page with status.
func ssoPage(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_ = ssoPageHTML.Execute(w, struct{ Title, Text string }{title, text})
}

package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/askbridge/askbridge/broker"
)

// ssoTimeout bounds each call to the identity provider: discovery, its
// keys, the code exchange.
const ssoTimeout = 10 * time.Second

// Discovery that failed is tried again on the next sign-in attempt once
// ssoRetryFirst has passed, then after twice as long each time, up to
// ssoRetryMax: a provider that is down is not asked on every click.
const (
	ssoRetryFirst = 5 * time.Second
	ssoRetryMax   = 5 * time.Minute
)

// errSSOUnavailable means the identity provider has not been discovered:
// it did not answer, and the next try waits for its backoff.
var errSSOUnavailable = errors.New("web: single sign-on is unavailable")

// sso is single sign-on through an OpenID Connect provider. The provider
// is discovered (its /.well-known/openid-configuration read) when the
// inbox starts; when that fails, the inbox starts all the same, the
// sign-in page says single sign-on is unavailable, and the next sign-in
// attempt after the backoff discovers again. Safe for concurrent use.
type sso struct {
	cfg    OIDCConfig
	secret string
	client *http.Client
	now    func() time.Time
	log    *slog.Logger
	// emails are the people single sign-on selects, by lower-case email.
	emails map[string]*broker.Person

	mu       sync.Mutex
	ready    *ssoProvider // nil until discovered
	trying   bool
	failures int
	retryAt  time.Time
}

// ssoProvider is a discovered provider: the OAuth 2 client and the ID
// token verifier.
type ssoProvider struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
}

func newSSO(cfg OIDCConfig, secret string, people *broker.People, now func() time.Time, log *slog.Logger) *sso {
	s := &sso{cfg: cfg, secret: secret, client: &http.Client{Timeout: ssoTimeout}, now: now, log: log, emails: map[string]*broker.Person{}}
	for _, p := range people.All() {
		if p.Email != "" {
			s.emails[strings.ToLower(p.Email)] = p
		}
	}
	return s
}

// provider returns the discovered provider, discovering it first unless
// another request is doing so or the backoff of the last failure runs.
func (s *sso) provider(ctx context.Context) (*ssoProvider, error) {
	s.mu.Lock()
	if s.ready != nil {
		defer s.mu.Unlock()
		return s.ready, nil
	}
	if s.trying || s.now().Before(s.retryAt) {
		s.mu.Unlock()
		return nil, errSSOUnavailable
	}
	s.trying = true
	s.mu.Unlock()

	p, err := s.discover(ctx)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.trying = false
	if err != nil {
		wait := ssoRetryFirst << min(s.failures, 10)
		s.failures++
		s.retryAt = s.now().Add(min(wait, ssoRetryMax))
		s.log.Warn("single sign-on unavailable: the identity provider did not answer", "issuer", s.cfg.Issuer, "retry_after", min(wait, ssoRetryMax).String(), "err", err)
		return nil, fmt.Errorf("%w: %w", errSSOUnavailable, err)
	}
	s.ready, s.failures = p, 0
	s.log.Info("single sign-on ready", "issuer", s.cfg.Issuer)
	return p, nil
}

// available reports whether the sign-in page offers single sign-on as
// working: true until a discovery fails, and again once one succeeds.
func (s *sso) available() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ready != nil || s.failures == 0
}

// discover reads the provider's discovery document, within ssoTimeout.
func (s *sso) discover(ctx context.Context) (*ssoProvider, error) {
	ctx, cancel := context.WithTimeout(ctx, ssoTimeout)
	defer cancel()
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, s.client), s.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("web: discover %s: %w", s.cfg.Issuer, err)
	}
	return &ssoProvider{
		oauth: oauth2.Config{
			ClientID: s.cfg.ClientID, ClientSecret: s.secret, Endpoint: p.Endpoint(),
			RedirectURL: s.cfg.RedirectURL, Scopes: []string{oidc.ScopeOpenID, "email"},
		},
		verifier: p.Verifier(&oidc.Config{ClientID: s.cfg.ClientID, Now: s.now}),
	}, nil
}

// ssoRefusal is why single sign-on signed nobody in: the page's status
// and sentence.
type ssoRefusal struct {
	status int
	text   string
	// detail is logged, never shown.
	detail error
}

func (r *ssoRefusal) Error() string { return r.text }

// Refusals of the callback, as the page says them.
const (
	textUnverifiable = "The identity provider's answer could not be verified, so nobody was signed in. Start again from the sign-in page; if this keeps happening, the bridge's log says why."
	textNoEmail      = "Your identity provider did not share an email address, so nobody was signed in. The bridge asks for the scopes openid and email: check that its client may use them."
	textUnverified   = "Your identity provider has not verified the email address %s, so nobody was signed in. Verify it with the provider, then sign in again."
	textUnknownEmail = "No person in this bridge has the email address %s, so nobody was signed in. Ask whoever runs the bridge to add it to your entry under people, or sign in with your web token."
	textExchange     = "The identity provider did not complete the sign-in, so nobody was signed in. Try again in a minute, or sign in with your web token."
)

// idClaims are the claims of an ID token the inbox reads.
type idClaims struct {
	Email string `json:"email"`
	// EmailVerified is a boolean, or from some providers the string
	// "true" or "false"; absent means the provider does not say.
	EmailVerified any `json:"email_verified"`
}

// verified reports whether the claims do not deny that the email is
// verified.
func (c idClaims) verified() bool {
	switch v := c.EmailVerified.(type) {
	case nil:
		return true
	case bool:
		return v
	case string:
		return strings.EqualFold(v, "true")
	}
	return false
}

// person exchanges the code for tokens, verifies the ID token (its
// signature, issuer, audience, expiry, and nonce) and returns the person
// its email selects, or the refusal.
func (s *sso) person(ctx context.Context, p *ssoProvider, code, verifier, nonce string) (*broker.Person, error) {
	ctx, cancel := context.WithTimeout(ctx, ssoTimeout)
	defer cancel()
	ctx = oidc.ClientContext(ctx, s.client)
	tok, err := p.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, &ssoRefusal{status: http.StatusBadGateway, text: textExchange, detail: fmt.Errorf("exchange the code: %w", err)}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, &ssoRefusal{status: http.StatusBadGateway, text: textExchange, detail: errors.New("the token response holds no id_token")}
	}
	id, err := p.verifier.Verify(ctx, raw)
	if err != nil {
		return nil, &ssoRefusal{status: http.StatusUnauthorized, text: textUnverifiable, detail: err}
	}
	if !equalSecret(id.Nonce, nonce) {
		return nil, &ssoRefusal{status: http.StatusUnauthorized, text: textUnverifiable, detail: errors.New("the ID token's nonce is not this sign-in's")}
	}
	var claims idClaims
	if err := id.Claims(&claims); err != nil {
		return nil, &ssoRefusal{status: http.StatusUnauthorized, text: textUnverifiable, detail: fmt.Errorf("read the ID token's claims: %w", err)}
	}
	switch {
	case claims.Email == "":
		return nil, &ssoRefusal{status: http.StatusForbidden, text: textNoEmail}
	case !claims.verified():
		return nil, &ssoRefusal{status: http.StatusForbidden, text: fmt.Sprintf(textUnverified, claims.Email)}
	}
	person := s.emails[strings.ToLower(claims.Email)]
	if person == nil {
		return nil, &ssoRefusal{status: http.StatusForbidden, text: fmt.Sprintf(textUnknownEmail, claims.Email)}
	}
	return person, nil
}

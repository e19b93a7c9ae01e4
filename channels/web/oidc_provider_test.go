package web

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// fakeIdP is an OpenID Connect provider in the test's process, as a
// real one answers: the discovery document, its keys (JWKS, an RSA key
// generated for the test), an authorization endpoint that signs in at
// once whoever the test names, and a token endpoint that checks the
// client's secret, the redirect URL and the PKCE verifier before it
// hands out an ID token signed with that key.
type fakeIdP struct {
	t        *testing.T
	srv      *httptest.Server
	key      *rsa.PrivateKey
	clientID string
	secret   string

	mu sync.Mutex
	// down makes discovery answer 503, as a provider that is down.
	down bool
	// discoveries counts the discovery documents asked for.
	discoveries int
	// email and verified are who signs in at the authorization endpoint
	// (verified nil leaves email_verified out).
	email    string
	verified *bool
	// deny makes the authorization endpoint refuse (access_denied).
	deny bool
	// tamper, when set, changes the claims of the ID tokens issued.
	tamper func(claims map[string]any)
	codes  map[string]grant
}

// grant is an authorization code's request, kept until the exchange.
type grant struct {
	redirect, nonce, challenge string
	claims                     map[string]any
}

const fakeKeyID = "test-key-1"

func newFakeIdP(t *testing.T) *fakeIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeIdP{t: t, key: key, clientID: "askbridge-test", secret: "client-secret-for-tests", codes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", f.discovery)
	mux.HandleFunc("GET /jwks", f.jwks)
	mux.HandleFunc("GET /authorize", f.authorize)
	mux.HandleFunc("POST /token", f.token)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

// issuer is the provider's issuer URL.
func (f *fakeIdP) issuer() string { return f.srv.URL }

// signInAs makes the authorization endpoint sign in email.
func (f *fakeIdP) signInAs(email string, verified *bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.email, f.verified = email, verified
}

func (f *fakeIdP) set(fn func(f *fakeIdP)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeIdP) discovered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.discoveries
}

func (f *fakeIdP) discovery(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	f.discoveries++
	down := f.down
	f.mu.Unlock()
	if down {
		http.Error(w, "temporarily unavailable", http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                f.issuer(),
		"authorization_endpoint":                f.issuer() + "/authorize",
		"token_endpoint":                        f.issuer() + "/token",
		"jwks_uri":                              f.issuer() + "/jwks",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "email"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (f *fakeIdP) jwks(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &f.key.PublicKey, KeyID: fakeKeyID, Algorithm: string(jose.RS256), Use: "sig"},
	}})
}

// authorize checks the request as a provider does and sends the browser
// back with a code (or with error=access_denied).
func (f *fakeIdP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	scopes := strings.Fields(q.Get("scope"))
	switch {
	case q.Get("client_id") != f.clientID:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("redirect_uri") == "" || q.Get("state") == "" || q.Get("nonce") == "":
		http.Error(w, "response_type=code, redirect_uri, state and nonce are required", http.StatusBadRequest)
		return
	case !slices.Contains(scopes, "openid") || !slices.Contains(scopes, "email"):
		http.Error(w, "the scopes must include openid and email", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE with S256 is required", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}}
	f.mu.Lock()
	if f.deny {
		v.Set("error", "access_denied")
		v.Set("error_description", "The user said no")
	} else {
		code := randomText()
		now := time.Now()
		claims := map[string]any{
			"iss": f.issuer(), "sub": "subject-" + f.email, "aud": f.clientID,
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
			"nonce": q.Get("nonce"), "email": f.email,
		}
		if f.verified != nil {
			claims["email_verified"] = *f.verified
		}
		if f.tamper != nil {
			f.tamper(claims)
		}
		f.codes[code] = grant{redirect: q.Get("redirect_uri"), nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), claims: claims}
		v.Set("code", code)
	}
	f.mu.Unlock()
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code once, for a client that authenticates, names
// the same redirect URL and proves the PKCE verifier.
func (f *fakeIdP) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != f.clientID || secret != f.secret {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	f.mu.Lock()
	g, found := f.codes[r.PostForm.Get("code")]
	delete(f.codes, r.PostForm.Get("code"))
	f.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	switch {
	case r.PostForm.Get("grant_type") != "authorization_code" || !found:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	case r.PostForm.Get("redirect_uri") != g.redirect:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "redirect_uri differs"})
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": "access-" + randomText(), "token_type": "Bearer", "expires_in": 3600,
		"id_token": f.sign(g.claims),
	})
}

// sign makes a compact JWS (RS256) of claims with the provider's key.
func (f *fakeIdP) sign(claims map[string]any) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: f.key, KeyID: fakeKeyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		f.t.Errorf("signer: %v", err)
		return ""
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		f.t.Errorf("claims: %v", err)
		return ""
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		f.t.Errorf("sign: %v", err)
		return ""
	}
	raw, err := jws.CompactSerialize()
	if err != nil {
		f.t.Errorf("serialize: %v", err)
	}
	return raw
}

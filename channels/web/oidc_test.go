package web

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// ssoEnv is a bridge whose inbox signs in with the fake provider (and
// with ana's own token).
func ssoEnv(t *testing.T, idp *fakeIdP) *env {
	t.Helper()
	setTeamTokens(t)
	t.Setenv("TEST_OIDC_SECRET", idp.secret)
	cfg := Config{OIDC: &OIDCConfig{Issuer: idp.issuer(), ClientID: idp.clientID, ClientSecretEnv: "TEST_OIDC_SECRET"}}
	people := team()
	people[1].WebTokenEnv = "" // bob signs in with single sign-on only
	return newPeopleEnv(t, cfg, false, people)
}

// browserClient is an HTTP client with a cookie jar that follows
// redirects, as a browser does.
func browserClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: waitFor}
}

// ssoSignIn opens the single sign-on link in c and follows every
// redirect (to the provider, back to the callback, to the inbox); it
// returns the last page's status and text.
func ssoSignIn(t *testing.T, c *http.Client, base string) (int, string) {
	t.Helper()
	res, err := c.Get(base + LoginPath)
	if err != nil {
		t.Fatalf("single sign-on: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// session returns c's session cookie for base, or nil.
func session(c *http.Client, base string) *http.Cookie {
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == cookieName {
			return ck
		}
	}
	return nil
}

func yes() *bool { v := true; return &v }
func no() *bool  { v := false; return &v }

// waitDiscovery waits until the inbox's Run has tried the provider once.
func waitDiscovery(t *testing.T, ch *Channel) {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		ch.sso.mu.Lock()
		done := ch.sso.ready != nil || ch.sso.failures > 0
		ch.sso.mu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the inbox never tried to discover the provider")
}

// TestSSO signs people in through an OpenID Connect provider started by
// the test, and refuses every answer that is not a verified, known
// person's: each refusal is a page that says why and signs nobody in.
func TestSSO(t *testing.T) {
	idp := newFakeIdP(t)
	e := ssoEnv(t, idp)
	self := e.srv.URL
	waitDiscovery(t, e.ch)

	t.Run("success", func(t *testing.T) {
		idp.signInAs("BOB@example.com", yes())
		c := browserClient(t)
		status, page := ssoSignIn(t, c, self)
		if status != 200 || !strings.Contains(page, `id="inbox"`) {
			t.Fatalf("single sign-on ended at %d: %.300s", status, page)
		}
		ck := session(c, self)
		if ck == nil || !strings.HasPrefix(ck.Value, "bob.o.") {
			t.Fatalf("session cookie %+v, want bob.o.<random>", ck)
		}
		s, st := stateAs(t, c, self)
		if s != 200 || st.User != "bob" || st.Person != "bob" {
			t.Fatalf("state: %d user %q person %q, want bob", s, st.User, st.Person)
		}
		by := answerAs(t, e, ck)
		if by == nil || by.Channel != Name || by.User != "bob" || by.Person == nil || by.Person.ID != "bob" {
			t.Fatalf("answered_by %+v, want web/bob, person bob", by)
		}
		if s, _ := stateAs(t, http.DefaultClient, self, ck); s != 200 {
			t.Fatalf("the cookie alone, in another client: %d, want 200", s)
		}
	})

	t.Run("email_verified absent", func(t *testing.T) {
		idp.signInAs("ana@example.com", nil)
		c := browserClient(t)
		if status, _ := ssoSignIn(t, c, self); status != 200 || session(c, self) == nil || !strings.HasPrefix(session(c, self).Value, "ana.o.") {
			t.Fatalf("status %d cookie %+v, want ana signed in", status, session(c, self))
		}
	})

	refusals := []struct {
		name   string
		setup  func(f *fakeIdP)
		status int
		says   string
	}{
		{"wrong audience", func(f *fakeIdP) {
			f.email, f.verified = "ana@example.com", yes()
			f.tamper = func(c map[string]any) { c["aud"] = "another-client" }
		}, http.StatusUnauthorized, textUnverifiable},
		{"expired token", func(f *fakeIdP) {
			f.email, f.verified = "ana@example.com", yes()
			f.tamper = func(c map[string]any) {
				c["iat"], c["exp"] = time.Now().Add(-2*time.Hour).Unix(), time.Now().Add(-time.Hour).Unix()
			}
		}, http.StatusUnauthorized, textUnverifiable},
		{"wrong nonce", func(f *fakeIdP) {
			f.email, f.verified = "ana@example.com", yes()
			f.tamper = func(c map[string]any) { c["nonce"] = randomText() }
		}, http.StatusUnauthorized, textUnverifiable},
		{"another issuer", func(f *fakeIdP) {
			f.email, f.verified = "ana@example.com", yes()
			f.tamper = func(c map[string]any) { c["iss"] = "https://evil.example.com" }
		}, http.StatusUnauthorized, textUnverifiable},
		{"unknown email", func(f *fakeIdP) { f.email, f.verified = "zoe@example.com", yes() },
			http.StatusForbidden, "No person in this bridge has the email address zoe@example.com, so nobody was signed in."},
		{"email not verified", func(f *fakeIdP) { f.email, f.verified = "ana@example.com", no() },
			http.StatusForbidden, "has not verified the email address ana@example.com"},
		{"no email", func(f *fakeIdP) { f.email, f.verified = "", nil },
			http.StatusForbidden, textNoEmail},
		{"the person says no at the provider", func(f *fakeIdP) { f.deny = true },
			http.StatusUnauthorized, "Your identity provider did not sign you in (access_denied: The user said no)"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			idp.set(func(f *fakeIdP) { f.tamper, f.deny = nil, false; tc.setup(f) })
			t.Cleanup(func() { idp.set(func(f *fakeIdP) { f.tamper, f.deny = nil, false }) })
			c := browserClient(t)
			status, page := ssoSignIn(t, c, self)
			if status != tc.status || !strings.Contains(page, htmlText(tc.says)) {
				t.Fatalf("got %d %.600s\nwant %d saying %q", status, page, tc.status, tc.says)
			}
			if ck := session(c, self); ck != nil {
				t.Fatalf("a refusal set a session cookie: %+v", ck)
			}
			if s, _ := stateAs(t, c, self); s != http.StatusUnauthorized {
				t.Fatalf("after the refusal the state answers %d, want 401", s)
			}
		})
	}

	t.Run("bad state", func(t *testing.T) {
		idp.signInAs("ana@example.com", yes())
		c := browserClient(t)
		// Stop at the callback: take the provider's answer by hand.
		c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
			if req.URL.Path == CallbackPath {
				return http.ErrUseLastResponse
			}
			return nil
		}
		res, err := c.Get(self + LoginPath)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		back, err := url.Parse(res.Header.Get("Location"))
		if err != nil || back.Query().Get("code") == "" {
			t.Fatalf("the provider sent back %q", res.Header.Get("Location"))
		}
		q := back.Query()
		q.Set("state", randomText())
		back.RawQuery = q.Encode()
		for name, client := range map[string]*http.Client{"another state": c, "no sign-in started": browserClient(t)} {
			res, err := client.Get(back.String())
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(page), htmlText(textStale)) || session(client, self) != nil {
				t.Fatalf("%s: %d %.300s, want 400 saying the sign-in was not started here", name, res.StatusCode, page)
			}
		}
	})
}

// TestSSOIssuerDown: a provider that does not answer when the bridge
// starts does not stop it; the sign-in page says single sign-on is
// unavailable, token sign-in works, and once the backoff has passed the
// next single sign-on discovers the provider and signs in.
func TestSSOIssuerDown(t *testing.T) {
	idp := newFakeIdP(t)
	idp.set(func(f *fakeIdP) { f.down = true })
	e := ssoEnv(t, idp)
	self := e.srv.URL
	waitDiscovery(t, e.ch)
	start := time.Now()
	e.ch.now = func() time.Time { return start }

	if s, st := stateAs(t, http.DefaultClient, self); s != http.StatusUnauthorized || st.SSO != "unavailable" || !st.Tokens {
		t.Fatalf("sign-in page state: %d sso %q tokens %v, want 401, unavailable, tokens", s, st.SSO, st.Tokens)
	}
	c := browserClient(t)
	status, page := ssoSignIn(t, c, self)
	if status != http.StatusServiceUnavailable || !strings.Contains(page, htmlText(textUnavailable)) {
		t.Fatalf("single sign-on while down: %d %.300s", status, page)
	}
	if ck := login(t, self, anaToken); !strings.HasPrefix(ck.Value, "ana.t.") {
		t.Fatalf("token sign-in while the provider is down: %q", ck.Value)
	}

	idp.set(func(f *fakeIdP) { f.down = false; f.email, f.verified = "ana@example.com", yes() })
	asked := idp.discovered()
	if status, _ := ssoSignIn(t, c, self); status != http.StatusServiceUnavailable || idp.discovered() != asked {
		t.Fatalf("within the backoff: %d, %d discoveries (want 503 and none)", status, idp.discovered()-asked)
	}
	e.ch.now = func() time.Time { return start.Add(ssoRetryFirst) }
	if status, page := ssoSignIn(t, c, self); status != 200 || session(c, self) == nil {
		t.Fatalf("after the backoff: %d %.300s, want signed in", status, page)
	}
	if s, st := stateAs(t, http.DefaultClient, self); s != http.StatusUnauthorized || st.SSO != "available" {
		t.Fatalf("sign-in page state after discovery: %d sso %q, want available", s, st.SSO)
	}
}

// htmlText is s as html/template writes it in a page.
func htmlText(s string) string {
	return strings.NewReplacer("'", "&#39;", `"`, "&#34;", "<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}

package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// Tokens of the people in these tests, set with t.Setenv.
const (
	anaToken    = "ana-own-token-0123456789"
	bobToken    = "bob-own-token-0123456789"
	sharedToken = "shared-token-0123456789"
)

// team is ana and bob, each with a token of their own and an email.
func team() []broker.Person {
	return []broker.Person{
		{ID: "ana", Name: "Ana Lima", Accounts: []string{"slack:U0000002"}, WebTokenEnv: "TEST_ANA_TOKEN", Email: "ana@example.com"},
		{ID: "bob", WebTokenEnv: "TEST_BOB_TOKEN", Email: "Bob@Example.com"},
	}
}

func setTeamTokens(t *testing.T) {
	t.Setenv("TEST_ANA_TOKEN", anaToken)
	t.Setenv("TEST_BOB_TOKEN", bobToken)
	t.Setenv("TEST_SHARED_TOKEN", sharedToken)
}

// newPeopleEnv is newEnv with a directory of people: the broker fills
// each action's person from it, and the inbox signs them in. The inbox
// runs (Run, which discovers a single sign-on provider), and with oidc
// and no redirect_url it gets the test server's own callback address.
func newPeopleEnv(t *testing.T, cfg Config, loopback bool, people []broker.Person) *env {
	t.Helper()
	dir, err := broker.NewPeople(people, nil)
	if err != nil {
		t.Fatalf("people: %v", err)
	}
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}}}},
		func(c *broker.Config) {
			c.ReminderPoints, c.Location, c.Logger, c.People = []float64{}, time.UTC, quiet, dir
		})
	srv := httptest.NewUnstartedServer(nil)
	if cfg.OIDC != nil && cfg.OIDC.RedirectURL == "" {
		o := *cfg.OIDC
		o.RedirectURL = "http://" + srv.Listener.Addr().String() + CallbackPath
		cfg.OIDC = &o
	}
	ch, err := New(cfg, br, Options{Lister: br.Store, Loopback: loopback, Logger: quiet, Location: time.UTC,
		Sessions: br.Store.(broker.Sessions), People: dir})
	if err != nil {
		srv.Close()
		t.Fatalf("new web channel: %v", err)
	}
	br.Start(ch)
	srv.Config.Handler = ch.Handler()
	srv.Start()
	t.Cleanup(func() { ch.Close(); srv.Close() })
	return &env{b: br.Broker, st: br.Store, ch: ch, srv: srv, url: srv.URL + "/"}
}

// stateAs reads GET /inbox/state with cookies and returns its status
// and body.
func stateAs(t *testing.T, c *http.Client, base string, cookies ...*http.Cookie) (int, state) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/inbox/state", nil)
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st state
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatalf("GET /inbox/state: %v", err)
	}
	return res.StatusCode, st
}

// answerAs answers q's first option with cookie c and returns who the
// broker recorded.
func answerAs(t *testing.T, e *env, c *http.Cookie) *broker.Responder {
	t.Helper()
	q := e.ask(t, &broker.AskRequest{Question: "Ship it?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	res, r := post(t, e.srv.URL+"/inbox/command", e.srv.URL, "application/json", `{"text":"`+broker.FormatOption(q.Ref(0), 0)+`"}`, c)
	if res.StatusCode != 200 || !r.OK {
		t.Fatalf("answer: %d %+v", res.StatusCode, r)
	}
	return e.get(t, q.ID).AnsweredBy
}

// TestPersonTokens: each person's own token signs that person in; the
// session remembers the person on every instance; the inbound action is
// the person's web account; the shared token is the user "web", no
// person; a cookie edited to name another person signs nobody in; and a
// new token for one person ends that person's sessions only.
func TestPersonTokens(t *testing.T) {
	setTeamTokens(t)
	cfg := Config{TokenEnv: "TEST_SHARED_TOKEN"}
	e := newPeopleEnv(t, cfg, false, team())
	self := e.srv.URL

	if s, st := stateAs(t, http.DefaultClient, self); s != http.StatusUnauthorized || !st.Login || !st.Tokens || st.SSO != "" {
		t.Fatalf("before sign-in: %d %+v, want 401 offering tokens and no single sign-on", s, st)
	}
	res, r := post(t, self+"/inbox/login", self, "application/json", `{"token":"`+anaToken+`"}`)
	if res.StatusCode != 200 || r.Reply != "Signed in as Ana Lima" || len(res.Cookies()) != 1 {
		t.Fatalf("ana's token: %d %+v", res.StatusCode, r)
	}
	ana := res.Cookies()[0]
	if !strings.HasPrefix(ana.Value, "ana.t.") || strings.Contains(ana.Value, anaToken) {
		t.Fatalf("ana's cookie %q: want ana.t.<random>, without the token", ana.Value)
	}
	bob, shared := login(t, self, bobToken), login(t, self, sharedToken)

	for _, tc := range []struct {
		name           string
		cookie         *http.Cookie
		user, person   string
		recordedUser   string
		recordedPerson string
	}{
		{"ana", ana, "Ana Lima", "ana", "ana", "ana"},
		{"bob, who has no display name", bob, "bob", "bob", "bob", "bob"},
		{"the shared token", shared, "web", "", "web", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, st := stateAs(t, http.DefaultClient, self, tc.cookie)
			if s != 200 || st.User != tc.user || st.Person != tc.person || !st.Signout {
				t.Fatalf("state: %d user %q person %q signout %v, want %q %q", s, st.User, st.Person, st.Signout, tc.user, tc.person)
			}
			by := answerAs(t, e, tc.cookie)
			if by == nil || by.Channel != Name || by.User != tc.recordedUser || by.Name != tc.user {
				t.Fatalf("answered_by %+v, want web/%s named %q", by, tc.recordedUser, tc.user)
			}
			if got := by.Person; (got == nil) != (tc.recordedPerson == "") || (got != nil && got.ID != tc.recordedPerson) {
				t.Fatalf("answered_by.person %+v, want %q", by.Person, tc.recordedPerson)
			}
		})
	}

	t.Run("edited cookies sign nobody in", func(t *testing.T) {
		rest := strings.TrimPrefix(ana.Value, "ana.")
		for _, v := range []string{
			"bob." + rest, // another person, ana's digest
			"ana.s." + strings.TrimPrefix(rest, "t."), // another kind
			"ana.o." + strings.TrimPrefix(rest, "t."), // single sign-on, not configured
			"~.t." + strings.TrimPrefix(rest, "t."),   // nobody
			"zoe.t." + strings.TrimPrefix(rest, "t."), // a person who is not listed
			strings.TrimPrefix(rest, "t."),            // the random part alone
			ana.Value + "x",
			"",
		} {
			if s, _ := stateAs(t, http.DefaultClient, self, &http.Cookie{Name: cookieName, Value: v}); s != http.StatusUnauthorized {
				t.Errorf("cookie %q: %d, want 401", v, s)
			}
		}
	})

	t.Run("another instance, and a new token for ana", func(t *testing.T) {
		dir, _ := broker.NewPeople(team(), nil)
		other := func() string {
			ch, err := New(cfg, e.b, Options{Lister: e.st, Logger: quiet, Sessions: e.st.(broker.Sessions), People: dir})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(ch.Handler())
			t.Cleanup(func() { ch.Close(); srv.Close() })
			return srv.URL
		}
		same := other()
		for _, c := range []*http.Cookie{ana, bob, shared} {
			if s, _ := stateAs(t, http.DefaultClient, same, c); s != 200 {
				t.Fatalf("another instance refuses %s: %d", c.Value[:4], s)
			}
		}
		t.Setenv("TEST_ANA_TOKEN", anaToken+"-new")
		rotated := other()
		if s, _ := stateAs(t, http.DefaultClient, rotated, ana); s != http.StatusUnauthorized {
			t.Fatalf("ana's session outlived her token: %d", s)
		}
		for _, c := range []*http.Cookie{bob, shared} {
			if s, st := stateAs(t, http.DefaultClient, rotated, c); s != 200 {
				t.Fatalf("a new token for ana ended %q's session: %d", st.User, s)
			}
		}
		if res, r := post(t, rotated+"/inbox/login", rotated, "application/json", `{"token":"`+anaToken+`"}`); res.StatusCode != http.StatusUnauthorized || !strings.Contains(r.Reply, "Wrong token") {
			t.Fatalf("ana's old token: %d %+v, want 401 Wrong token", res.StatusCode, r)
		}
	})

	t.Run("signing out ends that session only", func(t *testing.T) {
		if res, _ := post(t, self+"/inbox/logout", self, "application/json", `{}`, bob); res.StatusCode != 200 {
			t.Fatalf("logout: %d", res.StatusCode)
		}
		if s, _ := stateAs(t, http.DefaultClient, self, bob); s != http.StatusUnauthorized {
			t.Fatalf("bob's cookie after sign-out: %d", s)
		}
		if s, _ := stateAs(t, http.DefaultClient, self, ana); s != 200 {
			t.Fatalf("bob signing out ended ana's session: %d", s)
		}
	})
}

// TestTokenPerson: with token_person the shared token signs that person
// in; naming another person later ends those sessions.
func TestTokenPerson(t *testing.T) {
	setTeamTokens(t)
	people := []broker.Person{{ID: "ana", Name: "Ana Lima"}, {ID: "bob"}}
	e := newPeopleEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN", TokenPerson: "ana"}, false, people)
	c := login(t, e.srv.URL, sharedToken)
	if !strings.HasPrefix(c.Value, "ana.s.") {
		t.Fatalf("cookie %q, want ana.s.<random>", c.Value)
	}
	if s, st := stateAs(t, http.DefaultClient, e.srv.URL, c); s != 200 || st.User != "Ana Lima" || st.Person != "ana" {
		t.Fatalf("state: %d %+v", s, st)
	}
	if by := answerAs(t, e, c); by.User != "ana" || by.Person == nil || by.Person.ID != "ana" {
		t.Fatalf("answered_by %+v, want ana", by)
	}

	dir, _ := broker.NewPeople(people, nil)
	ch, err := New(Config{TokenEnv: "TEST_SHARED_TOKEN", TokenPerson: "bob"}, e.b, Options{Lister: e.st, Logger: quiet, Sessions: e.st.(broker.Sessions), People: dir})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })
	if s, _ := stateAs(t, http.DefaultClient, srv.URL, c); s != http.StatusUnauthorized {
		t.Fatalf("ana's session after token_person became bob: %d, want 401", s)
	}
}

// TestLoopbackWithPeople: on loopback, people with tokens make the page
// ask to sign in; without any way to sign in it stays open as "local".
func TestLoopbackWithPeople(t *testing.T) {
	setTeamTokens(t)
	e := newPeopleEnv(t, Config{}, true, team())
	if s, st := stateAs(t, http.DefaultClient, e.srv.URL); s != http.StatusUnauthorized || !st.Tokens {
		t.Fatalf("loopback with people's tokens: %d %+v, want 401 asking for a token", s, st)
	}
	open := newPeopleEnv(t, Config{}, true, []broker.Person{{ID: "ana"}})
	if s, st := stateAs(t, http.DefaultClient, open.srv.URL); s != 200 || st.User != "local" || st.Person != "" || st.Signout {
		t.Fatalf("loopback without tokens: %d %+v, want the open page as local", s, st)
	}
}

// TestValidatePeople: every problem of the people's sign-in is reported,
// each naming its key and variable and never the token.
func TestValidatePeople(t *testing.T) {
	setTeamTokens(t)
	t.Setenv("TEST_SHORT_TOKEN", "short-1")
	t.Setenv("TEST_EMPTY_TOKEN", "")
	t.Setenv("TEST_AS_ANA", anaToken)
	t.Setenv("TEST_OIDC_SECRET", "a-client-secret")
	oidcOn := &OIDCConfig{Issuer: "https://idp.example.com", ClientID: "askbridge", ClientSecretEnv: "TEST_OIDC_SECRET", RedirectURL: "https://bridge.example.com" + CallbackPath}
	withSecret := func(env string) *OIDCConfig { o := *oidcOn; o.ClientSecretEnv = env; return &o }
	p := func(id, env, email string) broker.Person {
		return broker.Person{ID: id, WebTokenEnv: env, Email: email}
	}
	tests := []struct {
		name    string
		cfg     Config
		people  []broker.Person
		exposed bool
		want    []string // every one must appear; none means valid
		unset   bool     // the problem is an unset variable
	}{
		{"own tokens", Config{TokenEnv: "TEST_SHARED_TOKEN"}, team(), true, nil, false},
		{"no people", Config{TokenEnv: "TEST_SHARED_TOKEN"}, nil, true, nil, false},
		{"unset variable", Config{}, []broker.Person{p("ana", "TEST_MISSING_TOKEN", "")}, false,
			[]string{"people[0].web_token_env: environment variable TEST_MISSING_TOKEN is not set"}, true},
		{"empty variable", Config{}, []broker.Person{p("ana", "TEST_EMPTY_TOKEN", "")}, false,
			[]string{"people[0].web_token_env: environment variable TEST_EMPTY_TOKEN is not set"}, true},
		{"value instead of a name", Config{}, []broker.Person{p("ana", "abc def", "")}, false,
			[]string{`people[0].web_token_env: "abc def" must be the name of an environment variable`}, false},
		{"short token exposed", Config{}, []broker.Person{p("ana", "TEST_ANA_TOKEN", ""), p("bob", "TEST_SHORT_TOKEN", "")}, true,
			[]string{"people[1].web_token_env: the token in TEST_SHORT_TOKEN has 7 characters; a bridge reachable beyond loopback needs at least 16"}, false},
		{"short token on loopback", Config{}, []broker.Person{p("bob", "TEST_SHORT_TOKEN", "")}, false, nil, false},
		{"two people, one token", Config{}, []broker.Person{p("ana", "TEST_ANA_TOKEN", ""), p("bob", "TEST_AS_ANA", "")}, false,
			[]string{"people[1].web_token_env: the token of bob in TEST_AS_ANA is the same as the token of ana in TEST_ANA_TOKEN (people[0].web_token_env)"}, false},
		{"a person holds the shared token", Config{TokenEnv: "TEST_AS_ANA"}, []broker.Person{p("ana", "TEST_ANA_TOKEN", "")}, false,
			[]string{"people[0].web_token_env: the token of ana in TEST_ANA_TOKEN is the same as the shared token in TEST_AS_ANA (channels.web.token_env)"}, false},
		{"token_person unknown", Config{TokenEnv: "TEST_SHARED_TOKEN", TokenPerson: "zoe"}, team(), false,
			[]string{`channels.web.token_person: "zoe" is not a person listed under people`}, false},
		{"a person is the shared user", Config{TokenEnv: "TEST_SHARED_TOKEN"}, []broker.Person{{ID: "web"}}, false,
			[]string{`people[0].id: "web" is also the user the web inbox's shared token signs in as`}, false},
		{"a person is the shared user, named", Config{TokenEnv: "TEST_SHARED_TOKEN", Name: "ops"}, []broker.Person{{ID: "ops"}}, false,
			[]string{`people[0].id: "ops" is also the user`}, false},
		{"token_person is the shared user", Config{TokenEnv: "TEST_SHARED_TOKEN", TokenPerson: "web"}, []broker.Person{{ID: "web"}}, false, nil, false},
		{"a person is the open page's user", Config{}, []broker.Person{{ID: "local"}}, false,
			[]string{`people[0].id: "local" is also the user the open web inbox records answers as`}, false},
		{"oidc", Config{OIDC: oidcOn}, team(), true, nil, false},
		{"oidc section left empty", Config{OIDC: &OIDCConfig{}}, []broker.Person{p("ana", "TEST_ANA_TOKEN", "")}, true, nil, false},
		{"oidc secret unset", Config{OIDC: withSecret("TEST_MISSING_SECRET")}, team(), true,
			[]string{"channels.web.oidc.client_secret_env: environment variable TEST_MISSING_SECRET is not set"}, true},
		{"oidc, not an email", Config{OIDC: oidcOn}, []broker.Person{p("ana", "", "ana at example.com"), p("bob", "", "Bob <bob@example.com>"), p("cy", "", "cy@example.com")}, false,
			[]string{`people[0].email: "ana at example.com" is not an email address`, `people[1].email: "Bob <bob@example.com>" is not an email address`}, false},
		{"oidc, one email twice", Config{OIDC: oidcOn}, []broker.Person{p("ana", "", "ana@example.com"), p("bob", "", "ANA@example.com")}, false,
			[]string{`people[1].email: "ANA@example.com" is also the email of people[0] (ana)`}, false},
		{"oidc, no emails", Config{OIDC: oidcOn}, []broker.Person{p("ana", "TEST_ANA_TOKEN", "")}, false,
			[]string{"channels.web.oidc: no person has an email"}, false},
		{"every problem at once", Config{TokenEnv: "TEST_SHARED_TOKEN", TokenPerson: "zoe"}, []broker.Person{p("ana", "TEST_MISSING_TOKEN", ""), p("bob", "TEST_SHORT_TOKEN", "")}, true,
			[]string{"people[0].web_token_env: environment variable TEST_MISSING_TOKEN", "people[1].web_token_env: the token in TEST_SHORT_TOKEN", "channels.web.token_person"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidatePeople(tc.cfg, tc.people, tc.exposed)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, secret := range []string{anaToken, sharedToken, "short-1", "a-client-secret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows a secret: %q", err)
				}
			}
			var unset *config.UnsetEnvError
			if errors.As(err, &unset) != tc.unset {
				t.Errorf("unset variable error: %v, want %v", errors.As(err, &unset), tc.unset)
			}
		})
	}
}

// TestNewRefusesPeopleProblems: New refuses what ValidatePeople refuses,
// and builds nothing.
func TestNewRefusesPeopleProblems(t *testing.T) {
	setTeamTokens(t)
	t.Setenv("TEST_AS_ANA", anaToken)
	for name, people := range map[string][]broker.Person{
		"unset":      {{ID: "ana", WebTokenEnv: "TEST_MISSING_TOKEN"}},
		"shared one": {{ID: "ana", WebTokenEnv: "TEST_ANA_TOKEN"}, {ID: "bob", WebTokenEnv: "TEST_AS_ANA"}},
	} {
		t.Run(name, func(t *testing.T) {
			dir, err := broker.NewPeople(people, nil)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet, Sessions: sqlitetest.OpenStore(t), People: dir})
			if err == nil || ch != nil || !strings.Contains(err.Error(), "people[") {
				t.Fatalf("New: %v, %v; want no channel and an error naming the person", ch, err)
			}
		})
	}
}

// TestConfigSignIn: the shape of token_person and oidc is checked with
// the section, naming the key.
func TestConfigSignIn(t *testing.T) {
	good := OIDCConfig{Issuer: "https://accounts.google.com", ClientID: "123.apps.googleusercontent.com", ClientSecretEnv: "ASKBRIDGE_OIDC_SECRET", RedirectURL: "https://bridge.example.com/inbox/oidc/callback"}
	with := func(f func(o *OIDCConfig)) *OIDCConfig { o := good; f(&o); return &o }
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"oidc", Config{OIDC: &good}, ""},
		{"oidc with every key empty is off", Config{OIDC: &OIDCConfig{}}, ""},
		{"oidc on localhost", Config{OIDC: with(func(o *OIDCConfig) {
			o.Issuer, o.RedirectURL = "http://127.0.0.1:8080/realms/team", "http://localhost:8377/inbox/oidc/callback"
		})}, ""},
		{"token_person", Config{TokenEnv: "X", TokenPerson: "ana"}, ""},
		{"token_person without the shared token", Config{TokenPerson: "ana"}, `token_person "ana" needs token_env`},
		{"token_person and name", Config{TokenEnv: "X", TokenPerson: "ana", Name: "ops"}, `name "ops" and token_person "ana" are both set`},
		{"token_person with spaces", Config{TokenEnv: "X", TokenPerson: "ana lima"}, "token_person"},
		{"issuer missing", Config{OIDC: with(func(o *OIDCConfig) { o.Issuer = "" })}, "oidc.issuer"},
		{"issuer over http", Config{OIDC: with(func(o *OIDCConfig) { o.Issuer = "http://idp.example.com" })}, "oidc.issuer \"http://idp.example.com\" must use https"},
		{"issuer with a query", Config{OIDC: with(func(o *OIDCConfig) { o.Issuer = "https://idp.example.com/?a=1" })}, "must not carry a query"},
		{"client_id missing", Config{OIDC: with(func(o *OIDCConfig) { o.ClientID = "" })}, "oidc.client_id"},
		{"client_secret_env missing", Config{OIDC: with(func(o *OIDCConfig) { o.ClientSecretEnv = "" })}, "oidc.client_secret_env: name the environment variable"},
		{"client secret inline", Config{OIDC: with(func(o *OIDCConfig) { o.ClientSecretEnv = "GOCSPX-abc def" })}, "must be the name of an environment variable"},
		{"redirect_url elsewhere", Config{OIDC: with(func(o *OIDCConfig) { o.RedirectURL = "https://bridge.example.com/callback" })}, "must end in /inbox/oidc/callback"},
		{"redirect_url relative", Config{OIDC: with(func(o *OIDCConfig) { o.RedirectURL = "/inbox/oidc/callback" })}, "oidc.redirect_url \"/inbox/oidc/callback\" is not an absolute URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want one saying %q", err, tc.err)
			}
		})
	}
}

package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// The rules the tests make: a prefix rule for one project, and an exact
// command holding markup, an ampersand and both quotes, for every
// project.
var (
	npmRule  = broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", Project: "/home/ana/app"}
	grepRule = broker.Rule{Tool: "Bash", Kind: broker.RuleExact, Pattern: `grep -c "<main>" a.txt && echo 'ok & done' > /dev/null`}
)

const rulesAgentKey = "rules-agent-key-0123456789"

// rulesEnv is a bridge with the web inbox (people sign in with their own
// tokens) keeping the broker's rules, and the API beside it, where the
// agent "agent" makes and lists rules with its key.
type rulesEnv struct {
	*env
	api string
}

func newRulesEnv(t *testing.T) *rulesEnv { return newRulesEnvOf(t, team()) }

// newRulesEnvOf is newRulesEnv with people in place of team().
func newRulesEnvOf(t *testing.T, people []broker.Person) *rulesEnv {
	t.Helper()
	setTeamTokens(t)
	dir, err := broker.NewPeople(people, nil)
	if err != nil {
		t.Fatal(err)
	}
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}}}},
		func(c *broker.Config) {
			c.ReminderPoints, c.Location, c.Logger, c.People = []float64{}, time.UTC, quiet, dir
		})
	ch, err := New(Config{}, br, Options{Lister: br.Store, Logger: quiet, Location: time.UTC,
		Sessions: br.Store.(broker.Sessions), People: dir, Rules: br.Broker})
	if err != nil {
		t.Fatalf("new web channel: %v", err)
	}
	br.Start(ch)
	srv := httptest.NewServer(ch.Handler())
	a := api.New(api.Config{Loopback: true, AgentKeys: []api.Key{{Name: "agent", Secret: rulesAgentKey}}, Logger: slog.New(slog.DiscardHandler)}, br.Broker, br.Store)
	as := httptest.NewServer(a)
	t.Cleanup(func() {
		a.Drain()
		as.Close()
		ch.Close()
		srv.Close()
	})
	return &rulesEnv{env: &env{b: br.Broker, st: br.Store, ch: ch, srv: srv, url: srv.URL + "/"}, api: as.URL}
}

// makeRule makes offer a rule as a person does: the agent asks its
// permission question offering it, Ana picks "Always allow" in the
// inbox, and the agent stores the rule with POST /v1/rules.
func (e *rulesEnv) makeRule(t *testing.T, offer broker.Rule) broker.Rule {
	t.Helper()
	q := e.ask(t, &broker.AskRequest{
		Question: "Allow Bash?\n" + offer.Pattern,
		Options:  []broker.Option{opt("Allow once", ""), {Label: broker.RuleOfferLabel(offer), Description: broker.RuleOfferText(offer)}, opt("Deny", "")},
	})
	rep := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "ana", Name: "Ana Lima", Text: broker.FormatOption(q.Ref(0), 1)})
	if !rep.OK {
		t.Fatalf("answer Always allow: %s", rep.Text)
	}
	req := broker.RuleRequest{QuestionID: q.ID, Tool: offer.Tool, Kind: offer.Kind, Pattern: offer.Pattern, Project: offer.Project, Reason: "asked every build"}
	status, body := e.call(t, http.MethodPost, "/v1/rules", req)
	if status != http.StatusCreated {
		t.Fatalf("POST /v1/rules: %d %s", status, body)
	}
	var made struct{ Rule broker.Rule }
	if err := json.Unmarshal(body, &made); err != nil {
		t.Fatal(err)
	}
	return made.Rule
}

// call calls the API as the agent.
func (e *rulesEnv) call(t *testing.T, method, path string, v any) (int, []byte) {
	t.Helper()
	var body io.Reader
	if v != nil {
		b, _ := json.Marshal(v)
		body = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, e.api+path, body)
	req.Header.Set("Authorization", "Bearer "+rulesAgentKey)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// apiRules lists the rules as GET /v1/rules does (?revoked=true adds the
// revoked ones).
func (e *rulesEnv) apiRules(t *testing.T, revoked bool) []broker.Rule {
	t.Helper()
	status, body := e.call(t, http.MethodGet, "/v1/rules?revoked="+strconv.FormatBool(revoked), nil)
	if status != http.StatusOK {
		t.Fatalf("GET /v1/rules: %d %s", status, body)
	}
	var got struct{ Rules []broker.Rule }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	return got.Rules
}

// ids lists the rules' ids.
func ids(rules []broker.Rule) []int64 {
	out := []int64{}
	for _, r := range rules {
		out = append(out, r.ID)
	}
	return out
}

// send makes a request to the inbox without following redirects, and
// returns the status, the Location and the body.
func send(t *testing.T, method, url string, header http.Header, body string, cookies ...*http.Cookie) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

var form = http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

// TestRulesPageHTTP checks the Rules page as any HTTP client sees it:
// without sign-in it shows and revokes nothing; a cross-site post, a
// post that is no form, an unknown rule and a second revocation are
// refused with a message naming the problem and change nothing; a
// revocation by a signed-in person is theirs in the record, as the API
// reports it.
func TestRulesPageHTTP(t *testing.T) {
	e := newRulesEnv(t)
	npm, grep := e.makeRule(t, npmRule), e.makeRule(t, grepRule)
	base := strings.TrimSuffix(e.url, "/")
	ana := login(t, base, anaToken)
	revoke := base + "/rules/" + strconv.FormatInt(npm.ID, 10) + "/revoke"
	before := e.apiRules(t, true)

	for _, tc := range []struct {
		name, method, url string
		header            http.Header
		signedIn          bool
		status            int
		want              string
	}{
		{"page without sign-in", http.MethodGet, base + "/rules", nil, false, 401, "Sign in to the inbox first"},
		{"revoke without sign-in", http.MethodPost, revoke, form, false, 401, "Nothing was revoked."},
		{"revoke with a wrong cookie", http.MethodPost, revoke, form, false, 401, "Sign in to the inbox first"},
		{"cross-site post", http.MethodPost, revoke, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}}, true, 403, "came from another site"},
		{"other origin", http.MethodPost, revoke, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Origin": {"https://evil.example"}}, true, 403, "came from another site"},
		{"not a form", http.MethodPost, revoke, http.Header{"Content-Type": {"application/json"}}, true, 415, "post the Rules page&#39;s form"},
		{"unknown rule", http.MethodPost, base + "/rules/77/revoke", form, true, 404, `There is no rule &#34;77&#34;: nothing was revoked.`},
		{"not a rule id", http.MethodPost, base + "/rules/abc/revoke", form, true, 404, `There is no rule &#34;abc&#34;: nothing was revoked.`},
		{"confirm an unknown rule", http.MethodGet, base + "/rules?revoke=77", nil, true, 404, `There is no rule &#34;77&#34;: nothing to revoke.`},
		{"a link cannot revoke", http.MethodGet, revoke, nil, true, 405, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cookies []*http.Cookie
			switch {
			case tc.signedIn:
				cookies = append(cookies, ana)
			case strings.Contains(tc.name, "wrong cookie"):
				cookies = append(cookies, &http.Cookie{Name: cookieName, Value: "ana.t." + strings.Repeat("A", 43)})
			}
			status, _, body := send(t, tc.method, tc.url, tc.header, "", cookies...)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Fatalf("%d %q, want %d with %q", status, body, tc.status, tc.want)
			}
			if !tc.signedIn && strings.Contains(body, "npm test") {
				t.Fatalf("the page shows a rule before sign-in: %q", body)
			}
			if after := e.apiRules(t, true); !reflect.DeepEqual(after, before) {
				t.Fatalf("the rules changed:\n%+v\nwant\n%+v", after, before)
			}
		})
	}

	status, loc, body := send(t, http.MethodPost, revoke, form, "", ana)
	want := "/rules?revoked=" + strconv.FormatInt(npm.ID, 10) + "#notice"
	if status != http.StatusSeeOther || loc != want {
		t.Fatalf("revoke: %d to %q (%q), want 303 to %s", status, loc, body, want)
	}
	if got := ids(e.apiRules(t, false)); !reflect.DeepEqual(got, []int64{grep.ID}) {
		t.Fatalf("GET /v1/rules lists %v after the revocation, want only %d", got, grep.ID)
	}
	var revoked *broker.Rule
	for _, r := range e.apiRules(t, true) {
		if r.ID == npm.ID {
			revoked = &r
		}
	}
	if revoked == nil || revoked.Revoked == nil || revoked.RevokedBy == nil {
		t.Fatalf("rule %d after the revocation: %+v", npm.ID, revoked)
	}
	if by := *revoked.RevokedBy; by.Channel != Name || by.User != "ana" || by.Name != "Ana Lima" || by.Person == nil || by.Person.ID != "ana" || by.Person.Name != "Ana Lima" {
		t.Fatalf("revoked_by %+v, want Ana in the web inbox", by)
	}
	status, _, body = send(t, http.MethodGet, base+loc, nil, "", ana)
	if status != 200 || !strings.Contains(body, "Rule "+strconv.FormatInt(npm.ID, 10)+" is revoked, by Ana Lima (web inbox)") {
		t.Fatalf("the page after the revocation: %d %q", status, body)
	}

	// A second revocation, by the page or its confirmation, changes
	// nothing and says who revoked it first.
	before = e.apiRules(t, true)
	for _, tc := range []struct{ method, url string }{{http.MethodPost, revoke}, {http.MethodGet, base + "/rules?revoke=" + strconv.FormatInt(npm.ID, 10)}} {
		status, _, body = send(t, tc.method, tc.url, form, "", ana)
		if status != http.StatusConflict || !strings.Contains(body, "was already revoked by Ana Lima (web inbox) at ") || !strings.Contains(body, "nothing changed") {
			t.Fatalf("%s %s again: %d %q", tc.method, tc.url, status, body)
		}
	}
	if after := e.apiRules(t, true); !reflect.DeepEqual(after, before) {
		t.Fatalf("the second revocation changed the rules:\n%+v\nwant\n%+v", after, before)
	}
}

package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// post sends a POST to the inbox as a browser on origin would.
func post(t *testing.T, url, origin, contentType, body string, cookies ...*http.Cookie) (*http.Response, reply) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r reply
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatalf("POST %s: response is not JSON: %v", url, err)
	}
	return res, r
}

func TestCommandGuards(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	cmd := `{"text":"` + broker.FormatOption(q.Ref(0), 0) + `"}`
	self := e.srv.URL
	tests := []struct {
		name, origin, site, ctype, body string
		status                          int
		says                            string
	}{
		{"cross-site origin", "http://evil.example", "", "application/json", cmd, 403, "another site"},
		{"cross-site fetch metadata", "", "cross-site", "application/json", cmd, 403, "another site"},
		{"same-site other port", "", "same-site", "application/json", cmd, 403, "another site"},
		{"form post", self, "", "text/plain", cmd, 415, "application/json"},
		{"no content type", self, "", "", cmd, 415, "application/json"},
		{"not JSON", self, "", "application/json", `/answer x 1`, 400, "Refused: the request body is not valid JSON"},
		{"unknown field", self, "", "application/json", `{"text":"/pending","user":"boss"}`, 400, "Refused: unknown field user"},
		{"text not a string", self, "", "application/json", `{"text":5}`, 400, "Refused: text: must be a string, got the number 5"},
		{"empty command", self, "", "application/json", `{"text":"  "}`, 400, "Type a command"},
		{"too long", self, "", "application/json", `{"text":"` + strings.Repeat("a", maxCommandLen+1) + `"}`, 400, "too long"},
		{"too large", self, "", "application/json", `{"text":"` + strings.Repeat("a", maxBody) + `"}`, 400, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, self+"/inbox/command", strings.NewReader(tc.body))
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var r reply
			_ = json.NewDecoder(res.Body).Decode(&r)
			if res.StatusCode != tc.status || r.OK || !strings.Contains(r.Reply, tc.says) {
				t.Fatalf("got %d %+v, want %d saying %q", res.StatusCode, r, tc.status, tc.says)
			}
			if now := e.get(t, q.ID); now.Status != broker.StatusPending {
				t.Fatalf("refused request changed the question to %s", now.Status)
			}
		})
	}
	t.Run("same origin is accepted", func(t *testing.T) {
		res, r := post(t, self+"/inbox/command", self, "application/json; charset=utf-8", cmd)
		if res.StatusCode != 200 || !r.OK || r.Reply != "Recorded: Yes" {
			t.Fatalf("got %d %+v, want 200 Recorded: Yes", res.StatusCode, r)
		}
	})
	t.Run("not a command", func(t *testing.T) {
		_, r := post(t, self+"/inbox/command", self, "application/json", `{"text":"hello there"}`)
		if r.OK || r.Reply == "" {
			t.Fatalf("got %+v, want an explanation", r)
		}
	})
}

func TestLogin(t *testing.T) {
	const token = "a-long-enough-web-token-1234"
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", token)
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}, Options{Loopback: false})
	q := e.ask(t, &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	self := e.srv.URL

	for _, path := range []string{"/inbox/state", "/inbox/events"} {
		res, err := http.Get(self + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("GET %s without a session: %d, want 401", path, res.StatusCode)
		}
	}
	res, r := post(t, self+"/inbox/command", self, "application/json", `{"text":"`+broker.FormatOption(q.Ref(0), 0)+`"}`)
	if res.StatusCode != http.StatusUnauthorized || !r.Login {
		t.Fatalf("command without a session: %d %+v, want 401 asking to sign in", res.StatusCode, r)
	}
	forged := &http.Cookie{Name: cookieName, Value: token}
	if res, _ := post(t, self+"/inbox/command", self, "application/json", `{"text":"/pending"}`, forged); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the token itself as cookie: %d, want 401", res.StatusCode)
	}

	res, r = post(t, self+"/inbox/login", self, "application/json", `{"token":"wrong-token-wrong-token"}`)
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(r.Reply, "Wrong token") || len(res.Cookies()) != 0 {
		t.Fatalf("wrong token: %d %+v cookies %v, want 401 Wrong token and no cookie", res.StatusCode, r, res.Cookies())
	}
	if res, _ := post(t, self+"/inbox/login", "http://evil.example", "application/json", `{"token":"`+token+`"}`); res.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site login: %d, want 403", res.StatusCode)
	}

	res, r = post(t, self+"/inbox/login", self, "application/json", `{"token":"`+token+`"}`)
	if res.StatusCode != 200 || !r.OK || len(res.Cookies()) != 1 {
		t.Fatalf("right token: %d %+v, want 200 and a cookie", res.StatusCode, r)
	}
	c := res.Cookies()[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || strings.Contains(c.Value, token) || c.Value == "" {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, without the token", c)
	}
	res, r = post(t, self+"/inbox/command", self, "application/json", `{"text":"`+broker.FormatOption(q.Ref(0), 1)+`"}`, c)
	if res.StatusCode != 200 || r.Reply != "Recorded: No" {
		t.Fatalf("command with the session: %d %+v", res.StatusCode, r)
	}
	if by := e.get(t, q.ID).AnsweredBy; by == nil || by.Name != "web" {
		t.Fatalf("answered_by %+v, want the default name web", by)
	}

	t.Run("guessing is throttled", func(t *testing.T) {
		var last *http.Response
		for range maxFailuresPerMinute + 1 {
			last, _ = post(t, self+"/inbox/login", self, "application/json", `{"token":"guess-guess-guess-guess"}`)
		}
		if last.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("after %d wrong tokens: %d, want 429", maxFailuresPerMinute+1, last.StatusCode)
		}
	})
}

func TestNew(t *testing.T) {
	t.Setenv("WEB_TOKEN_OK", "0123456789abcdef0123")
	t.Setenv("WEB_TOKEN_SHORT", "short")
	tests := []struct {
		name     string
		cfg      Config
		loopback bool
		err      string
		user     string
	}{
		{"loopback without token", Config{}, true, "", "local"},
		{"loopback with a name", Config{Name: "ana"}, true, "", "ana"},
		{"token", Config{TokenEnv: "WEB_TOKEN_OK"}, false, "", "web"},
		{"beyond loopback without token", Config{}, false, "needs a token", ""},
		{"token variable unset", Config{TokenEnv: "WEB_TOKEN_MISSING"}, true, "WEB_TOKEN_MISSING", ""},
		{"token too short", Config{TokenEnv: "WEB_TOKEN_SHORT"}, false, "too short", ""},
		{"token inline", Config{TokenEnv: "abc def"}, true, "token_env", ""},
		{"history negative", Config{History: -1}, true, "history", ""},
		{"history huge", Config{History: MaxHistory + 1}, true, "history", ""},
		{"name with spaces", Config{Name: " ana"}, true, "name", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := New(tc.cfg, nopHandler{}, Options{Lister: emptyLister{}, Loopback: tc.loopback, Logger: quiet, Sessions: sqlitetest.OpenStore(t)})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one mentioning %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ch.userName != tc.user || ch.Name() != "web" || ch.cfg.History != DefaultHistory {
				t.Fatalf("user %q name %q history %d", ch.userName, ch.Name(), ch.cfg.History)
			}
		})
	}
}

type nopHandler struct{}

func (nopHandler) HandleInbound(context.Context, broker.Inbound) broker.Reply { return broker.Reply{} }

// emptyLister is a store that has not listed anything yet (or failed).
type emptyLister struct{ err error }

func (l emptyLister) InboxPage(context.Context, broker.InboxQuery) (broker.InboxPage, error) {
	return broker.InboxPage{}, l.err
}

func TestPost(t *testing.T) {
	ch, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	q := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, Prompts: []broker.Prompt{{Question: "Q?"}}, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if _, err := ch.Post(context.Background(), q, "some-chat"); !errors.Is(err, broker.ErrPermanent) {
		t.Fatalf("post to a chat: %v, want a permanent error", err)
	}
	ref, err := ch.Post(context.Background(), q, "")
	if err != nil || ref.Channel != "web" || ref.Chat != "" || ref.MessageID != q.ID {
		t.Fatalf("post: %+v %v", ref, err)
	}
	// The page's state comes from the store alone, which records the
	// inbox's copy before Post (TestInProcessCopyIsListedBeforePost in
	// ./broker): the inbox keeps nothing of an open question.
	st, err := ch.state(context.Background(), nil, time.UTC, reader{})
	if err != nil || len(st.Open) != 0 || ch.endedLen() != 0 {
		t.Fatalf("state of an empty store after Post: %+v %v, %d ended", st, err, ch.endedLen())
	}
	ch.lister = emptyLister{err: broker.ErrUnavailable}
	if _, err := ch.state(context.Background(), nil, time.UTC, reader{}); !errors.Is(err, broker.ErrUnavailable) {
		t.Fatalf("state with the store down: %v", err)
	}
}

func TestEvents(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	e.ch.beat = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+"/inbox/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	lines := bufio.NewScanner(res.Body)
	next := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("stream ended before a line starting %q: %v", prefix, lines.Err())
		return ""
	}
	next(": heartbeat")
	q := e.ask(t, &broker.AskRequest{Question: "Which <b>region</b>?", Options: []broker.Option{opt("eu-west", ""), opt("us-east", "")}})
	next("event: question")
	var v view
	if err := json.Unmarshal([]byte(strings.TrimPrefix(next("data: "), "data: ")), &v); err != nil {
		t.Fatal(err)
	}
	if v.ID != q.ID || v.Prompts[0].Question != "Which <b>region</b>?" || v.Prompts[0].Options[1].Label != "us-east" {
		t.Fatalf("event %+v", v)
	}
	if _, cmd, _, err := (tap{Step: v.Prompts[0].Pick, Options: []int{2}}).command(); err != nil || cmd != broker.FormatOption(q.Ref(0), 1) {
		t.Fatalf("the event's form sends %q (%v), want %q", cmd, err, broker.FormatOption(q.Ref(0), 1))
	}
	e.ch.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatalf("stream did not end cleanly on Close: %v", err)
	}
}

func TestURL(t *testing.T) {
	ch := &Channel{}
	for addr, want := range map[string]string{
		"127.0.0.1:8377": "http://127.0.0.1:8377/",
		":8377":          "http://127.0.0.1:8377/",
		"0.0.0.0:8377":   "http://127.0.0.1:8377/",
		"[::1]:9000":     "http://[::1]:9000/",
		"inbox.lan:80":   "http://inbox.lan:80/",
	} {
		if got := ch.URL(addr); got != want {
			t.Errorf("URL(%q) = %q, want %q", addr, got, want)
		}
	}
}

func TestStaticFiles(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	tests := []struct {
		path   string
		status int
		ctype  string
	}{
		{"/", 200, "text/html"},
		{"/assets/inbox.js", 200, "text/javascript"},
		{"/assets/cards.js", 200, "text/javascript"},
		{"/assets/replies.js", 200, "text/javascript"},
		{"/assets/inbox.css", 200, "text/css"},
		{"/favicon.ico", 200, "image/svg+xml"},
		{"/assets/", 404, ""},
		{"/assets/missing.js", 404, ""},
		{"/elsewhere", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res, err := http.Get(e.srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.status || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.ctype) {
				t.Fatalf("%d %q, want %d %q", res.StatusCode, res.Header.Get("Content-Type"), tc.status, tc.ctype)
			}
			if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
				t.Fatalf("Content-Security-Policy %q", csp)
			}
		})
	}
}

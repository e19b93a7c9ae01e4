package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// downSessions is a session store that stops answering while down is set.
type downSessions struct {
	broker.Sessions
	down atomic.Bool
}

var errStoreDown = errors.New("store down")

func (s *downSessions) CreateSession(ctx context.Context, digest string, expires time.Time) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.Sessions.CreateSession(ctx, digest, expires)
}

func (s *downSessions) CheckSession(ctx context.Context, digest string, now time.Time) (bool, error) {
	if s.down.Load() {
		return false, errStoreDown
	}
	return s.Sessions.CheckSession(ctx, digest, now)
}

func (s *downSessions) DeleteSession(ctx context.Context, digest string) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.Sessions.DeleteSession(ctx, digest)
}

// Accept-Language headers of the readers in these tests.
const (
	acceptGerman  = "de-DE,de;q=0.9"
	acceptEnglish = "en-US,en;q=0.9"
)

// sendAs posts body to the inbox's path as a browser asking for accept,
// with cookie c (nil for none), and returns the status and reply.
func sendAs(t *testing.T, e *env, method, path, origin, contentType, body, accept string, c *http.Cookie) (int, reply) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept-Language", accept)
	if c != nil {
		req.AddCookie(c)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r reply
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return res.StatusCode, r
}

// TestRepliesInReadersLanguage: every reply of the inbox's endpoints is in
// the language of the inbox's own words: a browser asking for German reads
// German, as does Ana (locale de) in a browser asking for English; the
// pseudo-locale shows no word that is not from the catalog but what the
// reader sent and jsonerr's wording of a JSON error. English is as it was.
func TestRepliesInReadersLanguage(t *testing.T) {
	t.Setenv("TEST_ANA_TOKEN", anaToken)
	t.Setenv("TEST_BO_TOKEN", bobToken)
	t.Setenv("TEST_SHARED_TOKEN", sharedToken)
	dir, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Name: "Ana Lima", Locale: "de", WebTokenEnv: "TEST_ANA_TOKEN"},
		{ID: "bo", Name: "Bo Berg", WebTokenEnv: "TEST_BO_TOKEN"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sessions := &downSessions{Sessions: sqlitetest.OpenStore(t)}
	e := newEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN"}, Options{Sessions: sessions, People: dir})
	self := e.srv.URL
	q := e.ask(t, &broker.AskRequest{Question: "Ship it?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
	pick := broker.EncodeStep(broker.Step{Kind: broker.StepPick, Ref: q.Ref(0)})
	long := strings.Repeat("a", maxCommandLen+1)
	const jsonErr = "text: must be a string, got the number 5"
	files := map[string][]byte{"shot.png": samplePNG}

	readers := []struct {
		name, accept string
		cookie       *http.Cookie
		// german is whether the reader reads German; else the pseudo-locale.
		german bool
	}{
		{"a browser asking for German", acceptGerman, login(t, self, sharedToken), true},
		{"Ana, locale de, in an English browser", acceptEnglish, login(t, self, anaToken), true},
		{"a pseudo-locale browser", i18n.Pseudo, login(t, self, sharedToken), false},
	}
	// Each case's reply, in English (as the tests of each endpoint assert
	// it) and German; keep is what the pseudo-locale leaves as sent.
	cases := []struct {
		name, path, origin, ctype, body string
		status                          int
		en, de, keep                    string
	}{
		{"another site", "/inbox/command", "https://evil.example", "application/json", `{"text":"/pending"}`, 403,
			"Refused: this request came from another site (only the inbox page itself may post here)",
			"Abgelehnt: Diese Anfrage kam von einer anderen Website (nur die Seite des Posteingangs selbst darf hierher senden)", ""},
		{"not JSON", "/inbox/command", self, "text/plain", `/pending`, 415,
			"Refused: send JSON with Content-Type: application/json",
			"Abgelehnt: Senden Sie JSON mit Content-Type: application/json", "Content-Type: application/json"},
		{"a JSON error", "/inbox/command", self, "application/json", `{"text":5}`, 400,
			"Refused: " + jsonErr, "Abgelehnt: " + jsonErr, jsonErr},
		{"too large", "/inbox/command", self, "application/json", `{"text":"` + strings.Repeat("a", maxBody) + `"}`, 400,
			"Refused: the request body is too large", "Abgelehnt: Der Inhalt der Anfrage ist zu groß", ""},
		{"nothing chosen", "/inbox/command", self, "application/json", tapBody(t, pick, nil, " ", nil), 400,
			"Refused: choose an option or type an answer first",
			"Abgelehnt: Wählen Sie zuerst eine Option oder geben Sie eine Antwort ein", ""},
		{"no command", "/inbox/command", self, "application/json", `{"text":"  "}`, 400,
			"Type a command, such as /answer k7m2qx 2", "Geben Sie einen Befehl ein, etwa /answer k7m2qx 2", "/answer k7m2qx 2"},
		{"a command too long", "/inbox/command", self, "application/json", `{"text":"` + long + `"}`, 400,
			"That command is too long or not valid text", "Dieser Befehl ist zu lang oder kein gültiger Text", ""},
		{"an answer without files", "/inbox/answer", self, "application/json", answerBody(t, "", q.ID, 0, nil), 400,
			"Choose a file to send, or send your answer as text",
			"Wählen Sie eine Datei zum Senden aus oder senden Sie Ihre Antwort als Text", ""},
		{"an answer too long", "/inbox/answer", self, "application/json", answerBody(t, long, q.ID, 0, files), 400,
			"That answer is too long or not valid text", "Diese Antwort ist zu lang oder kein gültiger Text", ""},
		{"files without a question", "/inbox/answer", self, "application/json", answerBody(t, "", "", 0, files), 400,
			"Refused: question: name the question the files answer",
			"Abgelehnt: question: Nennen Sie die Frage, die die Dateien beantworten", "question"},
		{"files for no prompt", "/inbox/answer", self, "application/json", answerBody(t, "", q.ID, 9, files), 400,
			"Refused: prompt: must be 1–4 (the question of a dialog), or 0",
			"Abgelehnt: prompt: muss 1–4 (die Frage eines Dialogs) oder 0 sein", "prompt"},
		{"no question to say under", "/inbox/say", self, "application/json", `{"text":"hi"}`, 400,
			"Refused: question: name the question you write under",
			"Abgelehnt: question: Nennen Sie die Frage, unter die Sie schreiben", "question"},
		{"nothing to say", "/inbox/say", self, "application/json", `{"question":"` + q.ID + `","text":" "}`, 400,
			"Type a message for the agent first", "Geben Sie zuerst eine Nachricht für den Agenten ein", ""},
		{"a message too long", "/inbox/say", self, "application/json", `{"question":"` + q.ID + `","text":"` + long + `"}`, 400,
			"That message is too long or not valid text", "Diese Nachricht ist zu lang oder kein gültiger Text", ""},
	}
	check := func(t *testing.T, german bool, status int, got reply, wantStatus int, en, de, keep string) {
		t.Helper()
		if status != wantStatus || got.OK && wantStatus != 200 {
			t.Fatalf("%d %+v; want %d", status, got, wantStatus)
		}
		if german {
			if got.Reply != de {
				t.Fatalf("reply %q\nwant %q", got.Reply, de)
			}
			return
		}
		if left := i18ntest.Untranslated(got.Reply, strings.Fields(keep)...); len(left) > 0 || got.Reply == en {
			t.Fatalf("reply %q: words not from the catalog %q", got.Reply, left)
		}
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					status, got := sendAs(t, e, http.MethodPost, tc.path, tc.origin, tc.ctype, tc.body, rd.accept, rd.cookie)
					check(t, rd.german, status, got, tc.status, tc.en, tc.de, tc.keep)
				})
			}
		})
	}
	// Nobody signed in reads the browser's language; the person a token
	// names reads theirs from the reply that signs them in.
	nobody := []struct {
		name, accept, path, body string
		status                   int
		en, de, keep             string
		german                   bool
	}{
		{"not signed in", acceptGerman, "/inbox/command", `{"text":"/pending"}`, 401,
			"Sign in with the web token first", "Melden Sie sich zuerst mit dem Web-Token an", "", true},
		{"not signed in, pseudo", i18n.Pseudo, "/inbox/command", `{"text":"/pending"}`, 401,
			"Sign in with the web token first", "", "", false},
		{"a wrong token", acceptGerman, "/inbox/login", `{"token":"wrong-wrong-wrong"}`, 401,
			"Wrong token: ask whoever runs the bridge for the web token",
			"Falsches Token: Fragen Sie den Betreiber der Bridge nach dem Web-Token", "", true},
		{"a wrong token, pseudo", i18n.Pseudo, "/inbox/login", `{"token":"wrong-wrong-wrong"}`, 401,
			"Wrong token: ask whoever runs the bridge for the web token", "", "", false},
		{"bo signs in", acceptGerman, "/inbox/login", `{"token":"` + bobToken + `"}`, 200,
			"Signed in as Bo Berg", "Angemeldet als Bo Berg", "", true},
		{"bo signs in, pseudo", i18n.Pseudo, "/inbox/login", `{"token":"` + bobToken + `"}`, 200,
			"Signed in as Bo Berg", "", "Bo Berg", false},
		{"ana signs in", acceptEnglish, "/inbox/login", `{"token":"` + anaToken + `"}`, 200,
			"Signed in as Ana Lima", "Angemeldet als Ana Lima", "", true},
		{"bo signs in in English", acceptEnglish, "/inbox/login", `{"token":"` + bobToken + `"}`, 200,
			"Signed in as Bo Berg", "Signed in as Bo Berg", "", true},
	}
	for _, tc := range nobody {
		t.Run(tc.name, func(t *testing.T) {
			status, got := sendAs(t, e, http.MethodPost, tc.path, self, "application/json", tc.body, tc.accept, nil)
			check(t, tc.german, status, got, tc.status, tc.en, tc.de, tc.keep)
		})
	}

	t.Run("signing out", func(t *testing.T) {
		for _, tc := range []struct {
			name, accept string
			cookie       *http.Cookie
		}{
			{"ana in an English browser", acceptEnglish, login(t, self, anaToken)},
			{"nobody in a German browser", acceptGerman, nil},
		} {
			if status, got := sendAs(t, e, http.MethodPost, "/inbox/logout", self, "application/json", `{}`, tc.accept, tc.cookie); status != 200 || got.Reply != "Abgemeldet" {
				t.Errorf("%s: %d %q, want 200 %q", tc.name, status, got.Reply, "Abgemeldet")
			}
		}
		status, got := sendAs(t, e, http.MethodPost, "/inbox/logout", self, "application/json", `{}`, i18n.Pseudo, nil)
		check(t, false, status, got, 200, "Signed out", "", "")
	})

	t.Run("the store not answering", func(t *testing.T) {
		shared, ana := login(t, self, sharedToken), login(t, self, anaToken)
		sessions.down.Store(true)
		defer sessions.down.Store(false)
		for _, tc := range []struct {
			name, accept, path, body string
			cookie                   *http.Cookie
			status                   int
			en, de                   string
		}{
			// The store cannot say who is signed in: the browser's language.
			{"checking a sign-in", acceptGerman, "/inbox/command", `{"text":"/pending"}`, shared, 503,
				"Cannot check your sign-in right now: the bridge's store is not answering; retrying",
				"Ihre Anmeldung kann gerade nicht geprüft werden: Der Speicher der Bridge antwortet nicht; neuer Versuch läuft"},
			{"reading the inbox", acceptGerman, "/inbox/state", "", shared, 503,
				"Cannot check your sign-in right now: the bridge's store is not answering; retrying",
				"Ihre Anmeldung kann gerade nicht geprüft werden: Der Speicher der Bridge antwortet nicht; neuer Versuch läuft"},
			{"signing out", acceptGerman, "/inbox/logout", `{}`, ana, 503,
				"Cannot sign you out right now: the bridge's store is not answering; try again shortly",
				"Sie können gerade nicht abgemeldet werden: Der Speicher der Bridge antwortet nicht; versuchen Sie es gleich noch einmal"},
			// The token names ana: her language.
			{"signing in", acceptEnglish, "/inbox/login", `{"token":"` + anaToken + `"}`, nil, 503,
				"Cannot sign you in right now: the bridge's store is not answering; try again shortly",
				"Sie können gerade nicht angemeldet werden: Der Speicher der Bridge antwortet nicht; versuchen Sie es gleich noch einmal"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				method := http.MethodPost
				if tc.body == "" {
					method = http.MethodGet
				}
				status, got := sendAs(t, e, method, tc.path, self, "application/json", tc.body, tc.accept, tc.cookie)
				check(t, true, status, got, tc.status, tc.en, tc.de, "")
				if tc.name == "signing in" {
					// Bo's token names nobody with a locale: the browser's.
					tc.body = `{"token":"` + bobToken + `"}`
				}
				status, got = sendAs(t, e, method, tc.path, self, "application/json", tc.body, i18n.Pseudo, tc.cookie)
				check(t, false, status, got, tc.status, tc.en, "", "")
				status, got = sendAs(t, e, method, tc.path, self, "application/json", tc.body, acceptEnglish, tc.cookie)
				if status != tc.status || got.Reply != tc.en {
					t.Fatalf("in English: %d %q, want %d %q", status, got.Reply, tc.status, tc.en)
				}
			})
		}
	})

	t.Run("too many wrong tokens", func(t *testing.T) {
		for range maxFailuresPerMinute + 1 {
			sendAs(t, e, http.MethodPost, "/inbox/login", self, "application/json", `{"token":"wrong-wrong-wrong"}`, acceptGerman, nil)
		}
		status, got := sendAs(t, e, http.MethodPost, "/inbox/login", self, "application/json", `{"token":"`+anaToken+`"}`, acceptGerman, nil)
		check(t, true, status, got, 429, "", "Zu viele falsche Tokens von Ihrer Adresse: Warten Sie eine Minute und versuchen Sie es dann erneut", "")
		status, got = sendAs(t, e, http.MethodPost, "/inbox/login", self, "application/json", `{"token":"`+anaToken+`"}`, i18n.Pseudo, nil)
		check(t, false, status, got, 429, "Too many wrong tokens from your address: wait a minute and try again", "", "")
	})
}

// TestNoTokenReplyLanguage: an inbox without tokens says so in its own
// language (channels.web.locale) before the browser's.
func TestNoTokenReplyLanguage(t *testing.T) {
	for _, tc := range []struct {
		name, inbox, accept, want string
	}{
		{"English", "", acceptEnglish, "This inbox needs no token"},
		{"a German browser", "", acceptGerman, "Dieser Posteingang braucht kein Token"},
		{"a German inbox, an English browser", "de", acceptEnglish, "Dieser Posteingang braucht kein Token"},
		{"a Japanese inbox, a German browser", "ja", acceptGerman, "この受信箱にトークンは不要です"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, Config{Language: languageOf(tc.inbox)}, Options{Loopback: true})
			status, got := sendAs(t, e, http.MethodPost, "/inbox/login", e.srv.URL, "application/json", `{"token":"x"}`, tc.accept, nil)
			if status != 200 || !got.OK || got.Reply != tc.want {
				t.Fatalf("%d %+v, want 200 %q", status, got, tc.want)
			}
		})
	}
}

// TestPushLimitReplyLanguage: a person with notifications on in as many
// devices as the bridge keeps is refused in their language.
func TestPushLimitReplyLanguage(t *testing.T) {
	e := newPushEnv(t, nil, false)
	ps := newPushService(t, "", "")
	for i := range broker.MaxPushSubscriptions {
		if err := e.ch.push.store.SavePushSubscription(context.Background(), ps.newDevice("local", "device "+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(subscribeBody(ps.newDevice("local", "one more")))
	body := string(b)
	for _, tc := range []struct {
		accept, want string
	}{
		{acceptEnglish, "Refused: you have notifications on in 20 devices already: remove one first"},
		{acceptGerman, "Abgelehnt: Sie haben Benachrichtigungen bereits auf 20 Geräten eingeschaltet: Entfernen Sie zuerst eines"},
	} {
		status, got := sendAs(t, e, http.MethodPost, "/inbox/push/subscriptions", e.srv.URL, "application/json", body, tc.accept, nil)
		if status != 400 || got.OK || got.Reply != tc.want {
			t.Errorf("%s: %d %+v, want 400 %q", tc.accept, status, got, tc.want)
		}
	}
	status, got := sendAs(t, e, http.MethodPost, "/inbox/push/subscriptions", e.srv.URL, "application/json", body, i18n.Pseudo, nil)
	if left := i18ntest.Untranslated(got.Reply); status != 400 || len(left) > 0 || !strings.Contains(got.Reply, "20") {
		t.Errorf("pseudo: %d %q: words not from the catalog %q", status, got.Reply, left)
	}
}

// TestNothingDoneReplyLanguage: when the broker says nothing of what it
// did with a command or a message to the agent, the inbox's own reply is
// in the reader's language.
func TestNothingDoneReplyLanguage(t *testing.T) {
	ch, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet, Sessions: sqlitetest.OpenStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })
	e := &env{ch: ch, srv: srv, url: srv.URL + "/"}
	for _, tc := range []struct {
		path, body, en, de string
	}{
		{"/inbox/command", `{"text":"/pending"}`,
			"Not a command. Use /answer <id> <choice>, /decline <id> [reason] or /pending",
			"Kein Befehl. Verwenden Sie /answer <ID> <Wahl>, /decline <ID> [Grund] oder /pending"},
		{"/inbox/say", `{"question":"k7m2qx","text":"hi"}`, "Nothing was sent", "Nichts wurde gesendet"},
		{"/inbox/answer", answerBody(t, "", "k7m2qx", 0, map[string][]byte{"shot.png": samplePNG}),
			"Not an answer. Use the Other box of a question to send files",
			"Keine Antwort. Senden Sie Dateien über das Feld „Andere Antwort oder Notiz“ einer Frage"},
	} {
		for accept, want := range map[string]string{acceptEnglish: tc.en, acceptGerman: tc.de} {
			if status, got := sendAs(t, e, http.MethodPost, tc.path, srv.URL, "application/json", tc.body, accept, nil); status != 200 || got.Reply != want {
				t.Errorf("%s in %s: %d %q, want 200 %q", tc.path, accept, status, got.Reply, want)
			}
		}
		status, got := sendAs(t, e, http.MethodPost, tc.path, srv.URL, "application/json", tc.body, i18n.Pseudo, nil)
		if left := i18ntest.Untranslated(got.Reply, "/answer", "/decline", "/pending"); status != 200 || len(left) > 0 || got.Reply == tc.en {
			t.Errorf("%s in the pseudo-locale: %d %q: words not from the catalog %q", tc.path, status, got.Reply, left)
		}
	}
}

// TestStoreReadReplyLanguage: an inbox whose question store cannot be
// read says so in the reader's language.
func TestStoreReadReplyLanguage(t *testing.T) {
	ch, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{err: errStoreDown}, Loopback: true, Logger: quiet, Sessions: sqlitetest.OpenStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })
	e := &env{ch: ch, srv: srv, url: srv.URL + "/"}
	const en = "The question store cannot be read right now; retrying"
	for accept, want := range map[string]string{acceptEnglish: en, acceptGerman: "Der Fragenspeicher kann gerade nicht gelesen werden; neuer Versuch läuft"} {
		if status, got := sendAs(t, e, http.MethodGet, "/inbox/state", "", "", "", accept, nil); status != 503 || got.Reply != want {
			t.Errorf("%s: %d %q, want 503 %q", accept, status, got.Reply, want)
		}
	}
	status, got := sendAs(t, e, http.MethodGet, "/inbox/state", "", "", "", i18n.Pseudo, nil)
	if left := i18ntest.Untranslated(got.Reply); status != 503 || len(left) > 0 || got.Reply == en {
		t.Errorf("pseudo: %d %q: words not from the catalog %q", status, got.Reply, left)
	}
}

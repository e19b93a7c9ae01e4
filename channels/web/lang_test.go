package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
)

// TestCardLanguage: the cards of /inbox/state and of the event stream are
// in the reader's language: the channel's locale first, else the page's
// ?lang=, else its Accept-Language, else English.
func TestCardLanguage(t *testing.T) {
	for _, tt := range []struct {
		name, channel, lang, accept, want string
	}{
		{"english by default", "", "", "", `"Decline"`},
		{"accept-language", "", "", "de-DE,de;q=0.9,en;q=0.5", `"Ablehnen"`},
		{"japanese", "", "", "ja", `"辞退"`},
		{"unknown language is english", "", "", "fr", `"Decline"`},
		{"lang parameter", "", "de", "ja", `"Ablehnen"`},
		{"channel locale wins over the browser", "ja", "", "de", `"辞退"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Config{Language: languageOf(tt.channel)}, Options{Loopback: true})
			e.ask(t, &broker.AskRequest{Question: "Deploy 412?", Options: []broker.Option{opt("Allow", ""), opt("Deny", "")}})
			u := e.url + "inbox/state"
			if tt.lang != "" {
				u += "?lang=" + tt.lang
			}
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Language", tt.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tt.want) {
				t.Fatalf("GET %s (Accept-Language %q): %d, want %s in\n%s", u, tt.accept, resp.StatusCode, tt.want, body)
			}
		})
	}
}

// TestEventLanguage: one change reaches each connected page in its
// reader's language, a person's own locale first.
func TestEventLanguage(t *testing.T) {
	c, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pages := map[string]reader{
		`"Decline"`:  {},
		`"Ablehnen"`: {browser: "de"},
		`"辞退"`:       {person: "ja", browser: "de"},
	}
	subs := map[string]chan []byte{}
	for want, rd := range pages {
		ch, ok := c.hub.subscribe(c.loc, rd)
		if !ok {
			t.Fatal("hub closed")
		}
		subs[want] = ch
	}
	q := brokertest.NewQuestion("k7m2qx", "agent", time.Now())
	if _, err := c.Post(context.Background(), q, ""); err != nil {
		t.Fatal(err)
	}
	for want, ch := range subs {
		select {
		case ev := <-ch:
			if !strings.Contains(string(ev), want) {
				t.Errorf("page of %+v got %s, want %s", pages[want], ev, want)
			}
		default:
			t.Errorf("page of %+v got no event", pages[want])
		}
	}
}

func languageOf(locale string) channels.Language { return channels.Language{Locale: locale} }

// TestPageStrings: GET /inbox/strings answers the page's words in the
// reader's language, every one of them, and English by default.
func TestPageStrings(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	for _, tt := range []struct{ accept, locale, title string }{
		{"", "en", "Open questions"},
		{"de-AT", "de", "Offene Fragen"},
		{"ja", "ja", "未回答の質問"},
		{"fr", "en", "Open questions"},
	} {
		req, _ := http.NewRequest(http.MethodGet, e.url+"inbox/strings", nil)
		if tt.accept != "" {
			req.Header.Set("Accept-Language", tt.accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got pageStrings
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("Accept-Language %q: %d %v", tt.accept, resp.StatusCode, err)
		}
		if got.Locale != tt.locale || got.Strings["inbox.open.title"] != tt.title {
			t.Errorf("Accept-Language %q: locale %q, title %q; want %q, %q", tt.accept, got.Locale, got.Strings["inbox.open.title"], tt.locale, tt.title)
		}
		for id := range i18n.Messages(i18n.English) {
			if _, ok := got.Strings[id]; strings.HasPrefix(id, i18n.InboxPrefix) && !ok {
				t.Errorf("Accept-Language %q: %s missing", tt.accept, id)
			}
		}
	}
}

// TestPersonLanguage: a signed-in person with a locale reads the cards
// and the page's words in it; another person, without one, in English.
func TestPersonLanguage(t *testing.T) {
	setTeamTokens(t)
	people := team()
	people[0].Locale = "de"
	e := newPeopleEnv(t, Config{TokenEnv: "TEST_SHARED_TOKEN"}, true, people)
	e.ask(t, &broker.AskRequest{Question: "Deploy 412?", Options: []broker.Option{opt("Allow", ""), opt("Deny", "")}})
	// Both browsers ask for Japanese: ana's locale wins on her page; bob,
	// without one, reads the browser's (the card of /inbox/state here is
	// read without the header: English).
	for _, tt := range []struct{ token, decline, title string }{
		{anaToken, "Ablehnen", "Offene Fragen"},
		{bobToken, "Decline", "未回答の質問"},
	} {
		c := login(t, e.srv.URL, tt.token)
		code, st := stateAs(t, http.DefaultClient, e.srv.URL, c)
		if code != http.StatusOK || len(st.Open) != 1 {
			t.Fatalf("%s: state %d with %d open", st.Person, code, len(st.Open))
		}
		if d, ok := control(st.Open[0].Controls, broker.ControlDecline); !ok || d.Label != tt.decline {
			t.Errorf("%s reads Decline as %q, want %q", st.Person, d.Label, tt.decline)
		}
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/inbox/strings", nil)
		req.AddCookie(c)
		req.Header.Set("Accept-Language", "ja")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got pageStrings
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if s := got.Strings["inbox.open.title"]; s != tt.title {
			t.Errorf("%s's page title %q, want %q", st.Person, s, tt.title)
		}
	}
}

// TestCopyLanguage: the line saying where else a question stands is in
// the reader's words, the platform's own error class as it came.
func TestCopyLanguage(t *testing.T) {
	cp := broker.Copy{Target: broker.Target{Channel: "telegram", Chat: "-100"}, State: broker.CopyRetrying, ErrorClass: "unreachable", Attempts: 3}
	for locale, want := range map[string]string{
		"":   "Telegram -100: retrying (unreachable, 3 attempts)",
		"de": "Telegram -100: neuer Versuch (unreachable, 3 Versuche)",
		"ja": "Telegram -100: 再試行中 (unreachable, 3 回試行)",
	} {
		if got := renderCopy(cp, i18n.For(locale)).Text; got != want {
			t.Errorf("%q: %q, want %q", locale, got, want)
		}
	}
}

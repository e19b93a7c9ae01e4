package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// TestPushLanguage: a notification's own words are in the language of the
// person whose device it reaches (ana reads German), else the inbox's
// (channels.web.locale), else English; the agent's words stay as written.
func TestPushLanguage(t *testing.T) {
	for _, tc := range []struct {
		name, inbox string
		// want is the title of a question without one, then of a dialog
		// of two questions, by device.
		want map[string][2]string
	}{
		{"inbox in English", "", map[string][2]string{
			"ana-phone":   {"Frage von agent", "2 Fragen, eine nach der anderen zu beantworten"},
			"bo-phone":    {"Question from agent", "2 questions, answered one after the other"},
			"local-phone": {"Question from agent", "2 questions, answered one after the other"},
		}},
		{"inbox in Japanese", "ja", map[string][2]string{
			"ana-phone":   {"Frage von agent", "2 Fragen, eine nach der anderen zu beantworten"},
			"bo-phone":    {"agent からの質問", "2 件の質問（順番に回答）"},
			"local-phone": {"agent からの質問", "2 件の質問（順番に回答）"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newPushEnvOf(t, nil, false, Config{Language: languageOf(tc.inbox)},
				[]broker.Person{{ID: "ana", Name: "Ana", Locale: "de"}, {ID: "bo", Name: "Bo"}})
			_, key := pushJSON(t, e, http.MethodGet, "/inbox/push/key", nil)
			ps := newPushService(t, key["public_key"].(string), "mailto:ops@example.com")
			for _, s := range []broker.PushSubscription{ps.newDevice("ana", "ana-phone"), ps.newDevice("bo", "bo-phone"), ps.newDevice("local", "local-phone")} {
				if err := e.ch.push.store.SavePushSubscription(context.Background(), s); err != nil {
					t.Fatal(err)
				}
			}

			e.ask(t, &broker.AskRequest{Question: "Ship release 1.4?", Options: []broker.Option{opt("Ship it", ""), opt("Wait", "")}})
			got := pushAndCollect(t, e, ps)
			for device, want := range tc.want {
				m := got[device]
				if m.Title != want[0] || m.Body != "Ship release 1.4?" || len(m.Actions) != 2 || m.Actions[0].Title != "Ship it" || m.Actions[1].Title != "Wait" {
					t.Errorf("%s got %+v; want the title %q, the agent's question and options as written", device, m, want[0])
				}
			}

			e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{{Question: "Which region?"}, {Question: "Which size?"}}})
			got = pushAndCollect(t, e, ps)
			for device, want := range tc.want {
				if m := got[device]; m.Title != want[1] || m.Body != "Which region?" {
					t.Errorf("%s got %+v; want the title %q and the first question", device, m, want[1])
				}
			}
		})
	}
}

// TestPushPseudo: in the pseudo-locale a notification shows no word that
// is not from the catalog but the agent's.
func TestPushPseudo(t *testing.T) {
	q := &broker.Question{ID: "k7m2qx", Agent: "claude", Prompts: []broker.Prompt{{Question: "Deploy now?", Options: []broker.Option{opt("Yes please", ""), opt("Later", "")}}}}
	m := pushMessageOf(q, q.CreatedAt, nil, i18n.Pseudo)
	words := m.Title + " " + m.Body
	for _, a := range m.Actions {
		words += " " + a.Title
	}
	if left := i18ntest.Untranslated(words, "claude", "Deploy now?", "Yes please", "Later"); len(left) > 0 || m.Title == "Question from claude" {
		t.Fatalf("notification %q: words not from the catalog %q", words, left)
	}
}

// TestPushRepliesGerman: turning notifications on and off on a device
// answers in the reader's language, as the inbox's own words do.
func TestPushRepliesGerman(t *testing.T) {
	e := newPushEnv(t, nil, false)
	off := newEnv(t, Config{}, Options{Loopback: true})
	_, key := pushJSON(t, e, http.MethodGet, "/inbox/push/key", nil)
	ps := newPushService(t, key["public_key"].(string), "mailto:ops@example.com")
	phone := ps.newDevice("local", "phone")
	call := func(base, method string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+"inbox/push/subscriptions", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Language", "de-DE,de;q=0.9")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var r reply
		_ = json.NewDecoder(res.Body).Decode(&r)
		return res.StatusCode, r.Reply
	}
	for _, tc := range []struct {
		name, base, method string
		body               any
		status             int
		want               string
	}{
		{"on", e.url, http.MethodPost, subscribeBody(phone), 200, "Benachrichtigungen sind für dieses Gerät eingeschaltet"},
		{"off", e.url, http.MethodDelete, map[string]string{"endpoint": phone.Endpoint}, 200, "Benachrichtigungen sind für dieses Gerät ausgeschaltet"},
		{"off again", e.url, http.MethodDelete, map[string]string{"endpoint": phone.Endpoint}, 404, "Auf keinem solchen Gerät haben Sie Benachrichtigungen eingeschaltet"},
		{"a bad endpoint", e.url, http.MethodPost, subscribeBody(broker.PushSubscription{Endpoint: "ftp://x", P256dh: phone.P256dh, Auth: phone.Auth}), 400, "Abgelehnt: "},
		{"no push store", off.url, http.MethodPost, subscribeBody(phone), 404, "Benachrichtigungen sind auf dieser Bridge ausgeschaltet: Der Speicher der Bridge bewahrt keine Push-Abonnements auf"},
	} {
		if status, got := call(tc.base, tc.method, tc.body); status != tc.status || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, status, got, tc.status, tc.want)
		}
	}
}

package web

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// acceptLanguage makes the tab's browser ask for lang, as a browser set
// to that language does.
func acceptLanguage(lang string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": lang},
		})
		return err
	})
}

// TestInboxLanguage: the inbox speaks the browser's language, its own
// words and its cards' alike; English stays the default; and in the
// pseudo-locale no word on the page comes from outside the catalog
// except what the agent wrote.
func TestInboxLanguage(t *testing.T) {
	browser := newBrowser(t)
	ask := func(t *testing.T, e *env) *broker.Question {
		return e.ask(t, &broker.AskRequest{
			Question: "Which database should the service use?",
			Header:   "Database",
			Options:  []broker.Option{opt("Postgres (Recommended)", "Mature"), opt("SQLite", "One file")},
		})
	}
	for _, tt := range []struct {
		name, accept string
		want         map[string]string // CSS -> text
	}{
		{"english by default", "", map[string]string{
			"#open-title": "Open questions", "#history-title": "History", "#cmd-title": "Type a command",
			"details.decline summary": "Decline", ".badge": "Recommended", "#user": "answering as",
		}},
		{"german", "de-DE,de;q=0.9,en;q=0.5", map[string]string{
			"#open-title": "Offene Fragen", "#history-title": "Verlauf", "#cmd-title": "Befehl eingeben",
			"details.decline summary": "Ablehnen", ".badge": "Empfohlen", "#user": "antwortet als",
			".recommended-hint": "der Vorschlag des Agenten", "nav a[href='/rules']": "Regeln",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Config{}, Options{Loopback: true})
			q := ask(t, e)
			p := tab(t, browser, true)
			if tt.accept != "" {
				do(t, p, acceptLanguage(tt.accept))
			}
			open(t, p, e.url)
			waitText(t, p, card(q.ID)+" .chip", "Database")
			for css, want := range tt.want {
				waitText(t, p, css, want)
			}
		})
	}

	t.Run("pseudo-locale leaves nothing untranslated", func(t *testing.T) {
		e := newEnv(t, Config{}, Options{Loopback: true})
		q := ask(t, e)
		done := e.ask(t, &broker.AskRequest{Question: "Ship it?", Options: []broker.Option{opt("Yes", ""), opt("No", "")}})
		if r := e.b.HandleInbound(context.Background(), broker.Inbound{Channel: Name, User: "ana", Name: "ana", Text: broker.FormatOption(done.Ref(0), 1)}); !r.OK {
			t.Fatalf("answer: %s", r.Text)
		}
		p := tab(t, browser, true)
		do(t, p, acceptLanguage("en-XA"))
		open(t, p, e.url)
		waitText(t, p, card(q.ID)+" .chip", "Database")
		waitText(t, p, past(done.ID)+" .prompt-text", "Ship it?")
		text := eval[string](t, p, `document.body.innerText`)
		// The zone's name (UTC) stays as the clock writes it.
		keep := []string{q.ID, done.ID, "local", "ana", "Which database should the service use?", "Database",
			"Postgres (Recommended)", "Postgres", "Mature", "SQLite", "One file", "Ship it?", "Yes", "No", "UTC"}
		if words := i18ntest.Untranslated(text, keep...); len(words) > 0 {
			t.Errorf("untranslated words %q on the page:\n%s", words, text)
		}
	})
}

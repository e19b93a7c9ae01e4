package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// newDialogEnv is a bridge whose default route writes its copies in
// routeLocale, with the broker's languages given to the channel.
func newDialogEnv(t *testing.T, routeLocale string, people ...broker.Person) *brokerEnv {
	t.Helper()
	br := channeltest.NewBridge(t, map[string]broker.Route{"default": {
		Targets: []broker.Target{{Channel: "slack", Chat: general}}, Locale: routeLocale,
	}}, channeltest.WithPeople(t, people...))
	env := newEnv(t, ModeSocket, br)
	env.ch.langs = br.Broker.Languages()
	br.Register(env.ch)
	env.run(t)
	return &brokerEnv{testEnv: env, b: br.Broker, st: br.Store}
}

// modalSeen is the words of an opened modal a person reads.
type modalSeen struct {
	Title, Submit, Close struct {
		Text string `json:"text"`
	}
	Blocks []struct {
		Type  string `json:"type"`
		Label *struct {
			Text string `json:"text"`
		} `json:"label"`
		Element *struct {
			Placeholder *struct {
				Text string `json:"text"`
			} `json:"placeholder"`
			Options []struct {
				Text struct {
					Text string `json:"text"`
				} `json:"text"`
			} `json:"options"`
		} `json:"element"`
	}
}

func readModal(t *testing.T, v slackfake.OpenedView) modalSeen {
	t.Helper()
	var m modalSeen
	if err := json.Unmarshal(v.View, &m); err != nil {
		t.Fatalf("modal: %v", err)
	}
	return m
}

// words are the modal's own words: title, buttons, labels, placeholder.
func (m modalSeen) words() (title, submit, close string, labels, placeholders []string) {
	for _, b := range m.Blocks {
		if b.Label != nil {
			labels = append(labels, b.Label.Text)
		}
		if b.Element != nil && b.Element.Placeholder != nil {
			placeholders = append(placeholders, b.Element.Placeholder.Text)
		}
	}
	return m.Title.Text, m.Submit.Text, m.Close.Text, labels, placeholders
}

func openModal(t *testing.T, e *brokerEnv, m slackfake.Message, locale string) slackfake.OpenedView {
	t.Helper()
	n := len(e.fake.Views())
	label := i18n.For(locale).T("control.other")
	if _, ok := m.Button(label); !ok {
		label = i18n.For(locale).T("control.answer") // a prompt without options
	}
	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, label)))
	waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == n+1 })
	return e.fake.Views()[n]
}

// TestModalGerman: the Other modal of a German card is German, and so is
// what the channel says to a modal sent empty.
func TestModalGerman(t *testing.T) {
	e := newDialogEnv(t, "de", broker.Person{ID: "ana", Accounts: []string{"slack:" + ana.ID}})
	_, m := e.ask(t, nil)
	v := openModal(t, e, m, "de")
	title, submit, cancel, labels, placeholders := readModal(t, v).words()
	want := []string{"Antwort oder Notiz", "Senden", "Abbrechen",
		"Ihre Auswahl|Eigene Antwort oder eine Notiz zu Ihrer Auswahl", "Hier schreiben"}
	got := []string{title, submit, cancel, strings.Join(labels, "|"), strings.Join(placeholders, "|")}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("modal shows %q, want %q", got[k], want[k])
		}
	}
	p, err := slackfake.SubmitViewChoosing(v, ana, "")
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", p)
	waitEphemeral(t, e.fake, ana.ID, "Wählen Sie eine Option oder schreiben Sie eine Antwort: Nichts wurde erfasst.")
}

// TestModalPersonsLanguage: with no card at hand (Submit pressed with
// nothing ticked) the channel speaks the person's language.
func TestModalPersonsLanguage(t *testing.T) {
	e := newDialogEnv(t, "", broker.Person{ID: "ana", Accounts: []string{"slack:" + ana.ID}, Locale: "ja"})
	_, m := e.ask(t, &broker.AskRequest{Question: "Which regions?", MultiSelect: true,
		Options: []broker.Option{{Label: "Europe"}, {Label: "Asia"}}})
	p, err := slackfake.SubmitCheckboxes(m, ana, e.button(t, m, "Submit"))
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", p)
	waitEphemeral(t, e.fake, ana.ID, "選択肢を 1 つ以上選んでから 送信 を押してください。")
}

// TestModalPseudoLocale: every word of the modal comes from the catalog
// in en-XA and fits Slack's limits without being cut.
func TestModalPseudoLocale(t *testing.T) {
	for _, req := range []*broker.AskRequest{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which regions?", MultiSelect: true, Options: []broker.Option{{Label: "Europe"}, {Label: "Asia"}}},
		{Question: "Anything else?"},
	} {
		t.Run(req.Question, func(t *testing.T) {
			e := newDialogEnv(t, i18n.Pseudo)
			_, m := e.ask(t, req)
			modal := readModal(t, openModal(t, e, m, i18n.Pseudo))
			title, submit, cancel, labels, placeholders := modal.words()
			keep := []string{req.Question}
			for _, o := range req.Options {
				keep = append(keep, o.Label)
			}
			all := append([]string{title, submit, cancel}, append(labels, placeholders...)...)
			for _, s := range all {
				if words := i18ntest.Untranslated(s, keep...); len(words) > 0 || s == "" {
					t.Errorf("the modal's %q has untranslated words %q", s, words)
				}
			}
			for _, s := range []string{title, submit, cancel} {
				if n := utf8.RuneCountInString(s); n > maxModalTitle || !strings.HasSuffix(s, "]") {
					t.Errorf("%q is %d characters or cut; Slack takes %d", s, n, maxModalTitle)
				}
			}
			for _, s := range placeholders {
				if n := utf8.RuneCountInString(s); n > maxPlaceholder || !strings.HasSuffix(s, "]") {
					t.Errorf("placeholder %q is %d characters or cut; Slack takes %d", s, n, maxPlaceholder)
				}
			}
		})
	}
}

// TestModalLimits: the modal's words fit Slack in every language.
func TestModalLimits(t *testing.T) {
	for _, loc := range i18n.Locales() {
		w := i18n.For(loc)
		for id, max := range map[string]int{
			"dialog.slack.title_answer": maxModalTitle, "dialog.slack.title_note": maxModalTitle,
			"dialog.slack.submit": maxModalTitle, "dialog.slack.close": maxModalTitle,
			"dialog.slack.placeholder":  maxPlaceholder,
			"dialog.slack.label_answer": maxModalLabel, "dialog.slack.label_note": maxModalLabel,
			"dialog.slack.choice": maxModalLabel, "dialog.slack.choices": maxModalLabel,
		} {
			if s := w.T(id); utf8.RuneCountInString(s) > max {
				t.Errorf("%s %s is %d characters, past Slack's %d: %q", loc, id, utf8.RuneCountInString(s), max, s)
			}
		}
	}
}

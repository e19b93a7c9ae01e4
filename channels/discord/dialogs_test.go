package discord

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// modalSeen is what a person reads of a modal: its title, and each text
// input's label and placeholder.
type modalSeen struct {
	title                string
	labels, placeholders []string
}

// openModals opens every modal of the channel once, in the language the
// world's channel speaks, and reads them.
func openModals(t *testing.T, w *world) map[string]modalSeen {
	t.Helper()
	open := func(id string) modalSeen {
		t.Helper()
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("answered %s (%v), want a modal", r.Raw, err)
		}
		m := modalSeen{title: r.Data.Title}
		for _, row := range *r.Data.Components {
			for _, in := range row.Components {
				m.labels = append(m.labels, in.Label)
				if in.Placeholder != "" {
					m.placeholders = append(m.placeholders, in.Placeholder)
				}
			}
		}
		return m
	}
	out := map[string]modalSeen{}
	one := w.ask(t, dbRequest())
	out["other with numbers"] = open(w.fake.Click(w.ana, one.msg, data(broker.StepNote, one.q.Ref(0))))
	free := w.ask(t, &broker.AskRequest{Question: "Anything else?"})
	out["own answer"] = open(w.fake.Click(w.ana, free.msg, data(broker.StepOther, free.q.Ref(0))))
	multi := dbRequest()
	multi.MultiSelect = true
	m := w.ask(t, multi)
	out["note"] = open(w.fake.Choose(w.ana, m.msg, m.msg.Menus()[0].CustomID, "1"))
	dialog := w.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Anything else?"},
	}})
	out["other with numbers, question 1"] = open(w.fake.Click(w.ana, dialog.msg, data(broker.StepNote, dialog.q.Ref(0))))
	out["own answer, question 2"] = open(w.fake.Click(w.ana, dialog.msg, data(broker.StepOther, dialog.q.Ref(1))))
	return out
}

func withLocale(loc string) func(*Config) {
	return func(c *Config) { c.Language = channels.Language{Locale: loc} }
}

// TestModalsGerman: a German card's modals and the channel's refusal of
// an empty one are German.
func TestModalsGerman(t *testing.T) {
	w := newWorld(t, withLocale("de"))
	got := openModals(t, w)
	want := map[string]modalSeen{
		"other with numbers": {"Eigene Antwort oder Notiz", []string{"Optionsnummer(n) (optional)", "Ihre Antwort oder Notiz"},
			[]string{"z. B. 2, oder 1,3, wo mehrere erlaubt sind; leer für keine"}},
		"own answer": {"Ihre eigene Antwort", []string{"Antwort"}, nil},
		"note":       {"Notiz hinzufügen (optional)", []string{"Notiz (optional)"}, []string{"Leer lassen, um nur die Auswahl zu senden"}},
		"other with numbers, question 1": {"Antwort oder Notiz, Frage 1", []string{"Optionsnummer(n) (optional)", "Ihre Antwort oder Notiz"},
			[]string{"z. B. 2, oder 1,3, wo mehrere erlaubt sind; leer für keine"}},
		"own answer, question 2": {"Ihre eigene Antwort auf Frage 2", []string{"Antwort"}, nil},
	}
	for what, m := range want {
		g := got[what]
		if g.title != m.title || strings.Join(g.labels, "|") != strings.Join(m.labels, "|") || strings.Join(g.placeholders, "|") != strings.Join(m.placeholders, "|") {
			t.Errorf("%s modal = %+v, want %+v", what, g, m)
		}
	}
	a := w.ask(t, dbRequest())
	id := w.fake.SubmitModalFields(w.ana, a.msg, data(broker.StepOther, a.q.Ref(0)), numbersInputID, "", textInputID, "")
	if r, err := w.fake.WaitResponse(testCtx(t), id); err != nil || !r.Ephemeral() || r.Content() != "Die Antwort war leer: Nichts wurde erfasst." {
		t.Errorf("an empty modal answered %s (%v), want the German refusal", r.Raw, err)
	}
	id = w.fake.SubmitModalFields(w.ana, a.msg, data(broker.StepOther, a.q.Ref(0)), numbersInputID, "SQLite", textInputID, "x")
	if r, err := w.fake.WaitResponse(testCtx(t), id); err != nil || !strings.Contains(r.Content(), escape("„SQLite“ ist keine Optionsnummer")) {
		t.Errorf("a typed label answered %s (%v), want the German refusal", r.Raw, err)
	}
}

// TestModalsPersonsLanguage: with no card at hand (a control the channel
// cannot read) the channel speaks the person's language.
func TestModalsPersonsLanguage(t *testing.T) {
	w := newWorld(t, nil)
	people, err := broker.NewPeople([]broker.Person{{ID: "ana", Accounts: []string{"discord:" + w.ana.ID}, Locale: "ja"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.ch.langs = broker.NewLanguages(people, nil, nil)
	a := w.ask(t, dbRequest())
	for user, want := range map[*discordfake.User]string{&w.ana: "その操作は理解できませんでした。", &w.bo: "That control was not understood."} {
		r, err := w.fake.WaitResponse(testCtx(t), w.fake.Click(*user, a.msg, "zz"))
		if err != nil || !r.Ephemeral() || r.Content() != escape(want) {
			t.Errorf("%s's unreadable control answered %s (%v), want %q", user.Username, r.Raw, err, want)
		}
	}
}

// TestModalsPseudoLocale: in en-XA every word of every modal comes from
// the catalog, and titles, labels and placeholders fit Discord's limits
// without being cut.
func TestModalsPseudoLocale(t *testing.T) {
	w := newWorld(t, withLocale(i18n.Pseudo))
	for what, m := range openModals(t, w) {
		for _, s := range append(append([]string{m.title}, m.labels...), m.placeholders...) {
			if words := i18ntest.Untranslated(s); len(words) > 0 || !strings.HasSuffix(s, "]") {
				t.Errorf("%s modal: %q has untranslated words %q, or is cut", what, s, words)
			}
		}
		if n := utf8.RuneCountInString(m.title); n > maxModalTitle {
			t.Errorf("%s modal: title %q is %d characters; Discord takes %d", what, m.title, n, maxModalTitle)
		}
		for _, s := range m.labels {
			if n := utf8.RuneCountInString(s); n > maxInputLabel {
				t.Errorf("%s modal: label %q is %d characters; Discord takes %d", what, s, n, maxInputLabel)
			}
		}
		for _, s := range m.placeholders {
			if n := utf8.RuneCountInString(s); n > maxPlaceholder {
				t.Errorf("%s modal: placeholder %q is %d characters; Discord takes %d", what, s, n, maxPlaceholder)
			}
		}
	}
}

// Discord's limits on a text input's label and placeholder.
const (
	maxInputLabel  = 45
	maxPlaceholder = 100
)

// TestModalLimits: the modals' words fit Discord in every language, with
// the longest question number.
func TestModalLimits(t *testing.T) {
	for _, loc := range i18n.Locales() {
		w := i18n.For(loc)
		n := broker.MaxPrompts
		for id, s := range map[string]string{
			"title_answer": w.T("dialog.discord.title_answer"), "title_answer_n": w.T("dialog.discord.title_answer_n", n),
			"title_note": w.T("dialog.discord.title_note"), "title_note_n": w.T("dialog.discord.title_note_n", n),
			"title_add_note": w.T("dialog.discord.title_add_note"), "title_add_note_n": w.T("dialog.discord.title_add_note_n", n),
		} {
			if utf8.RuneCountInString(s) > maxModalTitle {
				t.Errorf("%s %s is %d characters, past Discord's %d: %q", loc, id, utf8.RuneCountInString(s), maxModalTitle, s)
			}
		}
		for _, id := range []string{"label_answer", "label_answer_note", "label_numbers", "label_note"} {
			if s := w.T("dialog.discord." + id); utf8.RuneCountInString(s) > maxInputLabel {
				t.Errorf("%s %s is %d characters, past Discord's %d: %q", loc, id, utf8.RuneCountInString(s), maxInputLabel, s)
			}
		}
		for _, id := range []string{"placeholder_numbers", "placeholder_note"} {
			if s := w.T("dialog.discord." + id); utf8.RuneCountInString(s) > maxPlaceholder {
				t.Errorf("%s %s is %d characters, past Discord's %d: %q", loc, id, utf8.RuneCountInString(s), maxPlaceholder, s)
			}
		}
	}
}

package telegram

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// TestShortenedMarkInTheCardsLanguage: a question too long for one
// message ends its shortened texts with the mark in the card's language,
// and the message still fits Telegram's 4,096 characters although the
// German and the pseudo-locale marks are longer than the English one.
func TestShortenedMarkInTheCardsLanguage(t *testing.T) {
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	for _, loc := range []string{i18n.German, i18n.Pseudo} {
		t.Run(loc, func(t *testing.T) {
			e := newEnv(t, envOptions{noRun: true})
			e.ch.locale = loc
			var opts []broker.Option
			for _, l := range []string{"Alpha", "Beta", "Gamma", "Delta"} {
				opts = append(opts, broker.Option{Label: l, Description: long("desc", 300/5)})
			}
			_, m := e.ask(&broker.AskRequest{Context: long("ctx", 1000), Questions: []broker.Prompt{
				{Question: long("q1🚀", 400), Header: "One", Options: opts},
				{Question: long("q2", 600), Header: "Two", Options: opts},
				{Question: long("q3", 600), Header: "Three", Options: opts},
				{Question: long("q4", 600), Header: "Four"},
			}}, team)
			if n := len(utf16.Encode([]rune(m.Text))); n > maxText {
				t.Errorf("text is %d long, Telegram takes %d", n, maxText)
			}
			mark := i18n.For(loc).T("text.shortened")
			if mark == broker.ShortenedMark || !strings.Contains(m.Text, esc(mark)) {
				t.Errorf("the text does not show the %s mark %q:\n%s", loc, mark, m.Text)
			}
			if strings.Contains(m.Text, broker.ShortenedMark) {
				t.Errorf("the text shows the English mark:\n%s", m.Text)
			}
		})
	}
}

package broker_test

import (
	"cmp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// TestCardShortenMarkInItsLanguage: a card cuts its questions with the
// mark in its own language and counts that mark's length: a German
// question cut to 120 characters is 120 plus "…(Text gekürzt)" long,
// the characters Shorten reports taken away are those really gone, and
// a question the longer mark would not make shorter is left whole.
func TestCardShortenMarkInItsLanguage(t *testing.T) {
	for _, c := range []struct{ locale, mark string }{
		{"", "…(shortened)"},
		{i18n.German, "…(Text gekürzt)"},
		{i18n.Japanese, "…（省略）"},
		{i18n.Pseudo, i18n.PseudoText("…(shortened)")},
	} {
		t.Run(cmp.Or(c.locale, "en"), func(t *testing.T) {
			q := cardQuestion()
			q.Prompts[0].Question = strings.Repeat("q", 900)
			card := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Locale: c.locale})
			if card.CutMark() != c.mark {
				t.Fatalf("CutMark() = %q, want %q", card.CutMark(), c.mark)
			}
			all := card.Shorten(card.Size())
			got := all.Prompts[0].Question
			if !strings.HasSuffix(got, c.mark) || utf8.RuneCountInString(got) != 120+utf8.RuneCountInString(c.mark) {
				t.Errorf("the cut question is %q (%d characters), want 120 and %q", got, utf8.RuneCountInString(got), c.mark)
			}

			// Just over the shortest step, but not by the mark's length.
			whole := strings.Repeat("w", 120+utf8.RuneCountInString(c.mark))
			q.Prompts[0].Question = whole
			card = broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Locale: c.locale})
			if got := card.Shorten(card.Size()).Prompts[0].Question; got != whole {
				t.Errorf("a question no longer than the cut was cut: %q", got)
			}
		})
	}
}

// TestCardContextMarkInItsLanguage: a cut context ends with the mark in
// the card's language, which tells the reader the whole text follows in
// a reply, and the context is cut by what Shorten was asked for, mark
// included.
func TestCardContextMarkInItsLanguage(t *testing.T) {
	for _, c := range []struct{ locale, mark string }{
		{"", broker.ContextCutMark},
		{i18n.German, "…(gekürzt: der ganze Text steht in der Antwort unten)"},
		{i18n.Japanese, "…（省略：全文は下の返信にあります）"},
		{i18n.Pseudo, i18n.PseudoText(broker.ContextCutMark)},
	} {
		t.Run(cmp.Or(c.locale, "en"), func(t *testing.T) {
			q := cardQuestion()
			q.Context = strings.Repeat("c", 3000)
			card := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Locale: c.locale})
			if card.ContextMark() != c.mark {
				t.Fatalf("ContextMark() = %q, want %q", card.ContextMark(), c.mark)
			}
			cut := card.Shorten(1000)
			if !cut.ContextCut || !strings.HasSuffix(cut.Context, c.mark) || utf8.RuneCountInString(cut.Context) != 2000 {
				t.Errorf("the cut context ends %q and is %d characters, want %q at its end and 2000 in all",
					cut.Context[max(len(cut.Context)-80, 0):], utf8.RuneCountInString(cut.Context), c.mark)
			}
		})
	}
}

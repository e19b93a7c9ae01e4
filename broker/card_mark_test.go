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

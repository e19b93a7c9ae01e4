package discord

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// TestShortenedMarkInTheCardsLanguage: the largest question the broker
// accepts, read in German or the pseudo-locale, ends its shortened
// questions with the mark in that language and fits Discord's 2,000
// characters although the mark is longer than the English one.
func TestShortenedMarkInTheCardsLanguage(t *testing.T) {
	for _, loc := range []string{i18n.German, i18n.Pseudo} {
		t.Run(loc, func(t *testing.T) {
			m := render(largestQuestion(), broker.Viewer{Now: fixed, Loc: time.UTC, Channel: Name, Locale: loc})
			if n := units(m.Content); n > maxContent {
				t.Fatalf("content is %d characters, Discord allows %d", n, maxContent)
			}
			mark := i18n.For(loc).T("text.shortened")
			if mark == broker.ShortenedMark || !strings.Contains(m.Content, escape(mark)) || strings.Contains(m.Content, escape(broker.ShortenedMark)) {
				t.Errorf("the content does not show the %s mark %q alone:\n%s", loc, mark, m.Content)
			}
			// The content ends with the hint, whole: it was shortened, not cut.
			lines := strings.Split(m.Content, "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "`/answer k7m2qx.1 1`") {
				t.Errorf("the content was cut, not shortened:\n%s", m.Content)
			}
		})
	}
}

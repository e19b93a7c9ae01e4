package broker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// cardTexts is every text of c a person reads, with the commands and the
// button data left out (they are not read).
func cardTexts(c broker.Card) []string {
	out := []string{c.Title, c.Progress, c.StateLine(), c.Reminder}
	if c.Outcome != nil {
		out = append(out, c.Outcome.Text)
	}
	for _, ctl := range c.Controls {
		out = append(out, ctl.Label)
	}
	for _, p := range c.Prompts {
		out = append(out, p.Hint, p.Expect, p.Answer)
		for _, ctl := range p.Controls {
			out = append(out, ctl.Label)
		}
	}
	return out
}

// agentTexts are the texts of cardQuestion that come from the agent and
// the people, which no catalog holds.
var agentTexts = []string{"Which database?", "Which caches?", "Anything else?", "DB", "Postgres", "SQLite",
	"Redis", "Memcached", "None", "We are moving off the old box.", "telegram", "web", "Ana", "Ben", "UTC"}

func votingQuestion() *broker.Question {
	q := cardQuestion()
	q.Prompts = q.Prompts[:1]
	q.Policy = broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(time.Hour), Max: 2}}
	q.State.Votes = []broker.Vote{{Choice: "Postgres", By: broker.Responder{Channel: "slack", Name: "Ana"}}}
	q.ExpiresAt = cardNow.Add(50 * time.Hour)
	q.RemindersSent = 1
	return q
}

func TestCardInEachLanguage(t *testing.T) {
	for _, c := range []struct {
		locale string
		want   []string
	}{
		{"", []string{"1 of 2: Postgres by Ana", "Expires Sat 5 Dec 16:00 UTC", "Not ready", "expires in 2 days"}},
		{i18n.German, []string{"1 von 2: Postgres von Ana", "Läuft ab Sa. 5. Dez. 16:00 UTC", "Noch nicht bereit", "läuft in 2 Tagen ab", "Ablehnen", "Zurückstellen"}},
		{i18n.Japanese, []string{"1 / 2: Postgres（Ana）", "期限 12月5日(土) 16:00 UTC", "まだ答えられない", "あと 2 日", "辞退", "後で"}},
	} {
		card := broker.BuildCard(votingQuestion(), broker.Viewer{Now: cardNow, Loc: time.UTC, Channel: "slack", Locale: c.locale})
		all := strings.Join(cardTexts(card), "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%q card lacks %q:\n%s", c.locale, w, all)
			}
		}
		if got := card.Controls[0].Command; got != "/discuss k7m2qx" {
			t.Errorf("%q card's Not ready sends %q: commands stay English", c.locale, got)
		}
	}
	q := votingQuestion()
	q.State.Votes = nil
	for locale, want := range map[string]string{"": "0 of 2 votes", i18n.German: "0 von 2 Stimmen", i18n.Japanese: "0 / 2 票"} {
		card := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Locale: locale})
		if !strings.Contains(card.StateLine(), want) {
			t.Errorf("%q: state line %q lacks %q", locale, card.StateLine(), want)
		}
	}
}

// TestCardPseudoLocale: in en-XA every word of every card a person reads
// is bracketed, in each state a card can be in.
func TestCardPseudoLocale(t *testing.T) {
	v := broker.Viewer{Now: cardNow, Loc: time.UTC, Channel: "slack", Locale: i18n.Pseudo}
	ana := &broker.Responder{Channel: "slack", Name: "Ana"}
	questions := map[string]*broker.Question{"dialog": cardQuestion(), "voting": votingQuestion()}
	for name, set := range map[string]func(q *broker.Question){
		"answered": func(q *broker.Question) {
			q.Status, q.AnsweredBy, q.ResolvedAt = broker.StatusAnswered, ana, cardNow
			q.Answers = map[string]broker.Answer{"Which database?": {Selected: []string{"Postgres"}, AnsweredBy: ana},
				"Which caches?": {Skipped: true, AnsweredBy: ana}, "Anything else?": {CustomText: "Ben", AnsweredBy: ana}}
		},
		"declined": func(q *broker.Question) {
			q.Status, q.AnsweredBy, q.ResolvedAt, q.Reason, q.NotReady = broker.StatusDeclined, ana, cardNow, "Ben", true
		},
		"timed out": func(q *broker.Question) {
			q.Status, q.ResolvedAt = broker.StatusTimedOut, cardNow
			q.Answers = map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}, Defaulted: true}}
		},
		"cancelled": func(q *broker.Question) { q.Status, q.ResolvedAt = broker.StatusCancelled, cardNow },
	} {
		q := cardQuestion()
		set(q)
		questions[name] = q
	}
	for name, q := range questions {
		for _, text := range cardTexts(broker.BuildCard(q, v)) {
			if words := i18ntest.Untranslated(text, agentTexts...); len(words) > 0 {
				t.Errorf("%s card: %q has untranslated %q", name, text, words)
			}
		}
	}
}

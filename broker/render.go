package broker

import (
	"sort"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// These helpers give every channel the same words for the same state, so a
// person reads one story whichever app they use. Channels escape the
// results for their own markup.

// timeFormat is how times are shown to people.
const timeFormat = "15:04 MST"

// RecommendedHint explains the " (Recommended)" mark where people see it:
// the agent's suggestion, not an answer already given. It is the English
// text of the message "hint.recommended".
const RecommendedHint = "Recommended = the agent's suggestion; nothing is chosen until you answer."

// english prints the texts that are English whatever the reader's
// language: those of the audit log, of the agent's results and of errors.
var english = i18n.For(i18n.English)

// DeadlineText says when q expires and what it falls back to:
// "Expires 14:30 UTC · default: SQLite".
func DeadlineText(q *Question, loc *time.Location) string { return deadlineText(english, q, loc) }

func deadlineText(w *i18n.Printer, q *Question, loc *time.Location) string {
	s := w.T("chip.expires", q.ExpiresAt.In(loc).Format(timeFormat))
	if defs := defaultsText(q); defs != "" {
		s += " · " + w.T("chip.default", defs)
	}
	if pol := policyText(w, q); pol != "" {
		s += " · " + pol
	}
	return s
}

// defaultsText lists the defaults a timeout would apply, or "" when no
// prompt has one: "SQLite" for one question, "SQLite; None" for a dialog
// whose every prompt has a default, and "DB: SQLite" (the prompts named
// by header) when only some have one.
func defaultsText(q *Question) string {
	var parts []string
	all := true
	for _, p := range q.Prompts {
		if len(p.Default) == 0 {
			all = false
		}
	}
	for _, p := range q.Prompts {
		if len(p.Default) == 0 {
			continue
		}
		v := strings.Join(p.Default, ", ")
		if !all {
			v = promptName(p) + ": " + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "; ")
}

// promptName is how a prompt of a dialog is named in one line: its
// header, or else its question.
func promptName(p Prompt) string {
	if p.Header != "" {
		return p.Header
	}
	return p.Question
}

// AnswerText renders the answers of q in prompt order: "Postgres" or
// "Database: Postgres; Cache: skipped".
func AnswerText(q *Question) string { return answerText(english, q) }

func answerText(w *i18n.Printer, q *Question) string {
	var parts []string
	for _, p := range q.Prompts {
		a, ok := q.Answers[p.Question]
		if !ok {
			continue
		}
		v := answerValue(w, a)
		if len(q.Prompts) > 1 {
			v = promptName(p) + ": " + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "; ")
}

// promptOutcomes says, prompt by prompt, what became of each: "Database:
// Postgres (by ana); Cache: None (default); Queue: no answer". It is the
// outcome of a dialog that people answered only in part, or together.
func promptOutcomes(w *i18n.Printer, q *Question) string {
	var parts []string
	for _, p := range q.Prompts {
		v := w.T("answer.none")
		if a, ok := q.Answers[p.Question]; ok {
			v = answerValue(w, a)
			switch {
			case a.Defaulted:
				v = w.T("answer.default", v)
			case a.AnsweredBy != nil:
				v = w.T("answer.by", v, whoText(w, a.AnsweredBy))
			}
		}
		if len(q.Prompts) > 1 {
			v = promptName(p) + ": " + v
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "; ")
}

// answerCounts counts the prompts of a resolved q that people answered
// (or skipped) and those that took their default.
func answerCounts(q *Question) (byPeople, defaulted int) {
	for _, p := range q.Prompts {
		a, ok := q.Answers[p.Question]
		switch {
		case !ok:
		case a.Defaulted:
			defaulted++
		default:
			byPeople++
		}
	}
	return byPeople, defaulted
}

// severalAnswerers reports whether the answers of q name more than one
// person.
func severalAnswerers(q *Question) bool {
	var first *Responder
	for _, a := range q.Answers {
		switch {
		case a.AnsweredBy == nil:
		case first == nil:
			first = a.AnsweredBy
		case !samePerson(*a.AnsweredBy, *first):
			return true
		}
	}
	return false
}

// AnswerValue renders one prompt's answer for people: "Postgres",
// "Redis, Memcached", "“free text”", "Search (note: “and tags”)",
// "skipped". An option's " (Recommended)" mark is the agent's suggestion
// before the answer, so a chosen label is shown without it.
func AnswerValue(a Answer) string { return answerValue(english, a) }

func answerValue(w *i18n.Printer, a Answer) string {
	switch {
	case a.Skipped:
		return w.T("answer.skipped")
	case len(a.Selected) > 0 && a.CustomText != "":
		return w.T("answer.with_note", chosenLabels(a.Selected), a.CustomText)
	case a.CustomText != "":
		return w.T("answer.quoted", a.CustomText)
	case len(a.Selected) > 0:
		return chosenLabels(a.Selected)
	}
	return w.T("answer.nothing")
}

// chosenLabels joins the labels of chosen options without their
// recommended mark.
func chosenLabels(labels []string) string {
	bare := make([]string, len(labels))
	for i, l := range labels {
		bare[i] = BareLabel(l)
	}
	return strings.Join(bare, ", ")
}

// WhoText names a responder: "@ana" style for people, or the channel.
func WhoText(r *Responder) string { return whoText(english, r) }

func whoText(w *i18n.Printer, r *Responder) string {
	if r == nil {
		return w.T("who.someone")
	}
	switch {
	case r.Person != nil && r.Person.Name != "":
		return r.Person.Name
	case r.Person != nil:
		return r.Person.ID
	case r.Name != "":
		return r.Name
	case r.User != "":
		return r.User
	}
	return w.T("who.someone_on", r.Channel)
}

// OutcomeText is the line that replaces the buttons of a resolved copy:
// "Answered by ana at 14:02: Postgres", "Skipped by ana at 14:02", "No
// answer in 30 min: used the default, SQLite", "Expired at 14:30 with no
// answer", "Expired at 14:30 with 1 of 2 answered: DB: Postgres (by ana);
// Cache: None (default)", "Declined by ana: not now", "Cancelled: the
// asking agent is gone". A dialog answered by several people names each
// prompt's answerer.
func OutcomeText(q *Question, loc *time.Location) string { return outcomeText(english, q, loc) }

func outcomeText(w *i18n.Printer, q *Question, loc *time.Location) string {
	at := q.ResolvedAt.In(loc).Format(timeFormat)
	switch q.Status {
	case StatusAnswered:
		if a, ok := q.Answers[q.Prompts[0].Question]; ok && len(q.Prompts) == 1 && a.Skipped {
			return w.T("outcome.skipped", whoText(w, q.AnsweredBy), at)
		}
		if severalAnswerers(q) {
			return w.T("outcome.answered_at", at, promptOutcomes(w, q))
		}
		return w.T("outcome.answered", whoText(w, q.AnsweredBy), at, answerText(w, q))
	case StatusDeclined:
		id := "outcome.declined"
		if q.NotReady {
			id = "outcome.not_ready"
		}
		s := w.T(id, whoText(w, q.AnsweredBy), at)
		if q.Reason != "" {
			s = w.T("outcome.reason", s, q.Reason)
		}
		return s
	case StatusTimedOut:
		expired := q.ExpiresAt.In(loc).Format(timeFormat)
		byPeople, defaulted := answerCounts(q)
		switch {
		case byPeople == 0 && defaulted == 0:
			return w.T("outcome.expired_none", expired)
		case byPeople == 0 && q.Fallback == FallbackDefault:
			return w.T("outcome.default_used", shortDuration(w, q.Timeout), answerText(w, q))
		case byPeople == 0:
			return w.T("outcome.expired_outcomes", expired, promptOutcomes(w, q))
		}
		return w.T("outcome.expired_some", expired, byPeople, len(q.Prompts), promptOutcomes(w, q))
	case StatusCancelled:
		s := w.T("outcome.cancelled", at)
		if q.Reason != "" {
			s = w.T("outcome.reason", s, q.Reason)
		}
		return s
	case StatusUnsupported:
		return w.T("outcome.undelivered", q.Reason)
	}
	return deadlineText(w, q, loc)
}

// ClosedText tells a person why their action on a closed question changed
// nothing: "Already answered by ana at 14:02", "This question expired at
// 14:30".
func ClosedText(q *Question, loc *time.Location) string { return closedText(english, q, loc) }

func closedText(w *i18n.Printer, q *Question, loc *time.Location) string {
	at := q.ResolvedAt.In(loc).Format(timeFormat)
	switch q.Status {
	case StatusAnswered:
		return w.T("closed.answered", whoText(w, q.AnsweredBy), at)
	case StatusDeclined:
		return w.T("closed.declined", whoText(w, q.AnsweredBy), at)
	case StatusTimedOut:
		return w.T("closed.expired", q.ExpiresAt.In(loc).Format(timeFormat))
	case StatusCancelled:
		s := w.T("closed.cancelled", at)
		if q.Reason != "" {
			s = w.T("outcome.reason", s, q.Reason)
		}
		return s
	}
	return w.T("closed.other", w.T("status."+string(q.Status)))
}

// ReminderText is the nudge posted before the deadline.
func ReminderText(q *Question, now time.Time, loc *time.Location) string {
	return reminderText(english, q, now, loc)
}

func reminderText(w *i18n.Printer, q *Question, now time.Time, loc *time.Location) string {
	left := q.ExpiresAt.Sub(now)
	s := w.T("reminder.open", shortDuration(w, left), q.ExpiresAt.In(loc).Format(timeFormat))
	if defs := defaultsText(q); defs != "" {
		s = w.T("reminder.then_default", s, defs)
	}
	return s
}

// shortDuration renders d for people: "30 min", "2 h", "45 s", "1 h 30 min".
func shortDuration(w *i18n.Printer, d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return w.T("duration.s", int(d.Seconds()))
	case d < time.Hour:
		return w.T("duration.min", int(d.Minutes()))
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return w.T("duration.h", h)
		}
		return w.T("duration.h_min", h, m)
	}
	return w.T("duration.days", int(d.Hours()/24))
}

// SelectedOptions returns the sorted, de-duplicated option indexes of a
// selection.
func SelectedOptions(sel []int) []int {
	out := append([]int(nil), sel...)
	sort.Ints(out)
	k := 0
	for i, v := range out {
		if i == 0 || v != out[k-1] {
			out[k] = v
			k++
		}
	}
	return out[:k]
}

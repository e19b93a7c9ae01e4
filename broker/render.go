package broker

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// These helpers give every channel the same words for the same state, so a
// person reads one story whichever app they use. Channels escape the
// results for their own markup.

// timeFormat is how times are shown to people.
const timeFormat = "15:04 MST"

// RecommendedHint explains the " (Recommended)" mark where people see it:
// the agent's suggestion, not an answer already given.
const RecommendedHint = "Recommended = the agent's suggestion; nothing is chosen until you answer."

// DeadlineText says when q expires and what it falls back to:
// "Expires 14:30 UTC · default: SQLite".
func DeadlineText(q *Question, loc *time.Location) string {
	s := "Expires " + q.ExpiresAt.In(loc).Format(timeFormat)
	if defs := defaultsText(q); defs != "" {
		s += " · default: " + defs
	}
	if pol := PolicyText(q); pol != "" {
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
func AnswerText(q *Question) string {
	var parts []string
	for _, p := range q.Prompts {
		a, ok := q.Answers[p.Question]
		if !ok {
			continue
		}
		v := AnswerValue(a)
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
func promptOutcomes(q *Question) string {
	var parts []string
	for _, p := range q.Prompts {
		v := "no answer"
		if a, ok := q.Answers[p.Question]; ok {
			v = AnswerValue(a)
			switch {
			case a.Defaulted:
				v += " (default)"
			case a.AnsweredBy != nil:
				v += " (by " + WhoText(a.AnsweredBy) + ")"
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
func AnswerValue(a Answer) string {
	switch {
	case a.Skipped:
		return "skipped"
	case len(a.Selected) > 0 && a.CustomText != "":
		return chosenLabels(a.Selected) + " (note: “" + a.CustomText + "”)"
	case a.CustomText != "":
		return "“" + a.CustomText + "”"
	case len(a.Selected) > 0:
		return chosenLabels(a.Selected)
	}
	return "nothing"
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
func WhoText(r *Responder) string {
	if r == nil {
		return "someone"
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
	return "someone on " + r.Channel
}

// OutcomeText is the line that replaces the buttons of a resolved copy:
// "Answered by ana at 14:02: Postgres", "Skipped by ana at 14:02", "No
// answer in 30 min: used the default, SQLite", "Expired at 14:30 with no
// answer", "Expired at 14:30 with 1 of 2 answered: DB: Postgres (by ana);
// Cache: None (default)", "Declined by ana: not now", "Cancelled: the
// asking agent is gone". A dialog answered by several people names each
// prompt's answerer.
func OutcomeText(q *Question, loc *time.Location) string {
	at := q.ResolvedAt.In(loc).Format(timeFormat)
	switch q.Status {
	case StatusAnswered:
		if a, ok := q.Answers[q.Prompts[0].Question]; ok && len(q.Prompts) == 1 && a.Skipped {
			return fmt.Sprintf("Skipped by %s at %s", WhoText(q.AnsweredBy), at)
		}
		if severalAnswerers(q) {
			return fmt.Sprintf("Answered at %s: %s", at, promptOutcomes(q))
		}
		return fmt.Sprintf("Answered by %s at %s: %s", WhoText(q.AnsweredBy), at, AnswerText(q))
	case StatusDeclined:
		verb := "Declined"
		if q.NotReady {
			verb = "Not ready to answer; wants to discuss"
		}
		s := fmt.Sprintf("%s by %s at %s", verb, WhoText(q.AnsweredBy), at)
		if q.Reason != "" {
			s += ": " + q.Reason
		}
		return s
	case StatusTimedOut:
		expired := q.ExpiresAt.In(loc).Format(timeFormat)
		byPeople, defaulted := answerCounts(q)
		switch {
		case byPeople == 0 && defaulted == 0:
			return fmt.Sprintf("Expired at %s with no answer", expired)
		case byPeople == 0 && q.Fallback == FallbackDefault:
			return fmt.Sprintf("No answer in %s: used the default, %s", shortDuration(q.Timeout), AnswerText(q))
		case byPeople == 0:
			return fmt.Sprintf("Expired at %s with no answer: %s", expired, promptOutcomes(q))
		}
		return fmt.Sprintf("Expired at %s with %d of %d answered: %s", expired, byPeople, len(q.Prompts), promptOutcomes(q))
	case StatusCancelled:
		if q.Reason != "" {
			return fmt.Sprintf("Cancelled at %s: %s", at, q.Reason)
		}
		return "Cancelled at " + at
	case StatusUnsupported:
		return "Could not be delivered: " + q.Reason
	}
	return DeadlineText(q, loc)
}

// ClosedText tells a person why their action on a closed question changed
// nothing: "Already answered by ana at 14:02", "This question expired at
// 14:30".
func ClosedText(q *Question, loc *time.Location) string {
	at := q.ResolvedAt.In(loc).Format(timeFormat)
	switch q.Status {
	case StatusAnswered:
		return fmt.Sprintf("Already answered by %s at %s", WhoText(q.AnsweredBy), at)
	case StatusDeclined:
		return fmt.Sprintf("Already declined by %s at %s", WhoText(q.AnsweredBy), at)
	case StatusTimedOut:
		return fmt.Sprintf("This question expired at %s", q.ExpiresAt.In(loc).Format(timeFormat))
	case StatusCancelled:
		s := fmt.Sprintf("This question was cancelled at %s", at)
		if q.Reason != "" {
			s += ": " + q.Reason
		}
		return s
	}
	return fmt.Sprintf("This question is %s", q.Status)
}

// ReminderText is the nudge posted before the deadline.
func ReminderText(q *Question, now time.Time, loc *time.Location) string {
	left := q.ExpiresAt.Sub(now)
	s := fmt.Sprintf("Reminder: this question is still open and expires in %s (at %s)", shortDuration(left), q.ExpiresAt.In(loc).Format(timeFormat))
	if defs := defaultsText(q); defs != "" {
		s += "; then the default applies: " + defs
	}
	return s
}

// shortDuration renders d for people: "30 min", "2 h", "45 s", "1 h 30 min".
func shortDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
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
